import { startJitterDelayMs } from '@image-refresh/core';
import { describe, expect, it } from 'vitest';
import { JOBS_MANAGER } from '../../../k8s-adapter/test/support/fake-api-chart.js';
import { JM, pinned, RECORD } from './support/chart-facts.js';
import { patchesOf, type Stage } from './support/cluster-stage.js';
import { theLine } from './support/run-bundle.js';
import { startBundle } from './support/run-bundle-live.js';
import { type TinyRegistry, tinyDigest } from './support/tiny-registry.js';
import { tinyStagePerTest } from './support/tiny-stage.js';

// Fleet-safe rollout (docs/behaviour.md §3.4a step 2, §3.3) told to what ships:
// the bundled CLI, a child process per tick, against the fake API server and a
// tiny registry, with seconds standing in for hours — MIN_DIGEST_AGE=3s,
// ROLLOUT_RING=1, RING_DELAY=2s: a new digest waits 5 s on this edge, then
// rolls on a later tick; START_JITTER waits the same on the same Deployment
// uid, tick after tick. The clock is the process's own (Date.now), as in a
// CronJob.

const CASE_MS = 60_000;
const PENDING = 'tracebloc.io/pending-jobs-manager-digest';
const SOAK = { MIN_DIGEST_AGE: '3s', ROLLOUT_RING: '1', RING_DELAY: '2s' };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let registry: TinyRegistry;
let stage: Stage;
const startTinyStage = tinyStagePerTest();

describe('fleet-safe rollout on the bundle', () => {
  it(
    'MIN_DIGEST_AGE=3s, ring 1 × RING_DELAY=2s: a new digest is written down once, waits, then rolls on a later tick',
    async () => {
      ({ registry, stage } = await startTinyStage());
      expect((await stage.tick(SOAK)).exitCode).toBe(0);
      registry.bump();
      const build2 = tinyDigest(JM, 'stg', 2);

      const seen = await stage.tick(SOAK);
      const seenAt = Date.now();
      expect(seen.exitCode).toBe(0);
      // One write, of the pending records alone (the tiny registry moved every tag).
      const patches = patchesOf(seen) as {
        target: string;
        body: { metadata: { annotations: Record<string, string> } };
      }[];
      expect(patches.map((p) => p.target)).toEqual([`Deployment/${JOBS_MANAGER}`]);
      const written = patches[0]?.body.metadata.annotations ?? {};
      expect(Object.keys(written).sort()).toEqual([
        'tracebloc.io/pending-jobs-manager-digest',
        'tracebloc.io/pending-pods-monitor-digest',
        'tracebloc.io/pending-resource-monitor-digest',
      ]);
      expect(written[PENDING]).toMatch(new RegExp(`^${build2} \\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ$`));
      expect(theLine(seen.stderr, '] tracebloc/jobs-manager@')).toMatch(
        /^\[image-refresh\] tracebloc\/jobs-manager@sha256:[0-9a-f]{12}… first seen \ds ago; acting after (\d{4}-\d\d-\d\d )?\d\d:\d\d(:\d\d)?Z \(MIN_DIGEST_AGE=3s, ring 1 × RING_DELAY=2s\)$/,
      );

      const waiting = await stage.tick(SOAK);
      expect(waiting.exitCode).toBe(0);
      expect(patchesOf(waiting)).toEqual([]);
      expect(stage.images()[JOBS_MANAGER]?.api).not.toBe(pinned(JM, build2));

      await sleep(Math.max(0, 5_500 - (Date.now() - seenAt)));
      const due = await stage.tick(SOAK);
      expect(due.exitCode).toBe(0);
      expect(theLine(due.stderr, '] tracebloc/jobs-manager@')).toMatch(/acting now$/);
      expect(stage.images()[JOBS_MANAGER]?.api).toBe(pinned(JM, build2));
      expect(stage.bookkeeping()[RECORD.jm]).toBe(build2);
      expect(stage.bookkeeping()[PENDING]).toBeUndefined();
    },
    CASE_MS,
  );

  it(
    'START_JITTER=3s waits the same on the same uid every tick, before the first registry request',
    async () => {
      ({ registry, stage } = await startTinyStage());
      const uid = String((stage.cluster.jobsManager().metadata as { uid?: unknown }).uid);
      const delay = startJitterDelayMs(uid, 3_000);
      const runs = [await stage.tick({ START_JITTER: '3s' }), await stage.tick({ START_JITTER: '3s' })];
      for (const run of runs) {
        expect(run.exitCode).toBe(0);
        expect(theLine(run.stderr, 'before the registry')).toBe(
          `[image-refresh] waiting ${delay >= 1_000 ? `${delay / 1_000}s` : `${delay}ms`} before the registry (START_JITTER=3s, derived from this edge's deployment/${JOBS_MANAGER} uid)`,
        );
        expect(run.elapsedMs).toBeGreaterThanOrEqual(delay);
        expect(run.registry.length).toBeGreaterThan(0);
      }
    },
    CASE_MS,
  );

  it(
    'a SIGTERM during START_JITTER=20s ends the tick interrupted at once, before any registry request',
    async () => {
      ({ registry, stage } = await startTinyStage());
      const run = startBundle(['tick'], stage.env({ START_JITTER: '20s' }));
      await run.lineWith('stderr', 'before the registry');
      await sleep(300);
      const sentAt = Date.now();
      run.child.kill('SIGTERM');
      const end = await run.ended;
      expect(end.exitCode).toBe(143);
      expect(Date.now() - sentAt).toBeLessThan(2_500);
      expect(run.stderr.filter((l) => l.includes('interrupted by'))).toEqual([
        '[image-refresh] interrupted by SIGTERM while waiting START_JITTER before the registry: refresh-attempt unchanged, digests not recorded',
      ]);
      expect(registry.seen).toEqual([]);
    },
    CASE_MS,
  );
});
