import {
  flapMarked,
  flapStateRemoved,
  recordChanges,
  recordedDigestsOf,
  refreshAttemptOf,
  refreshAttemptSet,
} from '@image-refresh/core';
import { describe, expect, it } from 'vitest';
import { CHART_TOPOLOGY } from '../../../core/test/support/chart.js';
import {
  AGENTS_NS,
  annotationsOf,
  type ChartCluster,
  imagesOf,
  JOBS_MANAGER,
  REQUESTS_PROXY,
  RESOURCE_MONITOR,
} from '../support/fake-api-chart.js';
import type { JsonObject } from '../support/fake-api-patch.js';
import {
  bookkeepingRead,
  calls,
  chartClusterPerTest,
  guardRead,
  left,
  portOn,
  refs,
  right,
  run,
} from './cluster-test-kit.js';

// Every write of the port: the bookkeeping annotations as JSON merge patches
// on the jobs-manager Deployment only, and the images as one strategic merge
// patch per workload, all as the field manager `image-refresh`. Effects are
// asserted on the server's objects and on the requests it received.

// (The writes both servers can stage are the port contract's, run on the fake and on the real
// apiserver: test/contract/. What is here needs the fake: injected refusals, request counts.)

const _STREAK = 'tracebloc.io/refresh-skip-streak';
const ATTEMPT = 'tracebloc.io/refresh-attempt';
const FLAP = 'tracebloc.io/refresh-flap-detected';
const RECORD = {
  'jobs-manager': 'tracebloc.io/last-refreshed-jobs-manager-digest',
  'pods-monitor': 'tracebloc.io/last-refreshed-pods-monitor-digest',
  'resource-monitor': 'tracebloc.io/last-refreshed-resource-monitor-digest',
} as const;
const D1 = `sha256:${'1'.repeat(64)}`;
const D2 = `sha256:${'2'.repeat(64)}`;

const start = chartClusterPerTest();

const patches = (c: ChartCluster) => c.server.requests.filter((r) => r.route === 'patch');

describe('annotation writes', () => {
  it('writes refresh-attempt and refresh-flap-detected, and clears both in one write of their own (#626)', async () => {
    const c = await start();
    const port = portOn(c);
    right(await run(port.patchBookkeeping(refreshAttemptSet(CHART_TOPOLOGY, 2))));
    right(await run(port.patchBookkeeping(flapMarked(CHART_TOPOLOGY, 3))));
    expect(annotationsOf(c.jobsManager())).toMatchObject({ [ATTEMPT]: '2', [FLAP]: '3' });
    c.server.resetLog();
    right(await run(port.patchBookkeeping(flapStateRemoved(CHART_TOPOLOGY))));
    expect(annotationsOf(c.jobsManager())).not.toHaveProperty(ATTEMPT);
    expect(annotationsOf(c.jobsManager())).not.toHaveProperty(FLAP);
    expect(patches(c).map((p) => JSON.parse(p.body))).toEqual([
      { metadata: { annotations: { [ATTEMPT]: null, [FLAP]: null } } },
    ]);
  });

  it('records every digest of the tick in one write, under each image recordKey', async () => {
    const c = await start({ annotations: { [RECORD['resource-monitor']]: D1 } });
    right(
      await run(
        portOn(c).patchBookkeeping(recordChanges(CHART_TOPOLOGY, { 'jobs-manager': D1, 'pods-monitor': D2 }, {})),
      ),
    );
    expect(annotationsOf(c.jobsManager())).toMatchObject({
      [RECORD['jobs-manager']]: D1,
      [RECORD['pods-monitor']]: D2,
      [RECORD['resource-monitor']]: D1,
    });
    expect(patches(c)).toHaveLength(1);
  });

  it('sends nothing for no change', async () => {
    const c = await start();
    right(await run(portOn(c).patchBookkeeping(recordChanges(CHART_TOPOLOGY, {}, {}))));
    expect(c.server.requests).toEqual([]);
  });

  it('reads back what it wrote from the PATCH answer, without another request', async () => {
    const c = await start();
    const port = portOn(c);
    right(await run(guardRead(port)));
    right(await run(port.patchBookkeeping(refreshAttemptSet(CHART_TOPOLOGY, 1))));
    right(await run(port.patchBookkeeping(recordChanges(CHART_TOPOLOGY, { 'jobs-manager': D2 }, {}))));
    expect(right(await run(bookkeepingRead(port, (a) => refreshAttemptOf(CHART_TOPOLOGY, a))))).toEqual({
      _tag: 'Some',
      value: '1',
    });
    expect(
      right(await run(bookkeepingRead(port, (a) => recordedDigestsOf(CHART_TOPOLOGY, a))))['jobs-manager'],
    ).toEqual({
      _tag: 'Some',
      value: D2,
    });
    expect(calls(c)).toEqual([
      `GET get Deployment/${JOBS_MANAGER}`,
      `PATCH patch Deployment/${JOBS_MANAGER}`,
      `PATCH patch Deployment/${JOBS_MANAGER}`,
    ]);
  });

  it('fails a write the server refuses, with its words (a failed write fails the tick: docs/behaviour.md §3.5)', async () => {
    const c = await start();
    c.server.inject(
      { route: 'patch' },
      { kind: 'status', code: 403, message: 'deployments.apps "stg-jobs-manager" is forbidden: cannot patch' },
    );
    const error = left(await run(portOn(c).patchBookkeeping(refreshAttemptSet(CHART_TOPOLOGY, 1))));
    expect(error).toMatchObject({ _tag: 'Forbidden', status: 403 });
    expect(error.message).toContain('cannot patch');
    expect(annotationsOf(c.jobsManager())).not.toHaveProperty(ATTEMPT);
  });
});

