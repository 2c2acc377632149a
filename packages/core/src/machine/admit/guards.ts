import { changedDigests } from '../../domain/admission.js';
import { changesNothing } from '../../domain/bookkeeping.js';
import { hasNoDigestAgeToJudge } from '../../domain/digest-age.js';
import { hasDrift } from '../../domain/plan.js';
import { platformSubjects } from '../../domain/platforms.js';
import { quarantinedThisTick } from '../../domain/quarantine.js';
import { signatureSubjects } from '../../domain/signature-admission.js';
import { isDigestAgeOff, isPlatformCheckOff, isSignatureCheckOff } from '../../domain/switches.js';
import { recordGuards } from '../record/guards.js';
import type { GuardArgs } from '../tick-assign.js';

// The admit phase's named guards (docs/behaviour.md §3.4a, §3.4), each one question to domain/.

export const admitGuards = {
  /** §3.4a — a changed digest is the one quarantined for its image: held, not re-applied (I30, issue 16). */
  isChangedDigestQuarantined: ({ context: { resolve, admit } }: GuardArgs) =>
    quarantinedThisTick(resolve.resolutions, resolve.recorded, admit.holds, resolve.bookkeeping).length > 0,
  /** §3.4a — MIN_DIGEST_AGE + ROLLOUT_RING × RING_DELAY is 0 (the default): the check passes, no read, no write. */
  isDigestAgeOff: ({ context }: GuardArgs) => isDigestAgeOff(context.config),
  /** §3.4a — no changed digest to judge and no pending record to clear: nothing to read (issue 17). */
  hasNoDigestAgeToJudge: ({ context: { resolve, admit } }: GuardArgs) =>
    hasNoDigestAgeToJudge(changedDigests(resolve.resolutions, resolve.recorded, admit.holds), resolve.bookkeeping),
  /** §3.4a — the decision writes no pending record (every changed digest already had its own). */
  hasNoPendingDigestsToWrite: ({ context }: GuardArgs) => changesNothing(context.admit.pendingWrite),
  /** VERIFY_SIGNATURES=off (the default, the script's behaviour): no check, no request, no line (issue 15). */
  isSignatureCheckOff: ({ context }: GuardArgs) => isSignatureCheckOff(context.config),
  /** Nothing changed and nothing is first observed: no digest to check (an unchanged one was checked when it changed). */
  hasNoSignaturesToCheck: ({ context: { resolve, admit } }: GuardArgs) =>
    signatureSubjects(resolve.resolutions, resolve.recorded, admit.holds).length === 0,
  /** PLATFORM_CHECK=off (the default, the script's behaviour): no manifest read, no line (§3.4a step 4). */
  isPlatformCheckOff: ({ context }: GuardArgs) => isPlatformCheckOff(context.config),
  /** No changed digest left by the earlier checks: nothing to compare (a steady tick reads no manifest). */
  hasNoPlatformsToCheck: ({ context: { resolve, admit } }: GuardArgs) =>
    platformSubjects(resolve.resolutions, resolve.recorded, admit.holds).length === 0,
  /**
   * Every re-image makes the kubelets pull (a DaemonSet: one pull per node);
   * with the registry's pull budget nearly spent, a rollout dies of
   * ImagePullBackOff — the churn the flap guard exists to prevent (issue 6).
   * Judged once, from the registry's answers (registryBudgetOf); act's guard too.
   */
  isRegistryBudgetLow: ({ context }: GuardArgs) => context.resolve.budget.low,
  /**
   * §3.4 — the plan re-images a workload: a recorded digest differs from the
   * registry's, or (RECONCILE_LIVE=1) a live container must be put back on
   * its recorded digest. (Named `hasDrift` until issue 12; it also meant the
   * live repairs.)
   */
  hasWorkloadsToReimage: ({ context }: GuardArgs) => hasDrift(context.admit.plan),
  // A plan that re-images nothing may still record first observations.
  hasDigestsToRecord: recordGuards.hasDigestsToRecord,
};
