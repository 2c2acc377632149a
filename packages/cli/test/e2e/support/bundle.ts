import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// The end-to-end story runs what ships: packages/cli/dist/image-refresh.mjs,
// the esbuild bundle of the CLI with core and the adapter inside. The root
// `pnpm test` builds it first; a run of this suite alone builds it when it is
// missing or older than any source it bundles, so the story never runs
// yesterday's bundle against today's code.

const ROOT = new URL('../../../../../', import.meta.url).pathname;
export const BUNDLE = join(ROOT, 'packages/cli/dist/image-refresh.mjs');

/** Everything the bundle is made of. */
const SOURCES = [
  'packages/cli/src',
  'packages/cli/build',
  'packages/core/src',
  'packages/k8s-adapter/src',
  'packages/cli/package.json',
].map((path) => join(ROOT, path));

const newestMtime = (path: string): number => {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return readdirSync(path).reduce((newest, entry) => Math.max(newest, newestMtime(join(path, entry))), stat.mtimeMs);
};

/** Why the bundle must be built, or undefined when it is current. */
export const bundleStaleness = (): string | undefined => {
  if (!existsSync(BUNDLE)) return `${BUNDLE} does not exist`;
  const built = statSync(BUNDLE).mtimeMs;
  const newer = SOURCES.filter((source) => newestMtime(source) > built);
  return newer.length === 0 ? undefined : `sources changed since it was built: ${newer.join(', ')}`;
};

/** For the beforeAll that builds: pnpm through npx, then esbuild. */
export const BUILD_TIMEOUT_MS = 180_000;

/**
 * Held while building: another engineer's run of this suite may find the same
 * stale bundle at the same moment, and a bundle read while esbuild writes it
 * is a broken CLI. The loser waits for the winner's build and uses it.
 */
const BUILD_LOCK = join(tmpdir(), 'image-refresh-e2e-bundle.lock');

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const takeBuildLock = async (): Promise<void> => {
  const deadline = Date.now() + BUILD_TIMEOUT_MS - 20_000;
  for (;;) {
    try {
      mkdirSync(BUILD_LOCK);
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    // Gone since (retry at once), or older than any build: a crashed run's, taken over.
    const heldSince = statSync(BUILD_LOCK, { throwIfNoEntry: false })?.mtimeMs ?? 0;
    if (Date.now() - heldSince > BUILD_TIMEOUT_MS) {
      rmSync(BUILD_LOCK, { recursive: true, force: true });
      continue;
    }
    if (Date.now() > deadline) throw new Error(`${BUILD_LOCK} held for too long: another build hangs`);
    await sleep(250);
  }
};

export const ensureBundle = async (): Promise<void> => {
  if (bundleStaleness() === undefined) return;
  await takeBuildLock();
  try {
    // Someone else may have built it while this run waited.
    if (bundleStaleness() === undefined) return;
    // The repository's own build (package.json "build"), as `pnpm test` runs it.
    execFileSync('npx', ['-y', 'pnpm@10.34.9', 'build'], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: BUILD_TIMEOUT_MS - 30_000,
    });
  } finally {
    rmSync(BUILD_LOCK, { recursive: true, force: true });
  }
  // Not re-checked for staleness: a source edited while this built would fail
  // the run for nothing; the next run rebuilds.
  if (!existsSync(BUNDLE)) throw new Error(`pnpm build succeeded but wrote no ${BUNDLE}`);
};

/**
 * Before a suite runs the bundle against a fake API server: a current
 * bundle, and no service-account token on this machine — the CLI prefers one
 * to KUBECONFIG (loadClusterConfig), and the suite would test the wrong wiring.
 */
export const readyToRunOnKubeconfig = async (): Promise<void> => {
  const token = '/var/run/secrets/kubernetes.io/serviceaccount/token';
  if (existsSync(token)) throw new Error(`${token} exists here: the CLI would ignore KUBECONFIG`);
  await ensureBundle();
};
