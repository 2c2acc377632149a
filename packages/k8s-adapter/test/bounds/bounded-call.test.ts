import { getEventListeners } from 'node:events';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { boundedCall, untilAborted } from '../../src/bounds/bounded-call.js';

// boundedCall is the one way a bound is made (docs/behaviour.md §3, I17). What it
// promises: the call's signal aborts at its bound or at a parent's abort,
// whichever first, with that reason; nothing of it is left once the call
// settles (timer cleared, listeners removed); and a full garbage collection
// while the call waits changes none of it — what Node 20 does not promise for
// AbortSignal.any (nodejs/node#55428). The bundle's own proof is
// cli/test/e2e/bounds-under-gc.test.ts.

/** Every timer set since `beforeEach` that has neither fired nor been cleared: what a bound left behind. */
const pending = new Set<unknown>();
const timers = (): number => pending.size;
beforeEach(() => {
  const { setTimeout: set, clearTimeout: clear } = globalThis;
  vi.spyOn(globalThis, 'setTimeout').mockImplementation(((callback: () => void, ms?: number) => {
    const handle = set(() => {
      pending.delete(handle);
      callback();
    }, ms);
    pending.add(handle);
    return handle;
  }) as typeof setTimeout);
  vi.spyOn(globalThis, 'clearTimeout').mockImplementation((handle) => {
    pending.delete(handle);
    clear(handle);
  });
});
afterEach(() => {
  vi.restoreAllMocks();
  pending.clear();
});

const abortListeners = (signal: AbortSignal): number => getEventListeners(signal, 'abort').length;

/** A call that answers only when its signal aborts, with the reason: a server that never answers. */
const hangs = (signal: AbortSignal): Promise<unknown> =>
  new Promise((_resolve, reject) => {
    if (signal.aborted) reject(signal.reason);
    else signal.addEventListener('abort', () => reject(signal.reason), { once: true });
  });

const rejection = async (promise: Promise<unknown>): Promise<unknown> =>
  promise.then(
    (value) => {
      throw new Error(`expected a rejection, got ${String(value)}`);
    },
    (reason: unknown) => reason,
  );

describe('boundedCall', () => {
  it('answers what the call answers, and leaves no timer and no listener behind', async () => {
    const parent = new AbortController();
    const answer = await boundedCall({ timeoutMs: 60_000, parents: [parent.signal, undefined] }, async () => 42);
    expect(answer).toBe(42);
    expect(timers()).toBe(0);
    expect(abortListeners(parent.signal)).toBe(0);
  });

  it('aborts the call at its bound with a TimeoutError, then leaves nothing behind', async () => {
    const parent = new AbortController();
    const began = Date.now();
    const reason = await rejection(boundedCall({ timeoutMs: 100, parents: [parent.signal] }, hangs));
    expect(Date.now() - began).toBeGreaterThanOrEqual(95);
    expect(reason).toBeInstanceOf(DOMException);
    expect((reason as DOMException).name).toBe('TimeoutError');
    expect((reason as DOMException).message).toBe("the call's bound of 100 ms passed");
    expect(timers()).toBe(0);
    expect(abortListeners(parent.signal)).toBe(0);
    expect(parent.signal.aborted).toBe(false);
  });

  it('ends the call when a parent aborts, with that parent’s reason, long before its bound', async () => {
    const [tickOver, interrupted] = [new AbortController(), new AbortController()];
    const began = Date.now();
    setTimeout(() => interrupted.abort(new Error('interrupted by SIGTERM')), 50);
    const reason = await rejection(
      boundedCall({ timeoutMs: 60_000, parents: [tickOver.signal, interrupted.signal] }, hangs),
    );
    expect(Date.now() - began).toBeLessThan(1_000);
    expect(reason).toEqual(new Error('interrupted by SIGTERM'));
    expect(timers()).toBe(0);
    expect(abortListeners(tickOver.signal)).toBe(0);
  });

  it('a parent aborted before the call starts hands it an aborted signal and starts no timer', async () => {
    const parent = new AbortController();
    parent.abort(new Error('the tick is over'));
    const reason = await rejection(
      boundedCall({ timeoutMs: 60_000, parents: [parent.signal] }, (signal) => {
        expect(timers()).toBe(0);
        return hangs(signal);
      }),
    );
    expect(reason).toEqual(new Error('the tick is over'));
    expect(timers()).toBe(0);
    expect(abortListeners(parent.signal)).toBe(0);
  });

  it('a call that throws before it returns a promise is a rejection, and is cleaned up too', async () => {
    const parent = new AbortController();
    const reason = await rejection(
      boundedCall({ timeoutMs: 60_000, parents: [parent.signal] }, () => {
        throw new Error('client-node refused the parameters');
      }),
    );
    expect(reason).toEqual(new Error('client-node refused the parameters'));
    expect(timers()).toBe(0);
    expect(abortListeners(parent.signal)).toBe(0);
  });

  it('with no bound of its own, only a parent ends it; untilAborted makes it a sleep a parent cuts short', async () => {
    const parent = new AbortController();
    setTimeout(() => parent.abort(new Error('the tick is over')), 50);
    const began = Date.now();
    await boundedCall({ parents: [parent.signal] }, untilAborted);
    expect(Date.now() - began).toBeLessThan(1_000);
    const slept = Date.now();
    await boundedCall({ timeoutMs: 80 }, untilAborted);
    expect(Date.now() - slept).toBeGreaterThanOrEqual(75);
  });

  it('holds its bound through full garbage collections while the call waits', async () => {
    // The test worker runs without --expose-gc; V8 lets the flag be set now and hands gc() to a new context.
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const collecting = setInterval(gc, 20);
    try {
      // A parent held only by the test, as the tick's own signals are held by the tick.
      const parent = new AbortController();
      const began = Date.now();
      const reason = await rejection(boundedCall({ timeoutMs: 300, parents: [parent.signal] }, hangs));
      expect((reason as DOMException).name).toBe('TimeoutError');
      expect(Date.now() - began).toBeLessThan(1_500);
    } finally {
      clearInterval(collecting);
    }
  });
});
