import { type RegistryPort, runTick, type TickConfig, topologyFingerprint } from '@image-refresh/core';
import * as E from 'fp-ts/lib/Either.js';
import * as O from 'fp-ts/lib/Option.js';
import { describe, expect, it } from 'vitest';
import { CHART_TOPOLOGY } from '../../../core/test/support/chart.js';
import {
  annotationsOf,
  type ChartCluster,
  imagesOf,
  JOBS_MANAGER,
  NS,
  REQUESTS_PROXY,
  RESOURCE_MONITOR,
} from '../support/fake-api-chart.js';
import { calls, chartClusterPerTest, portOn, testConfig } from './cluster-test-kit.js';

// Core's tick machine on the real adapter against the fake API server: the
// port behaves as the core simulator's does, so docs/behaviour.md §3 holds on the wire —
// one request for a steady tick, the right writes in the right order for the
// others. The registry is a stub here (its adapter is tested on its own).

const digest = (c: string) => `sha256:${c.repeat(64)}`;
const RECORD = {
  jobsManager: 'tracebloc.io/last-refreshed-jobs-manager-digest',
  podsMonitor: 'tracebloc.io/last-refreshed-pods-monitor-digest',
  resourceMonitor: 'tracebloc.io/last-refreshed-resource-monitor-digest',
};
const ATTEMPT = 'tracebloc.io/refresh-attempt';
const STREAK = 'tracebloc.io/refresh-skip-streak';

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

const PUBLISHED = {
  'tracebloc/jobs-manager': digest('1'),
  'tracebloc/pods-monitor': digest('2'),
  'tracebloc/resource-monitor': digest('3'),
};
const RECORDED = {
  // A topology found true before: a steady tick reads no workload for the ownership check (§3.4c).
  [CHART_TOPOLOGY.keys.topologyFingerprint]: topologyFingerprint(CHART_TOPOLOGY),
  [RECORD.jobsManager]: digest('1'),
  [RECORD.podsMonitor]: digest('2'),
  [RECORD.resourceMonitor]: digest('3'),
};

const start = chartClusterPerTest({ stepMs: 30 });

const tick = (c: ChartCluster, published: Readonly<Record<string, string>>, config: TickConfig = testConfig()) =>
  runTick(config, { cluster: portOn(c, config), registry: registry(published) });

