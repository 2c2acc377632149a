import { describe, expect, it } from 'vitest';
import { createEventsPort } from '../../src/events/create-events-port.js';
import { createRegistryPort } from '../../src/registry/create-registry-port.js';
import { listenLocal } from '../support/registry-local-server.js';
import { chartClusterPerTest, kubeConfigFor, left, portOn, refs, right, run, testConfig } from './cluster-test-kit.js';

// The tick's AbortSignal (docs/behaviour.md §3, Bounds): once the tick is over
// or interrupted, nothing of it may stay in flight — a rollout wait stops
// polling, a request the server never answers is cut off, on all three ports.
// Without the signal each of these waited for its own bound (2 s, 1 s, 1 s
// here).

const start = chartClusterPerTest();
const abortAfter = (ms: number) => {
  const controller = new AbortController();
  setTimeout(() => controller.abort(new Error('interrupted by SIGTERM')), ms);
  return controller.signal;
};
/** Well under every bound below, above scheduling noise. */
const PROMPT_MS = 600;

describe("every port ends its calls when the tick's signal aborts", () => {
  it('a rollout wait (ROLLOUT_TIMEOUT=2s) ends at the abort, naming it', async () => {
    const cluster = await start({ behaviour: 'stalls' });
    const signal = new AbortController();
    const port = portOn(cluster, testConfig(), { signal: signal.signal });
    const { jobsManager } = refs();
    right(
      await run(port.setImages(jobsManager, [{ container: 'api', image: `docker.io/x@sha256:${'1'.repeat(64)}` }])),
    );
    setTimeout(() => signal.abort(new Error('interrupted by SIGTERM')), 100);
    const began = Date.now();
    const error = left(await run(port.waitForRollout(jobsManager, 2_000)));
    expect(Date.now() - began).toBeLessThan(PROMPT_MS);
    expect(error.message).toContain('was aborted (interrupted by SIGTERM)');
  });

  it('an interruption (abortReads) ends a read at once, but a write already sent is awaited and lands', async () => {
    const cluster = await start();
    cluster.server.inject({ route: 'patch' }, { kind: 'delay', ms: 300 }, 1);
    const interrupted = new AbortController();
    const port = portOn(cluster, testConfig(), { abortReads: interrupted.signal });
    const write = run(port.patchBookkeeping({ 'tracebloc.io/refresh-skip-streak': '2' }));
    setTimeout(() => interrupted.abort(new Error('interrupted by SIGTERM')), 100);
    expect((await write)._tag).toBe('Right');
    expect(cluster.server.requests.filter((r) => r.route === 'patch').map((r) => r.status)).toEqual([200]);
    // The interruption holds for reads: the next one does not go out at all, or is cut off.
    const began = Date.now();
    left(await run(port.observeWorkload(refs().requestsProxy)));
    expect(Date.now() - began).toBeLessThan(PROMPT_MS);
  });

  it('an Event POST the server never answers (API_TIMEOUT=1s) is cut off at the abort', async () => {
    const cluster = await start();
    cluster.server.inject({ route: 'event' }, { kind: 'hang' }, Number.POSITIVE_INFINITY);
    const port = createEventsPort(kubeConfigFor(cluster), testConfig(), { signal: abortAfter(100) });
    const began = Date.now();
    const error = left(await port.record({ type: 'Warning', reason: 'RefreshFrozen', message: 'frozen' })());
    expect(Date.now() - began).toBeLessThan(PROMPT_MS);
    expect(error._tag).not.toBe('Forbidden');
  });

  it('a registry HEAD that is never answered (REGISTRY_TIMEOUT=1s) is cut off at the abort', async () => {
    const hanging = await listenLocal(() => undefined);
    try {
      const port = createRegistryPort({ baseUrl: hanging.url, timeoutMs: 1_000, signal: abortAfter(100) });
      const began = Date.now();
      const [answer] = await port.resolveDigests([{ host: 'docker.io', repo: 'tracebloc/jobs-manager', tag: 'stg' }])();
      expect(Date.now() - began).toBeLessThan(PROMPT_MS);
      expect(answer).toEqual({
        _tag: 'Left',
        left: expect.objectContaining({ message: expect.stringContaining('was aborted') }),
      });
    } finally {
      await hanging.close();
    }
  });
});
