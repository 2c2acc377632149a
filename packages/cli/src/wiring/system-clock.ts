import type { ClockPort } from '@image-refresh/core';
import * as E from 'fp-ts/lib/Either.js';

// The CLI's clock (issue 17): the wall clock, and a wait that ends as soon as
// the tick is over or interrupted — a SIGTERM during START_JITTER ends the
// tick `interrupted` at once instead of after the rest of the delay.

export const systemClock = (signal?: AbortSignal): ClockPort => ({
  now: () => () => Promise.resolve(E.right(Date.now())),
  sleep: (ms) => () =>
    new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', done);
        resolve(E.right(undefined));
      };
      // The tick sees the aborted signal and ends `interrupted`: the wait's own answer is not read.
      const timer = setTimeout(done, ms);
      if (signal?.aborted === true) done();
      else signal?.addEventListener('abort', done, { once: true });
    }),
});
