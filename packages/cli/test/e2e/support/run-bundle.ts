import { spawn } from 'node:child_process';
import { BUNDLE } from './bundle.js';

// `node dist/image-refresh.mjs <args>` as a child process, the way the
// CronJob's container runs it: nothing of the test process's environment is
// inherited but PATH, so no ~/.kube, no proxy variable and no service-account
// setting can leak in — the child sees exactly the environment given.

export interface BundleRun {
  readonly exitCode: number;
  readonly stdout: readonly string[];
  readonly stderr: readonly string[];
  readonly elapsedMs: number;
}

/**
 * The Node that runs the bundle: this process's own, or the one the
 * `cli@node24` project names (vitest.workspace.ts) — the image's Node 24.
 */
export const BUNDLE_NODE = process.env.IMAGE_REFRESH_BUNDLE_NODE ?? process.execPath;

/** A run that outlives this is a hung CLI: killed, and the test fails on its exit code. */
const RUN_TIMEOUT_MS = 20_000;

const lines = (text: string): string[] => text.split('\n').filter((line) => line !== '');

export const runBundle = (
  args: readonly string[],
  env: Readonly<Record<string, string>>,
  timeoutMs = RUN_TIMEOUT_MS,
): Promise<BundleRun> =>
  new Promise((resolve, reject) => {
    const started = Date.now();
    const child = spawn(BUNDLE_NODE, [BUNDLE, ...args], {
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...env },
      cwd: env.HOME,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({
        exitCode: code ?? (signal === null ? -1 : 128),
        stdout: lines(stdout),
        stderr: lines(stderr),
        elapsedMs: Date.now() - started,
      });
    });
  });

/** The one line containing `phrase`; fails naming all lines when there is none or several. */
export const theLine = (lines: readonly string[], phrase: string): string => {
  const found = lines.filter((line) => line.includes(phrase));
  if (found.length !== 1) {
    throw new Error(`expected one line with ${JSON.stringify(phrase)}, got ${found.length}:\n${lines.join('\n')}`);
  }
  return found[0] as string;
};

/** The lines containing `phrase` (for "exactly n" and "none"). */
export const linesWith = (lines: readonly string[], phrase: string): string[] =>
  lines.filter((line) => line.includes(phrase));
