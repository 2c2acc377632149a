import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { guardedOutput } from '../src/process-output.js';

// The unusual failures of a stream, which a `| head -1` cannot produce: an
// I/O error is said once on the other stream; a reader that went away is not.

class FakeStream extends EventEmitter {
  readonly written: string[] = [];
  write(text: string): boolean {
    this.written.push(text);
    return true;
  }
  fail(code: string): void {
    this.emit('error', Object.assign(new Error(`write ${code}`), { code }));
  }
}

describe('guardedOutput', () => {
  it('stops writing a stream that failed, and says an EIO once on the other one', () => {
    const stdout = new FakeStream();
    const stderr = new FakeStream();
    const out = guardedOutput(stdout, stderr, '[image-refresh]');
    out.stdout('one');
    stdout.fail('EIO');
    stdout.fail('EIO');
    out.stdout('two');
    expect(stdout.written).toEqual(['one\n']);
    expect(stderr.written).toEqual(['[image-refresh] WARN: stdout: EIO write EIO; no more output on stdout\n']);
    expect(out.failed()).toEqual(['stdout: EIO write EIO']);
  });

  it('says nothing of an EPIPE: the reader went away', () => {
    const stdout = new FakeStream();
    const stderr = new FakeStream();
    const out = guardedOutput(stdout, stderr, '[image-refresh]');
    stderr.fail('EPIPE');
    out.stderr('lost');
    out.stdout('kept');
    expect(stderr.written).toEqual([]);
    expect(stdout.written).toEqual(['kept\n']);
  });
});
