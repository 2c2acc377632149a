import {
  describePortError,
  describeWorkload,
  formatDuration,
  type PortError,
  type RolloutError,
  type WorkloadRef,
} from '@image-refresh/core';
import * as E from 'fp-ts/lib/Either.js';
import { abortedWait, isTransient, sleep } from './poll-until-settled.js';
import type { WorkloadSnapshot } from './workload-snapshot.js';

// ROLLOUT_STABLE_FOR (docs/behaviour.md §3.6): a rollout that just
// completed must stay complete for the window — available = updated =
// desired, the same generation observed, no ProgressDeadlineExceeded, which
// is core's kubectl rules saying Settled — on every read, one bounded GET
// every `intervalMs`, the last landing on the window's end. Polling, never a
// Watch (I17), like the rollout wait. Falling apart, or the spec moving on
// (another generation), is RolloutFailed; a read that fails with Timeout or
// Transport is retried within the window, but the read that closes the
// window must succeed and see it complete (fail closed). Aborted, it ends at once.

export interface StabilitySettings {
  readonly windowMs: number;
  readonly intervalMs: number;
  readonly signal?: AbortSignal | undefined;
}

export const watchStability = async (
  ref: WorkloadRef,
  read: () => Promise<E.Either<PortError, WorkloadSnapshot>>,
  settings: StabilitySettings,
): Promise<E.Either<RolloutError, void>> => {
  const start = Date.now();
  let generation: number | undefined;
  for (;;) {
    if (settings.signal?.aborted === true) return E.left(abortedWait(ref, settings.signal));
    const answer = await read();
    const elapsed = Date.now() - start;
    if (E.isLeft(answer)) {
      if (!isTransient(answer.left)) return E.left(answer.left);
    } else {
      const { settledness } = answer.right;
      generation ??= answer.right.generation;
      if (settledness._tag !== 'Settled')
        return E.left({
          _tag: 'RolloutFailed',
          message: `${describeWorkload(ref)} fell apart ${formatDuration(elapsed)} into the ${formatDuration(settings.windowMs)} window: ${settledness.reason}`,
        });
      if (answer.right.generation !== generation)
        return E.left({
          _tag: 'RolloutFailed',
          message: `${describeWorkload(ref)} changed under the window (generation ${generation} → ${answer.right.generation}): what completed is no longer what runs`,
        });
    }
    if (elapsed >= settings.windowMs) {
      // The read that closes the window must itself see it complete.
      if (E.isRight(answer)) return E.right(undefined);
      return E.left({
        ...answer.left,
        message: `${describeWorkload(ref)} could not be watched to the end of its ${formatDuration(settings.windowMs)} window: ${describePortError(answer.left)}`,
      });
    }
    await sleep(Math.min(settings.intervalMs, settings.windowMs - elapsed), settings.signal);
  }
};
