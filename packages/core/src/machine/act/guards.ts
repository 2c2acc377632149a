import { isFlapLockedOut, keepsEarlierFailures } from '../../domain/flap.js';
import { hasMoreChanges, wasAlreadyOnTarget } from '../../domain/reimage-run.js';
import { areKubernetesEventsOff, hasStabilityWindow, isPrepullOff, isRevertOn } from '../../domain/switches.js';
import { admitGuards } from '../admit/guards.js';
import { recordGuards } from '../record/guards.js';
import type { GuardArgs } from '../tick-assign.js';

// The act phase's named guards (docs/behaviour.md §3.5, §3.6), each one question to domain/.

export const actGuards = {
  /** MAINTENANCE_WINDOW: each counted rollout is timed, the plan having started inside the window with room (§3.4d). */
  isTimingRollouts: ({ context }: GuardArgs) => context.act.rolloutMarkMs !== undefined,
  /** After the attempt read: mark FLAP DETECTED instead of re-imaging (#563). */
  isFlapLockedOut: ({ context }: GuardArgs, params: { attempt: number }) =>
    isFlapLockedOut(params.attempt, context.config.maxRefreshAttempts),
  // Before a re-image: is there pull budget left for the kubelets? (I7b; judged when resolved)
  isRegistryBudgetLow: admitGuards.isRegistryBudgetLow,
  /** A failed set image, rollout or stability window goes to revertingRollout, not reimageFailed; REVERT_READY is said first. */
  isRevertOn: ({ context }: GuardArgs) => isRevertOn(context.config),
  /** §3.6 — the port sent nothing: the workload already runs the target; its rollout is still waited for (I7). */
  wasAlreadyOnTarget: (_: GuardArgs, params: { changed: boolean }) => wasAlreadyOnTarget(params),
  /** A completed rollout is watched (provingStability) before it counts. */
  hasStabilityWindow: ({ context }: GuardArgs) => hasStabilityWindow(context.config),
  /** §3.6 — more workloads to re-image this tick. */
  hasMoreWorkloads: ({ context }: GuardArgs) => hasMoreChanges(context.admit.plan.changes, context.act.index),
  /** A decoupled pass over earlier failures puts refresh-attempt back instead of clearing it (I25). */
  hasEarlierFailuresToKeep: ({ context }: GuardArgs) =>
    keepsEarlierFailures(context.observe.decoupled.begun, context.act.attempt),
  // A deferred re-image still records its first observations.
  hasDigestsToRecord: recordGuards.hasDigestsToRecord,
  /** checkingRegistryBudget: no staging, straight to persisting the attempt. */
  isPrepullOff: ({ context }: GuardArgs) => isPrepullOff(context.config),
  /** recordingStagingEvent: straight on to pulling onto the nodes. */
  areKubernetesEventsOff: ({ context }: GuardArgs) => areKubernetesEventsOff(context.config),
  // After staging: a workload staged on every node is still to be switched.
  hasWorkloadsToReimage: admitGuards.hasWorkloadsToReimage,
  // Past the lockout: OWNERSHIP_CHECK before the pull budget, staging and the attempt (docs/behaviour.md §3.4c).
  needsOwnershipCheck: admitGuards.needsOwnershipCheck,
};
