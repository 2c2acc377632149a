import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUILD_TIMEOUT_MS, ensureBundle } from './support/bundle.js';
import { JM, PM, RECORD, RM } from './support/chart-facts.js';
import { type Stage, startStage } from './support/cluster-stage.js';
import { type LiveRun, startBundle } from './support/run-bundle-live.js';
import { startTinyRegistry, type TinyRegistry, tinyDigest } from './support/tiny-registry.js';

// `image-refresh simulate | head -1`: the reader closes the pipe after one
// line. Node reports that as an EPIPE 'error' on the stream and, unhandled,
// died with a 25-line stack. A closed stdout ends output quietly
// (exit 0, or 141 as a shell's SIGPIPE death would be); for `tick`, a closed
// stdout or stderr never cuts the tick short: its writes land, its exit code
// is the tick's. Mutation that reddens every case: bin.ts writing to
// process.stdout/stderr directly instead of through guardedOutput.

const CASE_MS = 30_000;

/** Like `| head -1`: close our end of `stream` once its first line arrived. */
const closeAfterFirstLine = async (run: LiveRun, stream: 'stdout' | 'stderr'): Promise<void> => {
  await run.lineWith(stream, /./);
  run.child[stream].destroy();
};

/** Lines of a Node crash: the uncaught error and its stack. */
const crashLines = (run: LiveRun): string[] =>
  [...run.stdout, ...run.stderr].filter((line) => /EPIPE|Unhandled 'error'|^\s+at /.test(line));

let registry: TinyRegistry;
let stage: Stage;

beforeAll(async () => {
  await ensureBundle();
  registry = await startTinyRegistry();
  stage = await startStage({ url: registry.url, seen: registry.seen });
}, BUILD_TIMEOUT_MS);

afterAll(async () => {
  await stage?.close();
  await registry?.close();
});

describe('a closed pipe ends output quietly, never the command', () => {
  for (const args of [['simulate', '--verbose'], ['status']]) {
    it(
      `${args.join(' ')} | head -1: exit 0 or 141, no stack`,
      async () => {
        const run = startBundle(args, stage.env());
        await closeAfterFirstLine(run, 'stdout');
        const { exitCode } = await run.ended;
        expect([0, 141]).toContain(exitCode);
        expect(crashLines(run)).toEqual([]);
      },
      CASE_MS,
    );
  }

  it(
    'tick --json | head -1 on a first install: the tick still records every digest and exits 0',
    async () => {
      const run = startBundle(['tick', '--json'], stage.env());
      await closeAfterFirstLine(run, 'stdout');
      const { exitCode } = await run.ended;
      expect(exitCode).toBe(0);
      expect(crashLines(run)).toEqual([]);
      expect(Object.keys(stage.bookkeeping())).toEqual(expect.arrayContaining(Object.values(RECORD)));
    },
    CASE_MS,
  );

  it(
    'tick 2>&1 | head -1 with a new build behind the tag: the re-image and the record still happen, exit 0',
    async () => {
      registry.bump();
      const run = startBundle(['tick'], stage.env());
      await closeAfterFirstLine(run, 'stderr');
      const { exitCode } = await run.ended;
      expect(exitCode).toBe(0);
      expect(crashLines(run)).toEqual([]);
      // The record moved to the new builds: the tick got past its re-image and rollout wait.
      expect(stage.bookkeeping()).toMatchObject({
        [RECORD.jm]: tinyDigest(JM, 'stg', 2),
        [RECORD.pm]: tinyDigest(PM, 'stg', 2),
        [RECORD.rm]: tinyDigest(RM, 'stg', 2),
      });
    },
    CASE_MS,
  );
});
