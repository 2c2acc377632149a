import type { ClockPort } from '@image-refresh/core';
import { boundedCall, untilAborted } from '@image-refresh/k8s-adapter';
import * as E from 'fp-ts/lib/Either.js';

// The CLI's clock (docs/behaviour.md §3.4a, The clock port): the wall clock,
// and a wait that ends as soon as the tick is over or interrupted — a SIGTERM
// during START_JITTER ends the tick `interrupted` at once instead of after the
// rest of the delay. The wait is a bound with nothing to do but end
// (boundedCall): its timer is cleared and its listeners removed however it
// ends.

export const systemClock = (signals: readonly (AbortSignal | undefined)[] = []): ClockPort => ({
  now: () => () => Promise.resolve(E.right(Date.now())),
  // The tick sees an aborted signal and ends `interrupted`: the wait's own answer is not read.
  sleep: (ms) => () => boundedCall({ timeoutMs: ms, parents: signals }, untilAborted).then(() => E.right(undefined)),
});
