import type { Output } from './commands/command.js';

// The process's two streams as an Output that a closed reader cannot crash.
// `image-refresh status | head -1` closes stdout after one line; Node then
// emits EPIPE as an 'error' event on the stream and, with no listener, dies
// with a stack trace. A stream that failed is written no more:
// the command goes on — a tick's writes and its exit code must not depend on
// whether anyone still reads its log — and the failure is said once on the
// other stream when it is not the ordinary "the reader went away".

interface LineStream {
  write(text: string): unknown;
  on(event: 'error', listener: (error: NodeJS.ErrnoException) => void): unknown;
}

/** A reader that went away: not a fault of ours, nothing to report. */
const READER_GONE = new Set(['EPIPE', 'ERR_STREAM_DESTROYED', 'ERR_STREAM_WRITE_AFTER_END']);

export interface GuardedOutput extends Output {
  /** Which streams failed, and why (empty while both are written). */
  readonly failed: () => readonly string[];
}

export const guardedOutput = (stdout: LineStream, stderr: LineStream, prefix: string): GuardedOutput => {
  const failures: string[] = [];
  const guard = (name: 'stdout' | 'stderr', stream: LineStream, other: () => ((line: string) => void) | undefined) => {
    let open = true;
    const fail = (error: NodeJS.ErrnoException) => {
      if (!open) return;
      open = false;
      const why = `${name}: ${error.code ?? 'error'} ${error.message}`;
      failures.push(why);
      if (!READER_GONE.has(error.code ?? '')) other()?.(`${prefix} WARN: ${why}; no more output on ${name}`);
    };
    stream.on('error', fail);
    return (line: string) => {
      if (!open) return;
      try {
        stream.write(`${line}\n`);
      } catch (error) {
        // A synchronous write error (a destroyed stream) is the same failure.
        fail(error as NodeJS.ErrnoException);
      }
    };
  };
  const err: (line: string) => void = guard('stderr', stderr, () => out);
  const out: (line: string) => void = guard('stdout', stdout, () => err);
  return { stdout: out, stderr: err, failed: () => failures };
};
