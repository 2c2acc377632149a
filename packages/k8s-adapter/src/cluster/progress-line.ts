import {
  describePortError,
  describeWorkload,
  formatDuration,
  type PortError,
  type Settledness,
  type WorkloadRef,
} from '@image-refresh/core';

// What a wait says while it waits (docs/behaviour.md §3: the CronJob's log is the
// operator's window; `kubectl logs -f` must show the job is alive and what
// it is waiting for, with numbers):
//   waiting for deployment/stg-jobs-manager: 0 of 1 updated replicas are available (1m30s of 10m)

/** Core's kubectl-worded reason without the parts the line already says. */
const detailOf = (reason: string): string =>
  reason.replace(/^Waiting for (?:deployment|daemon set) "[^"]*" (?:rollout to finish: )?/, '').replace(/\.\.\.$/, '');

export const progressLine = (
  ref: WorkloadRef,
  latest: { readonly settledness: Settledness } | { readonly error: PortError } | undefined,
  elapsedMs: number,
  limitMs: number,
): string => {
  const what =
    latest === undefined
      ? 'no answer yet'
      : 'error' in latest
        ? `the last read failed: ${describePortError(latest.error)}`
        : latest.settledness._tag === 'Waiting'
          ? detailOf(latest.settledness.reason)
          : latest.settledness._tag === 'Settled'
            ? latest.settledness.message
            : latest.settledness.reason;
  return `waiting for ${describeWorkload(ref)}: ${what} (${formatDuration(elapsedMs)} of ${formatDuration(limitMs)})`;
};
