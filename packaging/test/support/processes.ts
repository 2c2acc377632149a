import { execFile } from 'node:child_process';

// Child processes for the consumer test, always asynchronous: the fake API
// server a consumer talks to lives in this process, and a synchronous spawn
// would block the very event loop that has to answer it.

export interface Ran {
  /** The exit code; null when killed (timeout) or never started. */
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

export const run = (
  file: string,
  args: readonly string[],
  options: { readonly cwd: string; readonly env: NodeJS.ProcessEnv; readonly timeoutMs: number },
): Promise<Ran> =>
  new Promise((resolve) => {
    execFile(
      file,
      [...args],
      { cwd: options.cwd, env: options.env, timeout: options.timeoutMs, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === 'number' ? error.code : null;
        resolve({ code, stdout, stderr: error !== null && code === null ? `${stderr}\n${error.message}` : stderr });
      },
    );
  });

/** What a failed step said, for an assertion message. */
export const transcript = (what: string, ran: Ran): string =>
  `${what} exited ${ran.code}\n--- stdout\n${ran.stdout}\n--- stderr\n${ran.stderr}`;

/**
 * The environment for npm: this one, minus the lowercase `npm_*` variables
 * pnpm sets for its own scripts (npm would read pnpm's settings as its own).
 */
export const npmEnvironment = (): NodeJS.ProcessEnv =>
  Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('npm_')));
