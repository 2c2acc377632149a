import { type RegistryPort, runTick, type TickConfig, topologyFingerprint } from '@image-refresh/core';
import * as E from 'fp-ts/lib/Either.js';
import * as O from 'fp-ts/lib/Option.js';
import { describe, expect, it } from 'vitest';
import { CHART_TOPOLOGY } from '../../../core/test/support/chart.js';
import { annotationsOf, type ChartCluster, imagesOf, JOBS_MANAGER } from '../support/fake-api-chart.js';
import {
  chartClusterPerTest,
  left,
  portOn,
  refs,
  right,
  run,
  TIMING_SLACK_MS,
  testConfig,
} from './cluster-test-kit.js';

// The way back on the wire (docs/behaviour.md §3.6): ROLLOUT_STABLE_FOR's watch
// reads the workload until the window closes and fails the moment it falls
// apart; ON_ROLLOUT_FAILURE=revert's patch puts each container back on its
// recorded digest as a digest reference, and a rollback whose own rollout
// fails writes nothing more.

const digest = (c: string) => `sha256:${c.repeat(64)}`;
const JM_RECORD = 'tracebloc.io/last-refreshed-jobs-manager-digest';
const QUARANTINE = 'tracebloc.io/quarantined-jobs-manager-digest';
const ATTEMPT = 'tracebloc.io/refresh-attempt';
const RECORDED = {
  // A topology found true before: the ticks here read no workload for the ownership check (§3.4c).
  [CHART_TOPOLOGY.keys.topologyFingerprint]: topologyFingerprint(CHART_TOPOLOGY),
  [JM_RECORD]: digest('1'),
  'tracebloc.io/last-refreshed-pods-monitor-digest': digest('2'),
  'tracebloc.io/last-refreshed-resource-monitor-digest': digest('3'),
};
const BAD = {
  'tracebloc/jobs-manager': digest('9'),
  'tracebloc/pods-monitor': digest('2'),
  'tracebloc/resource-monitor': digest('3'),
};
const ref = (c: string) => `docker.io/tracebloc/jobs-manager@${digest(c)}`;
const apiPatch = (image: string) =>
  `${JOBS_MANAGER} strategic-merge-patch+json {"spec":{"template":{"spec":{"containers":[{"name":"api","image":"${image}"}]}}}}`;

const registry = (digests: Readonly<Record<string, string>>): RegistryPort => ({
  resolveDigests: (requests) => () =>
    Promise.resolve(
      requests.map(({ repo }) => {
        const found = digests[repo];
        return found === undefined
          ? E.left({ _tag: 'NotFound' as const, message: `manifest unknown: ${repo}` })
          : E.right({ digest: found, rateLimitRemaining: O.none });
      }),
    ),
});

const start = chartClusterPerTest({ stepMs: 30 });
const tick = (c: ChartCluster, config: TickConfig) =>
  runTick(config, { cluster: portOn(c, config), registry: registry(BAD) });
const patches = (c: ChartCluster) =>
  c.server.requests
    .filter((r) => r.route === 'patch')
    .map((r) => `${r.name} ${r.contentType?.split('/')[1]} ${r.body}`);

describe('watchStability (ROLLOUT_STABLE_FOR)', () => {
  it('reads a workload that stays complete until the window closes, then answers Right', async () => {
    const c = await start();
    const began = Date.now();
    right(await run(portOn(c).watchStability(refs().requestsProxy, 400)));
    const took = Date.now() - began;
    expect(took).toBeGreaterThanOrEqual(400);
    expect(took).toBeLessThan(400 + testConfig().apiTimeoutMs + TIMING_SLACK_MS);
    // Polled every 40 ms (FAST): it watched, it did not sleep through the window.
    expect(c.server.requests.filter((r) => r.method === 'GET').length).toBeGreaterThanOrEqual(3);
  });

  it('fails the moment a completed rollout falls apart inside the window, saying how', async () => {
    const c = await start({ behaviour: 'flaps', stepMs: 60 });
    const port = portOn(c);
    right(await run(port.setImages(refs().jobsManager, [{ container: 'api', image: ref('9') }])));
    right(await run(port.waitForRollout(refs().jobsManager, 5_000)));
    const began = Date.now();
    const error = left(await run(port.watchStability(refs().jobsManager, 5_000)));
    expect(Date.now() - began).toBeLessThan(2_000);
    expect(error._tag).toBe('RolloutFailed');
    expect(error.message).toMatch(
      new RegExp(
        `^deployment/${JOBS_MANAGER} fell apart .* into the 5s window: .*0 of 1 updated replicas are available`,
      ),
    );
  });

  it('a read refused with 403 inside the window ends the watch at once with Forbidden', async () => {
    const c = await start();
    c.server.inject({ route: 'get' }, { kind: 'status', code: 403, message: 'forbidden by RBAC' });
    const error = left(await run(portOn(c).watchStability(refs().requestsProxy, 5_000)));
    expect(error._tag).toBe('Forbidden');
  });
});

describe('ON_ROLLOUT_FAILURE=revert on the adapter', () => {
  it('patches the container back to docker.io/<repo>@<recorded digest>, waits, quarantines the bad digest', async () => {
    // Steps of 250 ms: the flapping workload is complete long enough for each wait to see it.
    const c = await start({ annotations: RECORDED, behaviour: 'flaps', stepMs: 250 });
    const config = testConfig({ ON_ROLLOUT_FAILURE: 'revert', ROLLOUT_STABLE_FOR: '1s' });
    const outcome = await tick(c, config);
    expect(outcome.result).toBe('rolledBack');
    expect(outcome.exitCode).toBe(1);
    expect(patches(c)).toEqual([
      `${JOBS_MANAGER} merge-patch+json {"metadata":{"annotations":{"${ATTEMPT}":"1"}}}`,
      apiPatch(ref('9')),
      apiPatch(ref('1')),
      `${JOBS_MANAGER} merge-patch+json {"metadata":{"annotations":{"${QUARANTINE}":"${digest('9')}"}}}`,
    ]);
    expect(imagesOf(c.jobsManager()).api).toBe(ref('1'));
    expect(annotationsOf(c.jobsManager())[JM_RECORD]).toBe(digest('1'));
    expect(outcome.findings.map((f) => f.message)).toContainEqual(
      expect.stringMatching(
        new RegExp(`^ROLLED BACK deployment/${JOBS_MANAGER} from ${digest('9')} to ${digest('1')}: `),
      ),
    );
  });

  it('a rollback whose own rollout fails is ROLLBACK FAILED and writes nothing more', async () => {
    const c = await start({ annotations: RECORDED, behaviour: 'neverReady' });
    const config = testConfig({ ON_ROLLOUT_FAILURE: 'revert', ROLLOUT_TIMEOUT: '300ms' });
    const outcome = await tick(c, config);
    expect(outcome.result).toBe('rollbackFailed');
    expect(outcome.exitCode).toBe(1);
    expect(patches(c)).toEqual([
      `${JOBS_MANAGER} merge-patch+json {"metadata":{"annotations":{"${ATTEMPT}":"1"}}}`,
      apiPatch(ref('9')),
      apiPatch(ref('1')),
    ]);
    expect(outcome.findings.map((f) => f.message).join('\n')).toContain('ROLLBACK FAILED');
    expect(annotationsOf(c.jobsManager())).not.toHaveProperty(QUARANTINE);
  });
});
