import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { constants } from 'node:os';
import { BUNDLE } from './bundle.js';
import { BUNDLE_NODE } from './run-bundle.js';

// The bundle as a process a test acts on while it runs: close one of its
// pipes after the first line (`| head -1`), send it a signal once a line
// appears. Same environment rule as runBundle: nothing inherited but PATH.

export interface LiveRun {
  readonly child: ChildProcessWithoutNullStreams;
  /** Lines so far, per stream (a closed stream stops growing). */
  readonly stdout: string[];
  readonly stderr: string[];
  /** When each stderr line arrived (ms since spawn). */
  readonly stderrAt: number[];
  /** Resolves when a line containing `phrase` appears on `stream`. */
  lineWith(stream: 'stdout' | 'stderr', phrase: string | RegExp): Promise<string>;
  /** Exit code (128 + n for a signal death), and ms since spawn. */
  readonly ended: Promise<{ exitCode: number; signal: NodeJS.Signals | null; elapsedMs: number }>;
}

const KILL_AFTER_MS = 20_000;

export interface StartOptions {
  /** Flags for node itself, before the bundle (`--expose-gc`, `--require` a preload). */
  readonly nodeArgs?: readonly string[];
}

export const startBundle = (
  args: readonly string[],
  env: Readonly<Record<string, string>>,
  options: StartOptions = {},
): LiveRun => {
  const started = Date.now();
  const child = spawn(BUNDLE_NODE, [...(options.nodeArgs ?? []), BUNDLE, ...args], {
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...env },
    cwd: env.HOME,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const lines = { stdout: [] as string[], stderr: [] as string[] };
  const stderrAt: number[] = [];
  const waiters: { stream: 'stdout' | 'stderr'; phrase: string | RegExp; resolve: (line: string) => void }[] = [];
  const hits = (line: string, phrase: string | RegExp) =>
    typeof phrase === 'string' ? line.includes(phrase) : phrase.test(line);
  for (const stream of ['stdout', 'stderr'] as const) {
    let partial = '';
    child[stream].on('data', (chunk: Buffer) => {
      partial += chunk.toString('utf8');
      const parts = partial.split('\n');
      partial = parts.pop() ?? '';
      for (const line of parts) {
        lines[stream].push(line);
        if (stream === 'stderr') stderrAt.push(Date.now() - started);
        for (const w of waiters.filter((w) => w.stream === stream && hits(line, w.phrase))) {
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve(line);
        }
      }
    });
  }
  const timer = setTimeout(() => child.kill('SIGKILL'), KILL_AFTER_MS);
  const ended = new Promise<{ exitCode: number; signal: NodeJS.Signals | null; elapsedMs: number }>((resolve) => {
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({
        exitCode: code ?? 128 + (signal === null ? 0 : constants.signals[signal]),
        signal,
        elapsedMs: Date.now() - started,
      });
    });
  });
  return {
    child,
    stdout: lines.stdout,
    stderr: lines.stderr,
    stderrAt,
    lineWith: (stream, phrase) => {
      const seen = lines[stream].find((line) => hits(line, phrase));
      if (seen !== undefined) return Promise.resolve(seen);
      return new Promise((resolve) => waiters.push({ stream, phrase, resolve }));
    },
    ended,
  };
};
