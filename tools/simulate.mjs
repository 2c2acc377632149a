// @ts-check
// `pnpm simulate`: the built bundle's `simulate`, building it first only when
// it is missing or older than a source it bundles — a build costs ~10 s, the
// simulation a tenth of a second (README, "Two commands").
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = new URL('..', import.meta.url).pathname;
const BUNDLE = join(ROOT, 'packages/cli/dist/image-refresh.mjs');
const SOURCES = ['packages/cli/src', 'packages/cli/build', 'packages/core/src', 'packages/k8s-adapter/src'];

/** @param {string} path @returns {number} */
const newestMtime = (path) => {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return readdirSync(path).reduce((newest, entry) => Math.max(newest, newestMtime(join(path, entry))), stat.mtimeMs);
};

const stale =
  !existsSync(BUNDLE) || SOURCES.some((source) => newestMtime(join(ROOT, source)) > statSync(BUNDLE).mtimeMs);
if (stale) {
  execFileSync('npx', ['-y', 'pnpm@10.34.9', '--filter', '@image-refresh/cli', 'build'], {
    cwd: ROOT,
    stdio: 'inherit',
  });
}
const run = spawnSync(process.execPath, [BUNDLE, 'simulate', ...process.argv.slice(2)], { stdio: 'inherit' });
process.exitCode = run.status ?? 1;
