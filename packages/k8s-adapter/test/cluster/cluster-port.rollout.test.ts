import { describe, expect, it } from 'vitest';
import { JOBS_MANAGER, NS } from '../support/fake-api-chart.js';
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

// waitForRollout (docs/behaviour.md §3.6): poll under ROLLOUT_TIMEOUT until the workload is
// settled by kubectl's rules; a rollout that can never finish fails at once,
// one still waiting at the deadline times out with what it waited for; and
// while it waits, it says so at least every progress interval.

// (Rollouts both servers carry out — settled at once, a DaemonSet, never Ready, a progress
// deadline, OnDelete — are the port contract's: test/contract/. Here: what only the fake stages.)

const D1 = `sha256:${'1'.repeat(64)}`;

const start = chartClusterPerTest({ stepMs: 60 });

describe('waitForRollout', () => {
  it('returns once a re-imaged Deployment has rolled out, having watched it go through the rollout', async () => {
    // Steps of 400 ms: the rollout is still going when the wait's first read lands.
    const c = await start({ behaviour: 'settles', stepMs: 400 });
    const port = portOn(c);
    right(await run(port.setImages(refs().jobsManager, [{ container: 'api', image: `docker.io/x@${D1}` }])));
    const began = Date.now();
    const readsBefore = c.server.requests.filter((r) => r.method === 'GET').length;
    right(await run(port.waitForRollout(refs().jobsManager, 5_000)));
    // Two controller steps: observed-but-unavailable, then available. It watched: more than one read (a wall-clock floor flaked on a loaded
    // machine, where the steps had begun before the wait did).
    expect(c.server.requests.filter((r) => r.method === 'GET').length - readsBefore).toBeGreaterThanOrEqual(2);
    expect(Date.now() - began).toBeLessThan(3_000);
    const status = c.jobsManager().status as { availableReplicas: number; observedGeneration: number };
    expect(status).toMatchObject({ availableReplicas: 1, observedGeneration: 2 });
  });

  it('times out a rollout that stalls with RolloutTimedOut, the last waiting message and its numbers', async () => {
    const c = await start({ behaviour: 'stalls' });
    const port = portOn(c);
    right(await run(port.setImages(refs().jobsManager, [{ container: 'api', image: `docker.io/x@${D1}` }])));
    const began = Date.now();
    const error = left(await run(port.waitForRollout(refs().jobsManager, 400)));
    const took = Date.now() - began;
    expect(error).toEqual({
      _tag: 'RolloutTimedOut',
      message: `deployment/${JOBS_MANAGER} did not finish rolling out within 400ms: Waiting for deployment "${JOBS_MANAGER}" rollout to finish: 0 of 1 updated replicas are available...`,
    });
    expect(took).toBeGreaterThanOrEqual(400);
    expect(took).toBeLessThan(400 + testConfig().apiTimeoutMs + TIMING_SLACK_MS);
  });

  it('times out a rollout the controller never observes, saying so', async () => {
    const c = await start({ behaviour: 'unobserved' });
    const port = portOn(c);
    right(await run(port.setImages(refs().jobsManager, [{ container: 'api', image: `docker.io/x@${D1}` }])));
    const error = left(await run(port.waitForRollout(refs().jobsManager, 300)));
    expect(error._tag).toBe('RolloutTimedOut');
    expect(error.message).toContain('spec update to be observed');
  });

  it('is Left NotFound when the workload is gone', async () => {
    const c = await start();
    c.server.store.delete('Deployment', NS, JOBS_MANAGER);
    expect(left(await run(portOn(c).waitForRollout(refs().jobsManager, 10_000)))).toMatchObject({
      _tag: 'NotFound',
      status: 404,
    });
  });

  it('retries transient read failures within the deadline and still sees the rollout finish', async () => {
    const c = await start({ behaviour: 'settles' });
    const port = portOn(c);
    right(await run(port.setImages(refs().jobsManager, [{ container: 'api', image: `docker.io/x@${D1}` }])));
    c.server.inject({ route: 'get' }, { kind: 'status', code: 503, message: 'apiserver is shutting down' }, 2);
    right(await run(port.waitForRollout(refs().jobsManager, 5_000)));
    expect(c.server.requests.filter((r) => r.status === 503)).toHaveLength(2);
  });

  it('times out with the last waiting message and the failure of the last read when the API fails at the end', async () => {
    const c = await start({ behaviour: 'stalls' });
    const port = portOn(c);
    right(await run(port.setImages(refs().jobsManager, [{ container: 'api', image: `docker.io/x@${D1}` }])));
    setTimeout(() => c.server.inject({ route: 'get' }, { kind: 'status', code: 500, message: 'boom' }, Infinity), 250);
    const error = left(await run(port.waitForRollout(refs().jobsManager, 500)));
    expect(error._tag).toBe('RolloutTimedOut');
    expect(error.message).toContain('0 of 1 updated replicas are available');
    expect(error.message).toContain('the last read failed: Transport (HTTP 500)');
  });

  it('says what it waits for, with numbers and elapsed/limit, at least every progress interval', async () => {
    const c = await start({ behaviour: 'stalls' });
    const lines: string[] = [];
    const port = portOn(c, testConfig(), { progressIntervalMs: 100, onProgress: (line) => lines.push(line) });
    right(await run(port.setImages(refs().jobsManager, [{ container: 'api', image: `docker.io/x@${D1}` }])));
    left(await run(port.waitForRollout(refs().jobsManager, 450)));
    expect(lines.length).toBeGreaterThanOrEqual(3);
    expect(lines.length).toBeLessThanOrEqual(5);
    expect(lines.at(-1)).toMatch(
      new RegExp(
        `^waiting for deployment/${JOBS_MANAGER}: 0 of 1 updated replicas are available \\(\\d+ms of 450ms\\)$`,
      ),
    );
    const before = lines.length;
    await new Promise((resolve) => setTimeout(resolve, 250));
    expect(lines).toHaveLength(before);
  });
});