describe('setImages', () => {
  it('changes only the named container when given one', async () => {
    const c = await start();
    const before = imagesOf(c.jobsManager());
    const api = `docker.io/tracebloc/jobs-manager@${D1}`;
    right(await run(portOn(c).setImages(refs().jobsManager, [{ container: 'api', image: api }])));
    expect(imagesOf(c.jobsManager())).toEqual({ ...before, api });
  });

  it('sends nothing for the jobs-manager already on target: the tick snapshot answers, no request at all', async () => {
    const c = await start();
    const port = portOn(c);
    right(await run(guardRead(port)));
    const live = imagesOf(c.jobsManager());
    const images = Object.entries(live).map(([container, image]) => ({ container, image }));
    expect(right(await run(port.setImages(refs().jobsManager, images)))).toEqual({ changed: false });
    expect(calls(c)).toEqual([`GET get Deployment/${JOBS_MANAGER}`]);
  });

  it('a partial change sends one patch carrying every container named, the unchanged one too (I16)', async () => {
    const c = await start();
    const port = portOn(c);
    const api = `docker.io/tracebloc/jobs-manager@${D1}`;
    const monitor = imagesOf(c.jobsManager())['pods-monitor-container'] ?? '';
    expect(
      right(
        await run(
          port.setImages(refs().jobsManager, [
            { container: 'api', image: api },
            { container: 'pods-monitor-container', image: monitor },
          ]),
        ),
      ),
    ).toEqual({ changed: true });
    expect(patches(c)).toHaveLength(1);
    const body = JSON.parse(patches(c)[0]?.body ?? '{}') as JsonObject;
    const sent = (((body.spec as JsonObject).template as JsonObject).spec as JsonObject).containers;
    expect(sent).toEqual([
      { name: 'api', image: api },
      { name: 'pods-monitor-container', image: monitor },
    ]);
    expect(imagesOf(c.jobsManager())).toEqual({ api, 'pods-monitor-container': monitor });
  });

  it('patches requests-proxy and the DaemonSet in their own namespaces, by kind', async () => {
    const c = await start();
    const port = portOn(c);
    const proxy = `docker.io/tracebloc/jobs-manager@${D1}`;
    const monitor = `docker.io/tracebloc/resource-monitor@${D2}`;
    right(await run(port.setImages(refs().requestsProxy, [{ container: 'proxy', image: proxy }])));
    right(
      await run(port.setImages(refs().resourceMonitor, [{ container: 'tracebloc-resource-monitor', image: monitor }])),
    );
    expect(imagesOf(c.requestsProxy())).toEqual({ proxy });
    expect(imagesOf(c.resourceMonitor())).toEqual({ 'tracebloc-resource-monitor': monitor });
    expect(patches(c).map((p) => [p.kind, p.namespace, p.name])).toEqual([
      ['Deployment', 'tracebloc', REQUESTS_PROXY],
      ['DaemonSet', AGENTS_NS, RESOURCE_MONITOR],
    ]);
    expect(imagesOf(c.jobsManager()).api).toBe('docker.io/tracebloc/jobs-manager:stg');
  });

  it('is Left NotFound for a workload that does not exist', async () => {
    const c = await start();
    c.server.store.delete('DaemonSet', AGENTS_NS, RESOURCE_MONITOR);
    const error = left(
      await run(portOn(c).setImages(refs().resourceMonitor, [{ container: 'tracebloc-resource-monitor', image: 'x' }])),
    );
    expect(error).toMatchObject({ _tag: 'NotFound', status: 404 });
    expect(error.message).toContain(`daemonsets.apps "${RESOURCE_MONITOR}" not found`);
  });

  it('uses the tick snapshot of the jobs-manager to check its containers: observe + set image = two requests', async () => {
    const c = await start();
    const port = portOn(c);
    right(await run(guardRead(port)));
    right(await run(port.setImages(refs().jobsManager, [{ container: 'api', image: `docker.io/x@${D1}` }])));
    expect(calls(c)).toEqual([`GET get Deployment/${JOBS_MANAGER}`, `PATCH patch Deployment/${JOBS_MANAGER}`]);
  });
});
