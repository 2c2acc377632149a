// The one place a time bound on a request or wait is made (docs/behaviour.md §3:
// every call is bounded, I17). Node 20 lets a signal made with
// `AbortSignal.any([AbortSignal.timeout(ms), …])` — and the timeout signal
// inside it — be garbage-collected while a request still waits on it; the
// request then never aborts (nodejs/node#55428, nodejs/undici#4068). So no
// bound here is a platform-made signal: the timer is our own `setTimeout`,
// whose callback holds the controller it aborts, and the event loop holds a
// pending timer; each parent signal holds its listener, which holds the
// controller too. Nothing the call's signal depends on can be collected
// before the call settles, and once it settles the timer is cleared and
// every listener removed, so nothing of the bound outlives the call.
// test/bounds/one-bound-maker.test.ts keeps AbortSignal.any and
// AbortSignal.timeout out of every package's src.

/** What bounds one call: its own time limit, and the signals that end it sooner. */
export interface CallBound {
  /** The call's own bound, in ms; absent: only `parents` end it. */
  readonly timeoutMs?: number | undefined;
  /**
   * Signals whose abort ends the call too — the tick is over, it was
   * interrupted. Undefined entries are skipped, so a caller can pass its
   * optional signals as they are.
   */
  readonly parents?: readonly (AbortSignal | undefined)[] | undefined;
}

/** The reason a bound's signal aborts with when its time passes: what `AbortSignal.timeout` uses. */
export const boundPassed = (ms: number): DOMException =>
  new DOMException(`the call's bound of ${ms} ms passed`, 'TimeoutError');

/**
 * Runs `call` with a signal that aborts when `timeoutMs` passes (reason: a
 * `TimeoutError` DOMException, as `AbortSignal.timeout`'s) or when any parent
 * aborts (that parent's reason), whichever comes first; a parent already
 * aborted aborts it before the call starts.
 *
 * Promises: the signal cannot be collected before `call` settles, whatever the
 * garbage collector does; when it settles — resolved, rejected or thrown —
 * the timer is cleared and every listener on the parents removed. The answer
 * is `call`'s own: nothing is caught or changed here.
 *
 * @param bound - the call's own bound and the signals that end it sooner.
 * @param call - the request or wait, handed the signal it must honour.
 */
export const boundedCall = async <A>(bound: CallBound, call: (signal: AbortSignal) => Promise<A>): Promise<A> => {
  const controller = new AbortController();
  const parents = (bound.parents ?? []).filter((p): p is AbortSignal => p !== undefined);
  const end = (reason: unknown): void => {
    if (!controller.signal.aborted) controller.abort(reason);
  };
  const listeners = parents.map((parent) => {
    const listener = (): void => end(parent.reason);
    return { parent, listener };
  });
  const settled = parents.find((p) => p.aborted);
  if (settled !== undefined) end(settled.reason);
  else for (const { parent, listener } of listeners) parent.addEventListener('abort', listener, { once: true });
  const { timeoutMs } = bound;
  const timer =
    timeoutMs === undefined || controller.signal.aborted
      ? undefined
      : setTimeout(() => end(boundPassed(timeoutMs)), timeoutMs);
  try {
    return await call(controller.signal);
  } finally {
    clearTimeout(timer);
    for (const { parent, listener } of listeners) parent.removeEventListener('abort', listener);
  }
};

/** A call that does nothing but wait for its signal: with {@link boundedCall}, a sleep that a parent cuts short. */
export const untilAborted = (signal: AbortSignal): Promise<void> =>
  new Promise((resolve) => {
    if (signal.aborted) resolve();
    else signal.addEventListener('abort', () => resolve(), { once: true });
  });
