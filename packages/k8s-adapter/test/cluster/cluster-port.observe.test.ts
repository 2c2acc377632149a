import { refreshAttemptOf, skipStreakOf } from '@image-refresh/core';
import * as O from 'fp-ts/lib/Option.js';
import { describe, expect, it } from 'vitest';
import { CHART_TOPOLOGY } from '../../../core/test/support/chart.js';
import { JOBS_MANAGER, NS } from '../support/fake-api-chart.js';
import {
  bookkeepingRead,
  calls,
  chartClusterPerTest,
  guardRead,
  left,
  portOn,
  right,
  run,
  TIMING_SLACK_MS,
  testConfig,
} from './cluster-test-kit.js';

// The settled guard's question and the bookkeeping reads (docs/behaviour.md §3.2): one GET
// of the jobs-manager Deployment per tick, re-read only while it is not
// settled, within the settle window; every read after it is served from the
// snapshot it kept.

// (The reads both servers can stage — a steady tick's one GET, the annotations as they are, a
// missing Deployment, a progress deadline — are the port contract's: test/contract/.)

const STREAK = 'tracebloc.io/refresh-skip-streak';
const _ATTEMPT = 'tracebloc.io/refresh-attempt';
const _DIGEST = `sha256:${'c'.repeat(64)}`;

const start = chartClusterPerTest();

describe('observeJobsManager and the reads it serves', () => {
  it('GETs the Deployment itself when a read comes before any observe, then serves the rest from it', async () => {
    const c = await start({ annotations: { [STREAK]: '2' } });
    const port = portOn(c);
    expect(right(await run(bookkeepingRead(port, (a) => skipStreakOf(CHART_TOPOLOGY, a))))).toEqual(O.some('2'));
    expect(right(await run(bookkeepingRead(port, (a) => refreshAttemptOf(CHART_TOPOLOGY, a))))).toEqual(O.none);
    expect(calls(c)).toEqual([`GET get Deployment/${JOBS_MANAGER}`]);
  });

  it('re-reads an unsettled Deployment through the settle window, then answers Waiting with numbers', async () => {
    const c = await start();
    c.server.store.setStatus('Deployment', NS, JOBS_MANAGER, { availableReplicas: 0 });
    const port = portOn(c, testConfig({ SETTLE_TIMEOUT: '300ms' }), { pollIntervalMs: 60 });
    const began = Date.now();
    const settledness = right(await run(guardRead(port, 300)));
    const took = Date.now() - began;
    expect(settledness).toEqual({
      _tag: 'Waiting',
      reason: `Waiting for deployment "${JOBS_MANAGER}" rollout to finish: 0 of 1 updated replicas are available...`,
    });
    expect(took).toBeGreaterThanOrEqual(300);
    expect(took).toBeLessThan(300 + 400 + TIMING_SLACK_MS);
    // 0, 60, 120, 180, 240, and the last read on the deadline itself.
    expect(c.server.requests.length).toBeGreaterThanOrEqual(5);
    expect(c.server.requests.length).toBeLessThanOrEqual(7);
  });

  it('answers Settled as soon as a re-read within the window finds it settled, and stops reading', async () => {
    const c = await start();
    c.server.store.setStatus('Deployment', NS, JOBS_MANAGER, { availableReplicas: 0 });
    setTimeout(() => c.server.store.setStatus('Deployment', NS, JOBS_MANAGER, { availableReplicas: 1 }), 100);
    const port = portOn(c, testConfig({ SETTLE_TIMEOUT: '2s' }), { pollIntervalMs: 40 });
    const began = Date.now();
    expect(right(await run(guardRead(port, 2000)))._tag).toBe('Settled');
    expect(Date.now() - began).toBeLessThan(1_800);
    const reads = c.server.requests.length;
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(c.server.requests.length).toBe(reads);
  });

  it('keeps the last read as the snapshot: annotations written during the window are seen', async () => {
    // The controller is down: it observes neither the generation it missed nor the one the annotation adds.
    const c = await start({ behaviour: 'unobserved' });
    c.server.store.setStatus('Deployment', NS, JOBS_MANAGER, { observedGeneration: 0 });
    const port = portOn(c, testConfig({ SETTLE_TIMEOUT: '200ms' }));
    setTimeout(() => {
      // A human annotates while the tick watches the Deployment.
      c.server.store.patch(
        'Deployment',
        NS,
        JOBS_MANAGER,
        'merge',
        { metadata: { annotations: { [STREAK]: '7' } } },
        'kubectl-annotate',
      );
    }, 50);
    const settledness = right(await run(guardRead(port, 200)));
    expect(settledness).toEqual({
      _tag: 'Waiting',
      reason: `Waiting for deployment "${JOBS_MANAGER}" spec update to be observed...`,
    });
    const requests = c.server.requests.length;
    expect(right(await run(bookkeepingRead(port, (a) => skipStreakOf(CHART_TOPOLOGY, a))))).toEqual(O.some('7'));
    expect(c.server.requests.length).toBe(requests);
  });

  it('does not retry a first read that failed: the guard cannot read it, and says so at once', async () => {
    const c = await start();
    c.server.inject({ route: 'get' }, { kind: 'status', code: 503, message: 'etcdserver: leader changed' });
    const port = portOn(c, testConfig({ SETTLE_TIMEOUT: '5s' }));
    const error = left(await run(guardRead(port, 5000)));
    expect(error).toMatchObject({ _tag: 'Transport', status: 503 });
    expect(error.message).toContain('etcdserver: leader changed');
    expect(c.server.requests).toHaveLength(1);
  });

  it('rides out a transient failure of a re-read within the window and answers from the reads that worked', async () => {
    const c = await start();
    c.server.store.setStatus('Deployment', NS, JOBS_MANAGER, { availableReplicas: 0 });
    const port = portOn(c, testConfig({ SETTLE_TIMEOUT: '300ms' }), { pollIntervalMs: 50 });
    // The first read goes through; the next two fail. Armed once the first
    // request has arrived, not after a fixed delay a busy machine can outrun.
    const arm = setInterval(() => {
      if (c.server.requests.length === 0) return;
      clearInterval(arm);
      c.server.inject({ route: 'get' }, { kind: 'status', code: 500, message: 'boom' }, 2);
    }, 1);
    const settledness = right(await run(guardRead(port, 300)));
    expect(settledness._tag).toBe('Waiting');
    expect(c.server.requests.filter((r) => r.fault === 'status')).toHaveLength(2);
  });

  it('ends the window at once when a re-read finds the Deployment gone', async () => {
    const c = await start();
    c.server.store.setStatus('Deployment', NS, JOBS_MANAGER, { availableReplicas: 0 });
    setTimeout(() => c.server.store.delete('Deployment', NS, JOBS_MANAGER), 60);
    const port = portOn(c, testConfig({ SETTLE_TIMEOUT: '5s' }), { pollIntervalMs: 40 });
    const began = Date.now();
    expect(left(await run(guardRead(port, 5000)))._tag).toBe('NotFound');
    expect(Date.now() - began).toBeLessThan(3_000);
  });
});
