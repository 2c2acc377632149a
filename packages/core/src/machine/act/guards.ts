import { isFlapLockedOut, keepsEarlierFailures } from '../../domain/flap.js';
import { hasMoreChanges, wasAlreadyOnTarget } from '../../domain/reimage-run.js';
import { areKubernetesEventsOff, hasStabilityWindow, isPrepullOff, isRevertOn } from '../../domain/switches.js';
import { admitGuards } from '../admit/guards.js';
import { recordGuards } from '../record/guards.js';
import type { GuardArgs } from '../tick-assign.js';

// The act phase's named guards (docs/behaviour.md §3.5, §3.6), each one question to domain/.

export const actGuards = {
  /** §3.5 — MAX_REFRESH_ATTEMPTS failed re-images in a row: stop and flag, no auto-resume (I10, #563). */
  isFlapLockedOut: ({ context }: GuardArgs, params: { attempt: number }) =>
    isFlapLockedOut(params.attempt, context.config.maxRefreshAttempts),
  // Before a re-image: is there pull budget left for the kubelets? (I7b; judged when resolved)
  isRegistryBudgetLow: admitGuards.isRegistryBudgetLow,
  /** ON_ROLLOUT_FAILURE=revert: a failed rollout is rolled back, not left half-rolled. */
  isRevertOn: ({ context }: GuardArgs) => isRevertOn(context.config),
  /** §3.6 — the port sent nothing: the workload already runs the target; its rollout is still waited for (I7). */
  wasAlreadyOnTarget: (_: GuardArgs, params: { changed: boolean }) => wasAlreadyOnTarget(params),
  /** ROLLOUT_STABLE_FOR above 0: a completed rollout must stay complete before it counts. */
  hasStabilityWindow: ({ context }: GuardArgs) => hasStabilityWindow(context.config),
  /** §3.6 — more workloads to re-image this tick. */
  hasMoreWorkloads: ({ context }: GuardArgs) => hasMoreChanges(context.admit.plan.changes, context.act.index),
  /** A decoupled pass over earlier failures puts refresh-attempt back instead of clearing it (I25). */
  hasEarlierFailuresToKeep: ({ context }: GuardArgs) =>
    keepsEarlierFailures(context.observe.decoupled.begun, context.act.attempt),
  // A deferred re-image still records its first observations.
  hasDigestsToRecord: recordGuards.hasDigestsToRecord,
  /** PREPULL=off (the default, the script's behaviour): no staging pod, no Event (docs/behaviour.md §3.5a). */
  isPrepullOff: ({ context }: GuardArgs) => isPrepullOff(context.config),
  /** IMAGE_REFRESH_EVENTS=0: the RefreshStaging Event is not recorded either. */
  areKubernetesEventsOff: ({ context }: GuardArgs) => areKubernetesEventsOff(context.config),
  // After staging: a workload staged on every node is still to be switched.
  hasWorkloadsToReimage: admitGuards.hasWorkloadsToReimage,
  // Past the lockout: OWNERSHIP_CHECK before the pull budget, staging and the attempt (docs/behaviour.md §3.4c).
  needsOwnershipCheck: admitGuards.needsOwnershipCheck,
};