describe('a tick on the adapter and the fake API server', () => {
  it('costs a steady tick exactly one API request, and exits 0', async () => {
    const c = await start({ annotations: RECORDED });
    const outcome = await tick(c, PUBLISHED);
    expect(outcome.result).toBe('complete');
    expect(outcome.exitCode).toBe(0);
    expect(calls(c)).toEqual([`GET get Deployment/${JOBS_MANAGER}`]);
  });

  it('records first observations in one write and re-images nothing (I8)', async () => {
    const c = await start();
    const before = imagesOf(c.jobsManager());
    const outcome = await tick(c, PUBLISHED);
    expect(outcome.result).toBe('complete');
    expect(annotationsOf(c.jobsManager())).toMatchObject(RECORDED);
    expect(imagesOf(c.jobsManager())).toEqual(before);
    // The ownership check reads each other workload once before the baseline is recorded (I21, I45),
    // and remembers the topology it found true in a write of its own (§3.4c).
    expect(calls(c)).toEqual([
      `GET get Deployment/${JOBS_MANAGER}`,
      `GET get Deployment/${REQUESTS_PROXY}`,
      `GET get DaemonSet/${RESOURCE_MONITOR}`,
      `PATCH patch Deployment/${JOBS_MANAGER}`,
      `PATCH patch Deployment/${JOBS_MANAGER}`,
    ]);
  });

  it('with OWNERSHIP_CHECK=off, records first observations as the script did: one read, one write', async () => {
    const c = await start();
    const outcome = await tick(c, PUBLISHED, testConfig({ OWNERSHIP_CHECK: 'off' }));
    expect(outcome.result).toBe('complete');
    const { [CHART_TOPOLOGY.keys.topologyFingerprint]: fingerprint, ...records } = RECORDED;
    expect(annotationsOf(c.jobsManager())).toMatchObject(records);
    expect(annotationsOf(c.jobsManager())).not.toHaveProperty(CHART_TOPOLOGY.keys.topologyFingerprint);
    expect(calls(c)).toEqual([`GET get Deployment/${JOBS_MANAGER}`, `PATCH patch Deployment/${JOBS_MANAGER}`]);
  });

  it('re-images a drifted jobs-manager and requests-proxy, waits for both, then resets and records (I9, I12, I16)', async () => {
    const c = await start({ annotations: RECORDED });
    const next = { ...PUBLISHED, 'tracebloc/jobs-manager': digest('9') };
    const outcome = await tick(c, next);
    expect(outcome.result).toBe('complete');
    const image = `docker.io/tracebloc/jobs-manager@${digest('9')}`;
    expect(imagesOf(c.jobsManager()).api).toBe(image);
    expect(imagesOf(c.requestsProxy()).proxy).toBe(image);
    const annotations = annotationsOf(c.jobsManager());
    expect(annotations[RECORD.jobsManager]).toBe(digest('9'));
    expect(annotations).not.toHaveProperty(ATTEMPT);
    // The writes, in the order docs/behaviour.md §3.5–3.8 demands.
    const writes = c.server.requests
      .filter((r) => r.route === 'patch')
      .map((r) => `${r.name} ${r.contentType?.split('/')[1]} ${r.body}`);
    expect(writes).toEqual([
      `${JOBS_MANAGER} merge-patch+json {"metadata":{"annotations":{"${ATTEMPT}":"1"}}}`,
      `${JOBS_MANAGER} strategic-merge-patch+json {"spec":{"template":{"spec":{"containers":[{"name":"api","image":"${image}"}]}}}}`,
      `stg-requests-proxy strategic-merge-patch+json {"spec":{"template":{"spec":{"containers":[{"name":"proxy","image":"${image}"}]}}}}`,
      `${JOBS_MANAGER} merge-patch+json {"metadata":{"annotations":{"${ATTEMPT}":null,"tracebloc.io/refresh-flap-detected":null}}}`,
      `${JOBS_MANAGER} merge-patch+json {"metadata":{"annotations":{"${RECORD.jobsManager}":"${digest('9')}"}}}`,
    ]);
  });

  it('counts a skip on an unsettled Deployment without touching any workload (I1, I3)', async () => {
    const c = await start({ annotations: { ...RECORDED, [STREAK]: '2' } });
    c.server.store.setStatus('Deployment', NS, JOBS_MANAGER, { availableReplicas: 0 });
    const outcome = await tick(c, { ...PUBLISHED, 'tracebloc/jobs-manager': digest('9') });
    expect(outcome.result).toBe('skipped');
    expect(outcome.exitCode).toBe(0);
    expect(annotationsOf(c.jobsManager())[STREAK]).toBe('3');
    expect(c.server.requests.filter((r) => r.route === 'patch').map((r) => r.name)).toEqual([JOBS_MANAGER]);
  });

  it('fails a tick whose rollout stalls, leaving the attempt counted and the digest unrecorded (I7, I9)', async () => {
    const c = await start({ annotations: RECORDED, behaviour: 'stalls' });
    const config = testConfig({ ROLLOUT_TIMEOUT: '300ms' });
    const outcome = await tick(c, { ...PUBLISHED, 'tracebloc/jobs-manager': digest('9') }, config);
    expect(outcome.result).toBe('reimageFailed');
    expect(outcome.exitCode).toBe(1);
    const annotations = annotationsOf(c.jobsManager());
    expect(annotations[ATTEMPT]).toBe('1');
    expect(annotations[RECORD.jobsManager]).toBe(digest('1'));
    expect(outcome.findings.map((f) => f.message).join('\n')).toContain('0 of 1 updated replicas are available');
  });

  it('ends a tick whose Deployment is unreadable with exit 1 and no write (I2, #571)', async () => {
    const c = await start({ annotations: RECORDED });
    c.server.inject({ route: 'get' }, { kind: 'status', code: 403, message: 'forbidden by RBAC' });
    const outcome = await tick(c, PUBLISHED);
    expect(outcome.result).toBe('deploymentUnreadable');
    expect(outcome.exitCode).toBe(1);
    expect(outcome.findings.map((f) => f.message).join('\n')).toContain('forbidden by RBAC');
    expect(c.server.requests.filter((r) => r.route === 'patch')).toEqual([]);
  });
});
