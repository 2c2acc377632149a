import { hasMoreChanges } from '../../domain/reimage-run.js';
import { hasBadDigest, hasNoRecordToRevertTo, hasNothingToRollBack } from '../../domain/revert.js';
import type { GuardArgs } from '../tick-assign.js';

// The way back's named guards (ON_ROLLOUT_FAILURE=revert; docs/behaviour.md
// §3.6), each one question to domain/ about the rollback decided on the way in
// (planRevert).

export const wayBackGuards = {
  /** planningRevert: straight to rollbackFailed, saying why, with no patch sent. */
  hasNoRecordToRevertTo: ({ context }: GuardArgs) => hasNoRecordToRevertTo(context.wayBack.decision),
  /** planningRevert: no rollback is made; the tick ends reimageFailed, as under `keep`. */
  hasNothingToRollBack: ({ context }: GuardArgs) => hasNothingToRollBack(context.wayBack.decision),
  /** The failed workload was rolling to a new digest: that digest is quarantined (I30). */
  hasDigestToQuarantine: ({ context }: GuardArgs) => hasBadDigest(context.wayBack.decision.plan),
  /** More workloads to roll back. */
  hasMoreReverts: ({ context }: GuardArgs) =>
    hasMoreChanges(context.wayBack.decision.plan.changes, context.wayBack.index),
};
