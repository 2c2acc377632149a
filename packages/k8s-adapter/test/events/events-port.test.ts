import { afterEach, describe, expect, it } from 'vitest';
import { createEventsPort, eventName, REPORTING_CONTROLLER } from '../../src/events/index.js';
import { kubeConfigFor, left, run, testConfig } from '../cluster/cluster-test-kit.js';
import { type ChartCluster, JOBS_MANAGER, NS, startChartCluster } from '../support/fake-api-chart.js';
import { KUBECTL, KUBECTL_MISSING, kubectl } from '../support/fake-api-kubectl.js';
import type { JsonObject } from '../support/fake-api-patch.js';

// Issue 6: findings as Kubernetes Events on the jobs-manager Deployment. The
// fake serves core/v1 events (create → 409 when the name exists, merge patch,
// get, list); real kubectl reads them back, so `kubectl get events` is shown
// to see what the port wrote.

let cluster: ChartCluster | undefined;
const start = async (anonymous = false) => {
  cluster = await startChartCluster({ anonymous, stepMs: 40 });
  return cluster;
};
afterEach(async () => {
  const c = cluster;
  cluster = undefined;
  if (c === undefined) return;
  const unexpected = c.server.unexpected.map((r) => `${r.method} ${r.path}: ${r.problem}`);
  await c.close();
  expect(unexpected).toEqual([]);
});

const FROZEN = { type: 'Warning', reason: 'RefreshFrozen', message: 'IMAGE REFRESH IS FROZEN (8/8)' } as const;
const fixedClock = () => new Date('2026-11-30T12:00:00Z');

describe('the Events port on the fake API server', () => {
  it('creates one Event on the jobs-manager Deployment, with its uid, reason, message and reporting component', async () => {
    const c = await start();
    const port = createEventsPort(kubeConfigFor(c), testConfig(), {
      reportingInstance: 'refresh-29xyz',
      now: fixedClock,
    });
    expect(await run(port.record(FROZEN))).toEqual({ _tag: 'Right', right: undefined });
    const [event] = c.server.events.all();
    expect((c.jobsManager().metadata as JsonObject).uid).toMatch(/^[0-9a-f-]{36}$/);
    expect(event).toMatchObject({
      metadata: { name: `${JOBS_MANAGER}.image-refresh.refreshfrozen`, namespace: NS },
      involvedObject: {
        kind: 'Deployment',
        name: JOBS_MANAGER,
        namespace: NS,
        uid: (c.jobsManager().metadata as JsonObject).uid,
      },
      type: 'Warning',
      reason: 'RefreshFrozen',
      message: FROZEN.message,
      count: 1,
      reportingComponent: REPORTING_CONTROLLER,
      reportingInstance: 'refresh-29xyz',
      lastTimestamp: '2026-11-30T12:00:00.000Z',
    });
  });

  it('a repeat of the same reason updates that one Event and counts it, instead of piling up', async () => {
    const c = await start();
    const port = createEventsPort(kubeConfigFor(c), testConfig());
    await run(port.record(FROZEN));
    await run(port.record({ ...FROZEN, message: 'IMAGE REFRESH IS FROZEN (9/8)' }));
    await run(port.record({ ...FROZEN, message: 'IMAGE REFRESH IS FROZEN (10/8)' }));
    expect(c.server.events.all().map((e) => [e.reason, e.count, e.message])).toEqual([
      ['RefreshFrozen', 3, 'IMAGE REFRESH IS FROZEN (10/8)'],
    ]);
    // create+patch only: exactly what the Role grants (events: create, patch).
    expect(
      c.server.requests
        .filter((r) => r.route === 'event')
        .map((r) => r.method)
        .sort(),
    ).toEqual(['PATCH', 'PATCH', 'PATCH', 'PATCH', 'POST', 'POST', 'POST']);
  });

  it('a refusal is a classified failure naming the Event, never a crash', async () => {
    const c = await start();
    c.server.inject(
      { route: 'event' },
      { kind: 'status', code: 403, message: 'events is forbidden: User "x" cannot create resource "events"' },
    );
    const failure = left(await run(createEventsPort(kubeConfigFor(c), testConfig()).record(FROZEN)));
    expect(failure._tag).toBe('Forbidden');
    expect(failure.message).toContain('record Event RefreshFrozen');
    expect(failure.message).toContain('cannot create resource "events"');
    expect(failure.message).not.toContain(c.server.token);
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

  it('names are stable per Deployment and reason', () => {
    expect(eventName('stg-jobs-manager', 'RefreshFlapDetected')).toBe(
      'stg-jobs-manager.image-refresh.refreshflapdetected',
    );
  });
});

describe.skipIf(KUBECTL === undefined)(`Events under real kubectl (${KUBECTL ?? KUBECTL_MISSING})`, () => {
  it('`kubectl get events` shows what the port recorded, with its count', async () => {
    const c = await start(true);
    const port = createEventsPort(kubeConfigFor(c), testConfig());
    await run(port.record(FROZEN));
    await run(port.record(FROZEN));
    const result = await kubectl(c.kubeconfig, ['get', 'events', '-n', NS, '-o', 'json']);
    expect(result.stderr).toBe('');
    const items = (JSON.parse(result.stdout) as { items: JsonObject[] }).items;
    expect(items.map((e) => [e.type, e.reason, e.count, (e.involvedObject as JsonObject).name])).toEqual([
      ['Warning', 'RefreshFrozen', 2, JOBS_MANAGER],
    ]);
  });
});
