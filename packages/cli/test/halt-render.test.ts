import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseFleetHalt } from '@image-refresh/core';
import * as E from 'fp-ts/lib/Either.js';
import { afterEach, describe, expect, it } from 'vitest';
import { aWorld, runCli } from './support/sim-connection.js';

// `image-refresh halt render` (docs/behaviour.md §3.4b): the file it writes is
// one every edge's parser takes; what an edge would refuse is not written, and
// every problem of the flags is said at once (exit 2).

const BAD = `sha256:${'a'.repeat(64)}`;
const GOOD = `sha256:${'b'.repeat(64)}`;
const JM = 'tracebloc/jobs-manager';

let dir: string | undefined;
afterEach(() => {
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});
const outFile = () => {
  dir = mkdtempSync(join(tmpdir(), 'halt-render-'));
  return join(dir, 'fleet-halt.json');
};

describe('image-refresh halt render', () => {
  it('writes a halt of the named digests with its pin and an expiry 24 h from now, which the edges parse', async () => {
    const out = outFile();
    const before = Date.now();
    const run = await runCli(
      [
        'halt',
        'render',
        '--reason',
        'build 2 loses jobs',
        '--expires',
        '24h',
        '--digest',
        `${JM}@${BAD}`,
        '--pin',
        `${JM}@${GOOD}`,
        '--digest',
        'tracebloc/resource-monitor@*',
        '--out',
        out,
      ],
      aWorld(),
    );
    expect(run.exitCode).toBe(0);
    const text = readFileSync(out, 'utf8');
    const halt = parseFleetHalt(text, Date.now());
    if (E.isLeft(halt)) throw new Error(halt.left);
    expect(halt.right.repositories).toEqual({
      [JM]: { digests: [BAD], pin: GOOD },
      'tracebloc/resource-monitor': { digests: '*', pin: undefined },
    });
    expect(halt.right.expiresAtMs).toBeGreaterThanOrEqual(Math.floor(before / 1_000) * 1_000 + 24 * 3_600_000);
    expect(halt.right.expiresAtMs).toBeLessThanOrEqual(Date.now() + 24 * 3_600_000);
    expect(run.stdout).toEqual([
      `wrote ${out}: halts ${JM}, tracebloc/resource-monitor until ${halt.right.expires} (build 2 loses jobs)`,
    ]);
    // Replaced atomically: no temporary file is left beside it.
    expect(readdirSync(dir ?? '')).toEqual(['fleet-halt.json']);
  });

  it('says every problem of the flags at once, exit 2, and writes nothing', async () => {
    const out = outFile();
    const run = await runCli(
      [
        'halt',
        'render',
        '--expires',
        '31d',
        '--digest',
        `${JM}@latest`,
        '--pin',
        `tracebloc/pods-monitor@${GOOD}`,
        '--out',
        out,
      ],
      aWorld(),
    );
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toEqual([
      '[image-refresh] ERROR: halt render: --reason is required',
      '[image-refresh] ERROR: halt render: --expires 31d: neither a duration (24h) nor an RFC 3339 time',
      `[image-refresh] ERROR: halt render: --digest ${JM}@latest: not REPO@sha256:<64 hex> or REPO@*`,
      `[image-refresh] ERROR: halt render: --pin tracebloc/pods-monitor@${GOOD}: no --digest halts tracebloc/pods-monitor`,
    ]);
    expect(readdirSync(dir ?? '')).toEqual([]);
  });

  it('refuses a halt longer than 30 days and a pin that is itself halted, as the edges would', async () => {
    const long = await runCli(
      ['halt', 'render', '--reason', 'r', '--expires', '721h', '--digest', `${JM}@${BAD}`, '--out', outFile()],
      aWorld(),
    );
    expect(long.stderr).toEqual(['[image-refresh] ERROR: halt render: --expires 721h: a halt holds at most 30 days']);
    const self = await runCli(
      [
        'halt',
        'render',
        '--reason',
        'r',
        '--expires',
        '1h',
        '--digest',
        `${JM}@${BAD}`,
        '--pin',
        `${JM}@${BAD}`,
        '--out',
        outFile(),
      ],
      aWorld(),
    );
    expect(self.exitCode).toBe(2);
    expect(self.stderr).toEqual([
      `[image-refresh] ERROR: halt render: the edges would refuse this halt: repositories["${JM}"].pin is one of its own halted digests`,
    ]);
  });

  it('with no --digest writes a halt that names nothing, and says publishing it lifts a halt', async () => {
    const out = outFile();
    const run = await runCli(
      ['halt', 'render', '--reason', 'fixed in build 3', '--expires', '1h', '--out', out],
      aWorld(),
    );
    expect(run.exitCode).toBe(0);
    expect(run.stdout).toEqual([
      `wrote ${out}: halts nothing (published under the halt's tag, it lifts a halt) (fixed in build 3)`,
    ]);
    expect(JSON.parse(readFileSync(out, 'utf8')).repositories).toEqual({});
  });

  it('is only `halt render`: another verb is a usage error', async () => {
    const run = await runCli(['halt', 'lift'], aWorld());
    expect(run.exitCode).toBe(2);
    expect(run.stderr[0]).toBe("image-refresh: halt: expected 'halt render'");
  });
});
