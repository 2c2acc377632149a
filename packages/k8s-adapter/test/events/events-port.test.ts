import { describe, expect, it } from 'vitest';
import { createEventsPort, eventName, REPORTING_CONTROLLER } from '../../src/events/index.js';
import {
  chartClusterPerTest,
  expectModelledTraffic,
  kubeConfigFor,
  left,
  run,
  testConfig,
} from '../cluster/cluster-test-kit.js';
import { type ChartCluster, JOBS_MANAGER, NS } from '../support/fake-api-chart.js';
import { KUBECTL, KUBECTL_MISSING, kubectl } from '../support/fake-api-kubectl.js';
import type { JsonObject } from '../support/fake-api-patch.js';

// Findings as Kubernetes Events on the jobs-manager Deployment (docs/events.md, I18b). The
// fake validates events.k8s.io/v1 writes as a real apiserver does
// (fake-api-events.test.ts proves it refuses what the apiserver refuses), so
// every Right here is a write a real cluster accepts; real kubectl reads the
// Events back through core/v1.

const startCluster = chartClusterPerTest({ stepMs: 40 }, expectModelledTraffic);
const start = (anonymous = false) => startCluster({ anonymous });

const FROZEN = { type: 'Warning', reason: 'RefreshFrozen', message: 'IMAGE REFRESH IS FROZEN (8/8)' } as const;
const SKIPPED = { type: 'Normal', reason: 'RefreshSkipped', message: 'skipping this refresh tick 1/8' } as const;
const E_RIGHT = { _tag: 'Right', right: undefined } as const;
const fixedClock = () => new Date('2026-11-30T12:00:00Z');
/** A clock that moves on a minute per reading. */
const tickingClock = () => {
  let minutes = 0;
  return () => new Date(Date.UTC(2026, 10, 30, 12, minutes++));
};

/** The Event requests the server saw, as `METHOD status`. */
const eventTraffic = (c: ChartCluster): string[] =>
  c.server.requests.filter((r) => r.route === 'event').map((r) => `${r.method} ${r.status}`);

const FIX =
  /either namespace tracebloc is not where the gate runs .* or this CronJob's ServiceAccount may not create and patch events in API group events\.k8s\.io there .* or set IMAGE_REFRESH_EVENTS=0/;

