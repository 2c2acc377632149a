import { describe, expect, it } from 'vitest';
import { inspectWorkload } from '../../src/cluster/index.js';
import { JOBS_MANAGER } from '../support/fake-api-chart.js';
import {
  chartClusterPerTest,
  kubeConfigFor,
  left,
  portOn,
  refs,
  right,
  run,
  TIMING_SLACK_MS,
} from './cluster-test-kit.js';

// The read behind the CLI's `status` and `rearm`: one bounded GET, a plain
// snapshot, and who owns the containers' fields.

const start = chartClusterPerTest();

const DIGEST = `sha256:${'f'.repeat(64)}`;

describe('inspectWorkload', () => {
  it('answers a plain snapshot of the jobs-manager Deployment with one GET', async () => {
    const c = await start({ annotations: { 'tracebloc.io/refresh-attempt': '2' } });
    const snapshot = right(await run(inspectWorkload(kubeConfigFor(c), refs().jobsManager, { apiTimeoutMs: 400 })));
    expect(snapshot).toMatchObject({
      ref: refs().jobsManager,
      generation: 1,
      settledness: { _tag: 'Settled', message: `deployment "${JOBS_MANAGER}" successfully rolled out` },
      images: {
        api: 'docker.io/tracebloc/jobs-manager:stg',
        'pods-monitor-container': 'docker.io/tracebloc/pods-monitor:stg',
      },
    });
    expect(snapshot.annotations['tracebloc.io/refresh-attempt']).toBe('2');
    expect(snapshot.containerOwners).toEqual([
      {
        manager: 'helm',
        operation: 'Update',
        time: '2026-01-01T00:00:00.000Z',
        imagesOf: ['api', 'pods-monitor-container'],
      },
    ]);
    expect(c.server.requests).toHaveLength(1);
    // Plain data: it survives a JSON round trip unchanged.
    expect(JSON.parse(JSON.stringify(snapshot))).toEqual(snapshot);
  });

  it('tells image-refresh’s image changes from Helm’s after a setImages', async () => {
    const c = await start();
    right(await run(portOn(c).setImages(refs().jobsManager, [{ container: 'api', image: `docker.io/x@${DIGEST}` }])));
    const snapshot = right(await run(inspectWorkload(kubeConfigFor(c), refs().jobsManager, { apiTimeoutMs: 400 })));
    const owners = Object.fromEntries(snapshot.containerOwners.map((o) => [o.manager, o.imagesOf]));
    expect(owners).toEqual({ helm: ['pods-monitor-container'], 'image-refresh': ['api'] });
    expect(snapshot.images.api).toBe(`docker.io/x@${DIGEST}`);
  });

  it('is bounded and classified like every other call', async () => {
    const c = await start();
    c.server.inject({ route: 'get' }, { kind: 'hang' });
    const began = Date.now();
    const error = left(await run(inspectWorkload(kubeConfigFor(c), refs().requestsProxy, { apiTimeoutMs: 200 })));
    expect(error._tag).toBe('Timeout');
    expect(Date.now() - began).toBeLessThan(200 + TIMING_SLACK_MS);
  });
});
