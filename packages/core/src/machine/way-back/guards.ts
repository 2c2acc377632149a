import { hasMoreChanges } from '../../domain/reimage-run.js';
import { hasBadDigest, hasNoRecordToRevertTo, hasNothingToRollBack } from '../../domain/revert.js';
import type { GuardArgs } from '../tick-assign.js';

// The way back's named guards (ON_ROLLOUT_FAILURE=revert; docs/behaviour.md
// §3.6), each one question to domain/ about the rollback decided on the way in
// (planRevert).

export const wayBackGuards = {
  /** A container the tick moved has no well-formed recorded digest: nothing known-good to go back to. */
  hasNoRecordToRevertTo: ({ context }: GuardArgs) => hasNoRecordToRevertTo(context.wayBack.decision),
  /** Every container moved so far went onto its recorded digest (RECONCILE_LIVE=1 re-pins): nothing to roll back. */
  hasNothingToRollBack: ({ context }: GuardArgs) => hasNothingToRollBack(context.wayBack.decision),
  /** The failed workload was rolling to a new digest: that digest is quarantined (I30). */
  hasDigestToQuarantine: ({ context }: GuardArgs) => hasBadDigest(context.wayBack.decision.plan),
  /** More workloads to roll back. */
  hasMoreReverts: ({ context }: GuardArgs) =>
    hasMoreChanges(context.wayBack.decision.plan.changes, context.wayBack.index),
};