describe('the Events port on the fake API server', () => {
  it('creates one Event on the jobs-manager Deployment with only events.k8s.io/v1 fields: no deprecated*, a microsecond eventTime', async () => {
    const c = await start();
    const port = createEventsPort(kubeConfigFor(c), testConfig(), {
      reportingInstance: 'refresh-29xyz',
      now: fixedClock,
    });
    expect(await run(port.record(FROZEN))).toEqual({ _tag: 'Right', right: undefined });
    const [written] = c.server.events.allEventsV1();
    expect(Object.keys(written ?? {}).filter((k) => k.startsWith('deprecated'))).toEqual([]);
    expect(written).toMatchObject({
      metadata: { name: eventName(JOBS_MANAGER, 'RefreshFrozen', FROZEN.message), namespace: NS },
      regarding: {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        name: JOBS_MANAGER,
        namespace: NS,
        uid: (c.jobsManager().metadata as JsonObject).uid,
      },
      type: 'Warning',
      reason: 'RefreshFrozen',
      action: 'Refresh',
      note: FROZEN.message,
      eventTime: '2026-11-30T12:00:00.000000Z',
      reportingController: REPORTING_CONTROLLER,
      reportingInstance: 'refresh-29xyz',
    });
    expect(written?.series).toBeUndefined();
    // core/v1, as `kubectl describe` reads it: no count until a repeat makes a series.
    const [core] = c.server.events.all();
    expect(core).toMatchObject({
      reason: 'RefreshFrozen',
      message: FROZEN.message,
      reportingComponent: REPORTING_CONTROLLER,
    });
    expect(core?.count).toBeUndefined();
    expect(core?.metadata).toMatchObject({
      name: expect.stringMatching(new RegExp(`^${JOBS_MANAGER}\\.image-refresh\\.refreshfrozen\\.[0-9a-f]{8}$`)),
    });
    expect(eventTraffic(c)).toEqual(['POST 201']);
  });

  it('repeats within a streak count in ONE Event series (2, 3…), its note the line that started the streak; only create and patch are sent', async () => {
    const c = await start();
    const port = createEventsPort(kubeConfigFor(c), testConfig(), { now: tickingClock() });
    for (const message of ['(8/8)', '(9/8)', '(10/8)']) {
      expect(await run(port.record({ ...FROZEN, message: `IMAGE REFRESH IS FROZEN ${message}` }))).toEqual(E_RIGHT);
    }
    const events = c.server.events.allEventsV1();
    expect(events.map((e) => [e.reason, e.note, e.series])).toEqual([
      ['RefreshFrozen', 'IMAGE REFRESH IS FROZEN (8/8)', { count: 3, lastObservedTime: '2026-11-30T12:02:00.000000Z' }],
    ]);
    // Each repeat: create → 409, an empty merge patch that reads the series,
    // one that sets it. No GET: the Role grants events create and patch only.
    expect(eventTraffic(c)).toEqual([
      'POST 201',
      'POST 409',
      'PATCH 200',
      'PATCH 200',
      'POST 409',
      'PATCH 200',
      'PATCH 200',
    ]);
    const patches = c.server.requests.filter((r) => r.route === 'event' && r.method === 'PATCH');
    expect(patches.map((r) => JSON.parse(r.body))).toEqual([
      {},
      { series: { count: 2, lastObservedTime: '2026-11-30T12:01:00.000000Z' } },
      {},
      { series: { count: 3, lastObservedTime: '2026-11-30T12:02:00.000000Z' } },
    ]);
    expect(patches.map((r) => r.contentType)).toEqual(Array(4).fill('application/merge-patch+json'));
  });

  it('a different message under the same reason is a new Event with its own note, counted apart', async () => {
    const c = await start();
    const port = createEventsPort(kubeConfigFor(c), testConfig());
    const stalled = 'RolloutFailed: deployment "stg-jobs-manager" exceeded its progress deadline';
    const forbidden = 'Forbidden (HTTP 403): deployments.apps "stg-jobs-manager" is forbidden';
    for (const message of [stalled, forbidden, stalled]) {
      await run(port.record({ type: 'Warning', reason: 'RefreshRolloutFailed', message }));
    }
    expect(c.server.events.allEventsV1().map((e) => [e.note, (e.series as JsonObject | undefined)?.count])).toEqual([
      [stalled, 2],
      [forbidden, undefined],
    ]);
  });

  it('an Event that expired between its 409 and the patch (the apiserver event TTL) is created again', async () => {
    const c = await start();
    const port = createEventsPort(kubeConfigFor(c), testConfig());
    await run(port.record(SKIPPED));
    c.server.inject({ route: 'event', method: 'PATCH' }, { kind: 'delay', ms: 300 });
    const repeat = run(port.record(SKIPPED));
    const deadline = Date.now() + 2_000;
    while (!c.server.requests.some((r) => r.method === 'PATCH') && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 10));
    }
    c.server.events.expire(NS, eventName(JOBS_MANAGER, SKIPPED.reason, SKIPPED.message));
    expect(await repeat).toEqual(E_RIGHT);
    expect(eventTraffic(c)).toEqual(['POST 201', 'POST 409', 'PATCH 404', 'POST 201']);
    expect(c.server.events.allEventsV1().map((e) => [e.note, e.series])).toEqual([[SKIPPED.message, undefined]]);
  });

  it('RBAC refuses the create (403): Forbidden naming the fix, then NO further request for the rest of the run', async () => {
    const c = await start();
    c.server.inject(
      { route: 'event' },
      {
        kind: 'status',
        code: 403,
        reason: 'Forbidden',
        message:
          'events.events.k8s.io is forbidden: User "system:serviceaccount:tracebloc:stg-image-refresh" cannot create resource "events" in API group "events.k8s.io" in the namespace "tracebloc"',
      },
      Number.POSITIVE_INFINITY,
    );
    const port = createEventsPort(kubeConfigFor(c), testConfig());
    const first = left(await run(port.record(FROZEN)));
    expect(first).toMatchObject({ _tag: 'Forbidden', status: 403 });
    expect(first.message).toContain(
      `record Event RefreshFrozen (events/${eventName(JOBS_MANAGER, 'RefreshFrozen', FROZEN.message)} in ${NS})`,
    );
    expect(first.message).toContain('cannot create resource "events"');
    expect(first.message).toMatch(FIX);
    expect(first.message).not.toContain(c.server.token);
    const sent = c.server.requests.length;
    const later = [left(await run(port.record(SKIPPED))), left(await run(port.record(FROZEN)))];
    expect(c.server.requests.length).toBe(sent);
    expect(eventTraffic(c)).toEqual(['POST 403']);
    for (const failure of later) {
      expect(failure).toMatchObject({ _tag: 'Forbidden', status: 403 });
      expect(failure.message).toMatch(FIX);
      expect(failure.message).toContain('cannot create resource "events"');
    }
    expect(later[0]?.message).toMatch(
      /^record Event RefreshSkipped \(events\/.*\): not sent -- record Event RefreshFrozen/,
    );
  });

  it('a 401 (a token the server no longer takes) is Unauthorized and does not stop the port: a re-read token may cure it', async () => {
    const c = await start();
    c.server.inject({ route: 'event' }, { kind: 'status', code: 401, message: 'Unauthorized' });
    const port = createEventsPort(kubeConfigFor(c), testConfig());
    expect(left(await run(port.record(FROZEN)))._tag).toBe('Unauthorized');
    expect(await run(port.record(FROZEN))).toEqual(E_RIGHT);
    expect(eventTraffic(c)).toEqual(['POST 401', 'POST 201']);
  });

  it('a hanging server ends as a Timeout at API_TIMEOUT', async () => {
    const c = await start();
    c.server.inject({ route: 'event' }, { kind: 'hang' });
    const started = Date.now();
    const failure = left(
      await run(createEventsPort(kubeConfigFor(c), testConfig({ API_TIMEOUT: '300ms' })).record(FROZEN)),
    );
    expect(failure._tag).toBe('Timeout');
    expect(Date.now() - started).toBeLessThan(3_000);
  });
});

