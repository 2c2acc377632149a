import * as E from 'fp-ts/lib/Either.js';
import type { TaskEither } from 'fp-ts/lib/TaskEither.js';
import { formatDuration } from '../config/duration.js';
import { timeout } from '../domain/port-error.js';
import type { Timers } from './tick-ports.js';

// The tick's own bound on every port call (I17), under the adapters' timeouts.

/** What each port call is, in an operator's words: the line names the step, not the function. */
const OPERATION_WORDS: Readonly<Record<string, string>> = {
  readGate: 'reading the gate',
  patchBookkeeping: "writing the gate's bookkeeping annotations",
  resolveDigests: 'asking the registry for the tags',
  setImages: 'setting an image',
  waitForRollout: 'waiting for a rollout',
  watchStability: 'watching a rollout stay complete',
  observeWorkload: 'reading a workload',
  observeOwnedWorkloads: 'reading the workloads the ownership check needs',
  verifySignatures: 'checking signatures',
  readFleetHalt: "reading the fleet halt's document",
  readClock: 'reading the clock',
  waitStartJitter: 'waiting START_JITTER',
  readPlatforms: 'reading manifests for their platforms',
  recordStagingEvent: 'recording the RefreshStaging Event',
  stageImages: 'staging images on the nodes',
  recordEvent: 'recording a Kubernetes Event',
};

const operationWords = (operation: string): string => OPERATION_WORDS[operation] ?? operation;

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
      () =>
        resolve(
          E.left(
            timeout(
              `${operationWords(operation)} got no answer within ${formatDuration(boundMs)}, the tick's own bound on it`,
            ),
          ),
        ),
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
