import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registryBinaryMissing } from '../../../k8s-adapter/test/parity/support/parity-registry.js';
import { restAs } from '../../../k8s-adapter/test/parity/support/world-controls.js';
import {
  annotationsOf,
  imagesOf,
  NS,
  REQUESTS_PROXY,
  RESOURCE_MONITOR,
} from '../../../k8s-adapter/test/support/fake-api-chart.js';
import { bundleEnv, STORY_BOUNDS } from './support/chart-env.js';
import { JM, PM, RP_REF as PROXY, RM } from './support/chart-facts.js';
import { CHART_WORLD_SETUP_TIMEOUT_MS, type ChartWorld, startChartWorld } from './support/chart-world.js';
import { linesWith, runBundle } from './support/run-bundle.js';

// docs/behaviour.md §3.6, told to the bundle: a tick gives up on
// requests-proxy's rollout after jobs-manager's completed; the proxy's rollout
// completes after it. The retry tick sends ONE set image on the wire — the
// DaemonSet's — says the two Deployments already run the new build, counts
// one re-image, and still records and clears the attempt.

const CHAPTER_MS = 60_000;

if (registryBinaryMissing !== undefined) console.warn(`SKIPPED ${import.meta.url}: ${registryBinaryMissing}`);

describe.skipIf(registryBinaryMissing !== undefined)('the bundled CLI writes only what changes', () => {
  let world: ChartWorld;

  beforeAll(async () => {
    world = await startChartWorld();
    for (const repo of [JM, PM, RM]) await world.registry.push(repo, 'stg');
  }, CHART_WORLD_SETUP_TIMEOUT_MS);

  afterAll(async () => {
    await world?.close();
  });

  const tick = () => runBundle(['tick'], bundleEnv(world, STORY_BOUNDS));
  const imagePatches = (from: number) =>
    world.cluster.server.requests
      .slice(from)
      .filter((r) => r.route === 'patch' && (r.contentType ?? '').startsWith('application/strategic-merge-patch+json'))
      .map((r) => `${r.kind}/${r.name}`);

  it(
    'the retry tick after a rollout that completed late patches only the DaemonSet',
    async () => {
      expect((await tick()).exitCode).toBe(0); // first observation
      const jm2 = await world.registry.push(JM, 'stg');
      const rm2 = await world.registry.push(RM, 'stg');
      world.cluster.server.setBehaviour('Deployment', NS, REQUESTS_PROXY, 'stalls');
      const gaveUp = await tick();
      expect(gaveUp.exitCode).toBe(1);
      expect(annotationsOf(world.cluster.jobsManager())['tracebloc.io/refresh-attempt']).toBe('1');

      // requests-proxy's rollout completes after the tick gave up on it.
      world.cluster.server.setBehaviour('Deployment', NS, REQUESTS_PROXY, 'settles');
      restAs(world.cluster, PROXY, 'settles');
      const from = world.cluster.server.requests.length;
      const retry = await tick();
      expect(retry.exitCode).toBe(0);
      expect(imagePatches(from)).toEqual([`DaemonSet/${RESOURCE_MONITOR}`]);
      expect(linesWith(retry.stderr, 'not re-imaged')).toEqual([
        `[image-refresh] deployment/stg-jobs-manager already runs docker.io/${JM}@${jm2}; not re-imaged`,
        `[image-refresh] deployment/stg-requests-proxy already runs docker.io/${JM}@${jm2}; not re-imaged`,
      ]);
      expect(retry.stderr.at(-1)).toMatch(/ re-images=1 \(daemonset\/stg-resource-monitor\) unresolved=0$/);
      expect(imagesOf(world.cluster.resourceMonitor())).toEqual({
        'tracebloc-resource-monitor': `docker.io/${RM}@${rm2}`,
      });
      const after = annotationsOf(world.cluster.jobsManager());
      expect(after['tracebloc.io/refresh-attempt']).toBeUndefined();
      expect(after['tracebloc.io/last-refreshed-jobs-manager-digest']).toBe(jm2);
      expect(after['tracebloc.io/last-refreshed-resource-monitor-digest']).toBe(rm2);
    },
    3 * CHAPTER_MS,
  );
});
