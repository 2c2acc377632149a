import { describeWorkload, type PortError, type Settledness, transport, type WorkloadRef } from '@image-refresh/core';
import * as E from 'fp-ts/lib/Either.js';
import { boundedCall, untilAborted } from '../bounds/bounded-call.js';
import { progressLine } from './progress-line.js';
import type { WorkloadSnapshot } from './workload-snapshot.js';

// Waiting for a workload to settle, by polling: one bounded GET every
// `intervalMs` until it is Settled or Failed or the window closes, the last
// read landing on the deadline itself. No Watch: client-node 1.4.0's Watch has
// no effective timeout and can hang forever (client-node 1.4.0), and a wait must end
// (I17). A read that fails with Timeout or Transport is retried within the
// window — a rollout outlives a blip of the apiserver — while NotFound,
// Forbidden and Malformed end the wait at once: they do not heal by waiting.
// Each read carries the request bound (API_TIMEOUT), so a wait ends within its
// window plus one request bound: 10 s + 15 s for the settled guard,
// ROLLOUT_TIMEOUT + 15 s for a rollout. deploy/'s activeDeadlineSeconds (3600)
// leaves room for three such rollouts (3 × (600 + 15) s) and the rest.

export interface PollSettings {
  /** How long to wait for the workload to settle (the settle window, or ROLLOUT_TIMEOUT). */
  readonly windowMs: number;
  readonly intervalMs: number;
  /** How often onProgress is told what the wait is waiting for. */
  readonly progressEveryMs: number;
  readonly onProgress: ((line: string) => void) | undefined;
  /**
   * The settled guard asks "can it be read at all?" first (#571): an error of
   * the very first read answers that at once instead of being retried.
   */
  readonly firstErrorIsFinal: boolean;
  /** The tick's signal: aborted, the wait ends at once instead of sleeping on. */
  readonly signal?: AbortSignal | undefined;
}

export type PollEnd =
  /** Settled, or Failed (a progress deadline exceeded, an OnDelete DaemonSet): waiting cannot change it. */
  | { readonly _tag: 'Decided'; readonly snapshot: WorkloadSnapshot }
  /** The window closed; the last successful read was still Waiting. */
  | { readonly _tag: 'WindowClosed'; readonly snapshot: WorkloadSnapshot; readonly lastError: PortError | undefined }
  /** It could not be read (at all, or in a way waiting will not heal). */
  | { readonly _tag: 'Unreadable'; readonly error: PortError };

export const isTransient = (e: PortError): boolean => e._tag === 'Timeout' || e._tag === 'Transport';

/** Sleeps `ms`, or less when `signal` aborts first: a bound with nothing to do but end. */
export const sleep = (ms: number, signal: AbortSignal | undefined): Promise<void> =>
  boundedCall({ timeoutMs: ms, parents: [signal] }, untilAborted);

export const abortedWait = (ref: WorkloadRef, signal: AbortSignal): PortError =>
  transport(
    `the wait for ${describeWorkload(ref)} was aborted (${signal.reason instanceof Error ? signal.reason.message : String(signal.reason)})`,
  );

export const pollUntilSettled = async (
  ref: WorkloadRef,
  read: () => Promise<E.Either<PortError, WorkloadSnapshot>>,
  settings: PollSettings,
): Promise<PollEnd> => {
  const start = Date.now();
  let good: WorkloadSnapshot | undefined;
  let latest: { readonly settledness: Settledness } | { readonly error: PortError } | undefined;
  const { onProgress } = settings;
  const ticker =
    onProgress === undefined
      ? undefined
      : setInterval(
          () => onProgress(progressLine(ref, latest, Date.now() - start, settings.windowMs)),
          settings.progressEveryMs,
        );
  try {
    for (let first = true; ; first = false) {
      if (settings.signal?.aborted === true) return { _tag: 'Unreadable', error: abortedWait(ref, settings.signal) };
      const answer = await read();
      let lastError: PortError | undefined;
      if (E.isLeft(answer)) {
        lastError = answer.left;
        latest = { error: answer.left };
        if ((first && settings.firstErrorIsFinal) || !isTransient(answer.left)) {
          return { _tag: 'Unreadable', error: answer.left };
        }
      } else {
        good = answer.right;
        latest = { settledness: good.settledness };
        if (good.settledness._tag !== 'Waiting') return { _tag: 'Decided', snapshot: good };
      }
      const elapsed = Date.now() - start;
      if (elapsed >= settings.windowMs) {
        if (good !== undefined) return { _tag: 'WindowClosed', snapshot: good, lastError };
        return { _tag: 'Unreadable', error: lastError ?? { _tag: 'Transport', message: 'no read was made' } };
      }
      await sleep(Math.min(settings.intervalMs, settings.windowMs - elapsed), settings.signal);
    }
  } finally {
    if (ticker !== undefined) clearInterval(ticker);
  }
};
