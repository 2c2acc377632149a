import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { delimiter, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

// The two published libraries, where they live, and how to get a dist/ that
// matches their sources. `pnpm test` builds before it tests; a packaging test
// run on its own (vitest --project packaging) would otherwise compare the API
// report with, or pack, whatever an older build left — so a stale or missing
// dist is rebuilt first, with the package's own build script.

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

export interface Library {
  readonly name: string;
  readonly dir: string;
  /** Sources beyond its own whose change changes its emitted .d.ts. */
  readonly alsoReads: readonly string[];
}

export const LIBRARIES: readonly Library[] = [
  { name: '@image-refresh/core', dir: join(ROOT, 'packages/core'), alsoReads: [] },
  {
    name: '@image-refresh/k8s-adapter',
    dir: join(ROOT, 'packages/k8s-adapter'),
    // Inferred types that mention core's are written out in its .d.ts.
    alsoReads: [join(ROOT, 'packages/core/src')],
  },
];

const filesUnder = (path: string): string[] => {
  if (!existsSync(path)) return [];
  if (!statSync(path).isDirectory()) return [path];
  return readdirSync(path, { recursive: true, encoding: 'utf8' })
    .map((entry) => join(path, entry))
    .filter((file) => statSync(file).isFile());
};

const inputsOf = (library: Library): string[] => [
  ...filesUnder(join(library.dir, 'src')),
  ...['package.json', 'tsconfig.json', 'tsconfig.build.json'].map((f) => join(library.dir, f)),
  join(ROOT, 'tsconfig.base.json'),
  ...library.alsoReads.flatMap(filesUnder),
];

/** Fresh when every emitted file is newer than every input (the build empties dist/ first). */
export const isDistFresh = (library: Library): boolean => {
  const outputs = filesUnder(join(library.dir, 'dist'));
  if (outputs.length === 0) return false;
  const oldestOutput = Math.min(...outputs.map((f) => statSync(f).mtimeMs));
  const newestInput = Math.max(...inputsOf(library).map((f) => statSync(f).mtimeMs));
  return oldestOutput > newestInput;
};

/** Runs the package's `build` script as pnpm would, with the workspace's tools on PATH. */
export const buildLibrary = (library: Library): void => {
  const manifest = JSON.parse(readFileSync(join(library.dir, 'package.json'), 'utf8')) as {
    scripts?: { build?: string };
  };
  const script = manifest.scripts?.build;
  if (script === undefined) throw new Error(`${library.name} has no build script`);
  rmSync(join(library.dir, 'dist'), { recursive: true, force: true });
  execFileSync('sh', ['-c', script], {
    cwd: library.dir,
    env: { ...process.env, PATH: `${join(ROOT, 'node_modules/.bin')}${delimiter}${process.env.PATH ?? ''}` },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
};

export const ensureFreshDist = (): void => {
  for (const library of LIBRARIES) if (!isDistFresh(library)) buildLibrary(library);
};

/**
 * pnpm, the pinned version: the one running this test when `pnpm test`
 * started it, else bootstrapped through npx (corepack cannot verify it here).
 */
export const pnpmCommand = (): { readonly file: string; readonly args: readonly string[] } => {
  const running = process.env.npm_execpath;
  if (running !== undefined && /pnpm\.c?js$/.test(running)) return { file: process.execPath, args: [running] };
  const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { packageManager: string };
  const version = manifest.packageManager.replace(/\+.*$/, '');
  return { file: 'npx', args: ['-y', version] };
};
