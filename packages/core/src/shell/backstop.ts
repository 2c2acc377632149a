import * as E from 'fp-ts/lib/Either.js';
import type { TaskEither } from 'fp-ts/lib/TaskEither.js';
import { timeout } from '../domain/port-error.js';
import type { Timers } from './tick-ports.js';

// The tick's own bound on every port call (I17), under the adapters' timeouts.

export const platformTimers = (): Timers => {
  const g = globalThis as unknown as Timers;
  return { setTimeout: (cb, ms) => g.setTimeout(cb, ms), clearTimeout: (h) => g.clearTimeout(h) };
};

/**
 * A backstop under the adapters' own per-request timeouts (I17): whatever a
 * port does — even never answer — its call ends as a Timeout once the bound
 * has passed. The adapter's own timeout fires first and names the request;
 * this catches a port that forgot to. A port that throws is failed, not fatal.
 */
export const bounded = <A>(
  timers: Timers,
  boundMs: number,
  operation: string,
  te: TaskEither<unknown, A>,
): Promise<E.Either<unknown, A>> =>
  new Promise((resolve) => {
    const timer = timers.setTimeout(
      () => resolve(E.left(timeout(`${operation} gave no answer within ${boundMs} ms (the tick's own bound)`))),
      boundMs,
    );
    const finish = (result: E.Either<unknown, A>) => {
      timers.clearTimeout(timer);
      resolve(result);
    };
    let started: Promise<E.Either<unknown, A>>;
    try {
      started = te();
    } catch (defect) {
      started = Promise.resolve(E.left(defect));
    }
    started.then(finish, (defect: unknown) => finish(E.left(defect)));
  });