describe('Event names', () => {
  const frozen = (streak: number) =>
    `ERROR: deployment/stg-jobs-manager has been unsettled for ${streak} consecutive ticks (>= MAX_SKIP_TICKS=8). IMAGE REFRESH IS FROZEN, Last status: Waiting for deployment "stg-jobs-manager" rollout to finish: 0 of 1 updated replicas are available...`;

  it('are stable per Deployment, reason and note shape: counters do not change the name, other words do', () => {
    const name = eventName('stg-jobs-manager', 'RefreshFrozen', frozen(8));
    expect(name).toMatch(/^stg-jobs-manager\.image-refresh\.refreshfrozen\.[0-9a-f]{8}$/);
    expect(eventName('stg-jobs-manager', 'RefreshFrozen', frozen(12))).toBe(name);
    expect(eventName('stg-jobs-manager', 'RefreshFrozen', frozen(8).replace('Waiting for', 'Stuck on'))).not.toBe(name);
    expect(eventName('stg-jobs-manager', 'RefreshFlapDetected', frozen(8))).not.toBe(name);
    expect(eventName('prod-jobs-manager', 'RefreshFrozen', frozen(8))).not.toBe(name);
  });

  it('a re-image to other digests is another Event: hex digits inside a digest are not counters', () => {
    const reimaged = (to: string) => `deployment/stg-jobs-manager re-imaged: api sha256:0a1b2c3d4e5f… → sha256:${to}…`;
    expect(eventName('d', 'RefreshReimaged', reimaged('9f8e7d6c5b4a'))).not.toBe(
      eventName('d', 'RefreshReimaged', reimaged('1f8e7d6c5b4a')),
    );
  });

  it('stay a valid DNS subdomain of at most 253 characters, hash kept, for any Deployment name', () => {
    const long = `${'a'.repeat(60)}.${'b-'.repeat(120)}x`;
    const name = eventName(long, 'RefreshFrozen', 'x');
    expect(name.length).toBeLessThanOrEqual(253);
    expect(name).toMatch(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/);
    expect(name).toMatch(/\.[0-9a-f]{8}$/);
  });
});

describe.skipIf(KUBECTL === undefined)(`Events under real kubectl (${KUBECTL ?? KUBECTL_MISSING})`, () => {
  it('`kubectl get events` shows what the port recorded, with its series count', async () => {
    const c = await start(true);
    const port = createEventsPort(kubeConfigFor(c), testConfig());
    await run(port.record(FROZEN));
    await run(port.record(FROZEN));
    const result = await kubectl(c.kubeconfig, ['get', 'events', '-n', NS, '-o', 'json']);
    expect(result.stderr).toBe('');
    const items = (JSON.parse(result.stdout) as { items: JsonObject[] }).items;
    expect(
      items.map((e) => [
        e.type,
        e.reason,
        e.message,
        (e.series as JsonObject).count,
        (e.involvedObject as JsonObject).name,
      ]),
    ).toEqual([['Warning', 'RefreshFrozen', FROZEN.message, 2, JOBS_MANAGER]]);
  });
});
