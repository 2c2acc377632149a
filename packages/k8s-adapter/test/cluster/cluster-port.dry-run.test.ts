import { refreshAttemptSet } from '@image-refresh/core';
import { describe, expect, it } from 'vitest';
import { CHART_TOPOLOGY } from '../../../core/test/support/chart.js';
import { annotationsOf, imagesOf, JOBS_MANAGER } from '../support/fake-api-chart.js';
import { chartClusterPerTest, left, portOn, refs, right, run, testConfig } from './cluster-test-kit.js';

// `tick --dry-run` (server-side, as kubectl's): with the port's `dryRun`
// option every write is sent as dryRun=All, so the API server answers it as it
// would the real one — accepted, refused, a missing object — and persists
// nothing.

const start = chartClusterPerTest({ stepMs: 20 });

describe('the cluster port with dryRun', () => {
  it('sends the annotation and image patches with dryRun=All; the server keeps its objects', async () => {
    const c = await start();
    const port = portOn(c, testConfig(), { dryRun: true });
    const before = { annotations: annotationsOf(c.jobsManager()), images: imagesOf(c.jobsManager()) };
    right(await run(port.patchBookkeeping(refreshAttemptSet(CHART_TOPOLOGY, 1))));
    const answer = right(
      await run(
        port.setImages(refs().jobsManager, [
          { container: 'api', image: `docker.io/tracebloc/jobs-manager@sha256:${'a'.repeat(64)}` },
        ]),
      ),
    );
    expect(answer).toEqual({ changed: true });
    const patches = c.server.requests.filter((r) => r.method === 'PATCH');
    expect(patches.map((r) => r.query.dryRun)).toEqual(['All', 'All']);
    expect(annotationsOf(c.jobsManager())).toEqual(before.annotations);
    expect(imagesOf(c.jobsManager())).toEqual(before.images);
  });

  it('a refusal is the real write’s: a missing workload answers NotFound', async () => {
    const c = await start();
    const port = portOn(c, testConfig(), { dryRun: true });
    c.server.store.delete('Deployment', 'tracebloc', JOBS_MANAGER);
    const refused = left(await run(port.patchBookkeeping(refreshAttemptSet(CHART_TOPOLOGY, 1))));
    expect(refused._tag).toBe('NotFound');
  });

  it('without it, writes carry no dryRun and persist', async () => {
    const c = await start();
    const port = portOn(c);
    right(await run(port.patchBookkeeping(refreshAttemptSet(CHART_TOPOLOGY, 1))));
    expect(c.server.requests.filter((r) => r.method === 'PATCH').map((r) => r.query.dryRun)).toEqual([undefined]);
    expect(annotationsOf(c.jobsManager())).toMatchObject({ 'tracebloc.io/refresh-attempt': '1' });
  });
});
