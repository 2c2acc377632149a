import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registryBinaryMissing } from '../../../k8s-adapter/test/parity/support/parity-registry.js';
import { annotationsOf } from '../../../k8s-adapter/test/support/fake-api-chart.js';
import { renderExposition } from '../../src/metrics/exposition.js';
import { bundleEnv, STORY_BOUNDS } from './support/chart-env.js';
import { JM, PM, RECORD, RM } from './support/chart-facts.js';
import { CHART_WORLD_SETUP_TIMEOUT_MS, type ChartWorld, startChartWorld } from './support/chart-world.js';
import { kubectlAnnotate } from './support/hand-edits.js';
import {
  PUSHGATEWAY_SETUP_TIMEOUT_MS,
  type Pushgateway,
  pushgatewayBinaryMissing,
  startPushgateway,
} from './support/pushgateway.js';
import { type BundleRun, runBundle } from './support/run-bundle.js';

// The canaries' evidence (docs/metrics.md, "Evidence for promotion";
// docs/fleet-promotion.md) as a real Pushgateway keeps it: the bundled CLI
// pushes, GET /metrics reads back what Prometheus would scrape. A POST
// replaces only the names it carries, and the gateway drops a family that
// has no sample — so a lifted quarantine and a changed recorded digest must
// each be pushed as series that replace the old ones, or the old ones stay
// on the gateway forever.

const CHAPTER_MS = 60_000;
const EDGE = 'canary-1';
const QUARANTINE_JM = 'tracebloc.io/quarantined-jobs-manager-digest';
const RECORDED_AT_JM = 'tracebloc.io/last-refreshed-jobs-manager-at';
/** A digest no registry serves: quarantined by hand, as a rollback leaves it. */
const BAD = `sha256:${'e'.repeat(64)}`;

const missing = registryBinaryMissing ?? pushgatewayBinaryMissing;
if (missing !== undefined) console.warn(`SKIPPED ${import.meta.url}: ${missing}`);

describe.skipIf(missing !== undefined)(
  `the canaries' evidence on a real Pushgateway${missing === undefined ? '' : ` (skipped: ${missing})`}`,
  () => {
    let world: ChartWorld;
    let gateway: Pushgateway;
    const digest: Record<string, string> = {};

    beforeAll(async () => {
      world = await startChartWorld();
      gateway = await startPushgateway();
      digest.jm1 = await world.registry.push(JM, 'stg');
      digest.pm1 = await world.registry.push(PM, 'stg');
      digest.rm1 = await world.registry.push(RM, 'stg');
    }, CHART_WORLD_SETUP_TIMEOUT_MS + PUSHGATEWAY_SETUP_TIMEOUT_MS);

    afterAll(async () => {
      await gateway?.stop();
      await world?.close();
    });

    const run = (command: string): Promise<BundleRun> =>
      runBundle(
        [command],
        bundleEnv(world, STORY_BOUNDS, { PUSHGATEWAY_URL: gateway.url, METRICS_GROUPING: `edge=${EDGE}` }),
      );

    /** This edge's samples of `name` on the gateway, as `label=value,…` (sorted, grouping labels dropped) → value. */
    const series = async (name: string): Promise<Record<string, number>> =>
      Object.fromEntries(
        (await gateway.samples())
          .filter((s) => s.name === name && s.labels.edge === EDGE)
          .map((s) => {
            const { edge: _edge, job: _job, instance: _instance, ...own } = s.labels;
            const labels = Object.entries(own)
              .sort(([a], [b]) => a.localeCompare(b))
              .map(([k, v]) => `${k}=${v}`)
              .join(',');
            return [labels, s.value];
          }),
      );

    it('every tick pushes this edge’s ring: ROLLOUT_RING unset is 0', async () => {
      expect((await run('tick')).exitCode).toBe(0);
      expect(await series('image_refresh_rollout_ring')).toEqual({ '': 0 });
    });

    it(
      'a quarantine, then rearm lifts it: the next push leaves no series of the quarantined digest, each image digest="" 0',
      async () => {
        kubectlAnnotate(world.cluster, QUARANTINE_JM, BAD);
        expect((await run('tick')).exitCode).toBe(0);
        expect(await series('image_refresh_quarantined_digest')).toEqual({
          [`digest=${BAD},image=jobs-manager,repository=tracebloc/jobs-manager`]: 1,
          'digest=,image=pods-monitor,repository=tracebloc/pods-monitor': 0,
          'digest=,image=resource-monitor,repository=tracebloc/resource-monitor': 0,
        });

        const rearm = await run('rearm');
        expect(rearm.exitCode).toBe(0);
        expect(annotationsOf(world.cluster.jobsManager())).not.toHaveProperty(QUARANTINE_JM);
        expect((await run('tick')).exitCode).toBe(0);
        expect(await series('image_refresh_quarantined_digest')).toEqual({
          'digest=,image=jobs-manager,repository=tracebloc/jobs-manager': 0,
          'digest=,image=pods-monitor,repository=tracebloc/pods-monitor': 0,
          'digest=,image=resource-monitor,repository=tracebloc/resource-monitor': 0,
        });
        expect(await series('image_refresh_quarantined_digests')).toEqual({ '': 0 });
      },
      CHAPTER_MS,
    );

    it('why not an empty family: the gateway drops a family without samples and keeps the old series', async () => {
      const group = `${gateway.url}/metrics/job/empty-family-probe`;
      const family = (samples: { labels: Record<string, string>; value: number }[]) =>
        renderExposition([{ name: 'image_refresh_quarantined_digest', help: 'probe', samples }]) ||
        '# HELP image_refresh_quarantined_digest probe\n# TYPE image_refresh_quarantined_digest gauge\n';
      const post = (body: string) => fetch(group, { method: 'POST', body });
      expect((await post(family([{ labels: { digest: BAD }, value: 1 }]))).status).toBe(200);
      expect((await post(family([]))).status).toBe(200);
      const probe = (await gateway.samples()).filter(
        (s) => s.name === 'image_refresh_quarantined_digest' && s.labels.job === 'empty-family-probe',
      );
      expect(probe.map((s) => [s.labels.digest, s.value])).toEqual([[BAD, 1]]);
    });

    it(
      'the recorded digest changes: the push of the new digest and its time replaces the old digest’s series',
      async () => {
        // As the tick's record write leaves the gate with PUSHGATEWAY_URL set: the digest and its time side by side.
        kubectlAnnotate(world.cluster, RECORDED_AT_JM, `${digest.jm1} 2026-01-01T00:00:00Z`);
        expect((await run('tick')).exitCode).toBe(0);
        const before = await series('image_refresh_digest_recorded_timestamp_seconds');
        expect(before[`digest=${digest.jm1},image=jobs-manager`]).toBe(Date.UTC(2026, 0, 1) / 1000);

        digest.jm2 = await world.registry.push(JM, 'stg');
        kubectlAnnotate(world.cluster, RECORD.jm, digest.jm2);
        kubectlAnnotate(world.cluster, RECORDED_AT_JM, `${digest.jm2} 2026-01-02T03:04:05Z`);
        expect((await run('tick')).exitCode).toBe(0);
        const after = await series('image_refresh_digest_recorded_timestamp_seconds');
        expect(after[`digest=${digest.jm2},image=jobs-manager`]).toBe(Date.UTC(2026, 0, 2, 3, 4, 5) / 1000);
        expect(Object.keys(after).filter((k) => k.includes('image=jobs-manager'))).toEqual([
          `digest=${digest.jm2},image=jobs-manager`,
        ]);
      },
      CHAPTER_MS,
    );
  },
);
