import { changesNothing } from '../../domain/bookkeeping.js';
import { hasDigestAgeToJudge } from '../../domain/digest-age.js';
import { haltInForce, isHaltUnverified } from '../../domain/fleet-halt-reading.js';
import { hasNothingToAdmit } from '../../domain/nothing-to-admit.js';
import { needsOwnershipCheck } from '../../domain/ownership.js';
import { hasDrift } from '../../domain/plan.js';
import { isDigestAgeOff, isPlatformCheckOff, isSignatureCheckOff } from '../../domain/switches.js';
import { topologyChanged } from '../ownership/inputs.js';
import { recordGuards } from '../record/guards.js';
import type { GuardArgs } from '../tick-assign.js';
import { promotionGuards } from './promotion-actions.js';
import { windowGuards } from './window-actions.js';

// The admit phase's named guards (docs/behaviour.md §3.4a, §3.4), each one question to domain/
// or to the candidates its check found as it started (admit/context.ts).

export const admitGuards = {
  ...windowGuards,
  ...promotionGuards,
  /** §3.4b — FLEET_HALT_REF's halt could not be verified this tick: every answer is held (I37). */
  isFleetHaltUnverified: ({ context }: GuardArgs) => isHaltUnverified(context.halt.reading),
  /** §3.4b — a verified, unexpired halt: the digests it names are held, a container running one sent to its pin. */
  isFleetHaltInForce: ({ context }: GuardArgs) => haltInForce(context.halt.reading, context.halt.nowMs) !== undefined,
  /** §3.4a — no digest changed or first observed, no pending record to clear: every check passes at once. */
  hasNothingToAdmit: ({ context: { config, resolve, admit } }: GuardArgs) =>
    hasNothingToAdmit(config, admit.answers, resolve.recorded, admit.holds, resolve.bookkeeping),
  /** §3.4a step 2 — MIN_DIGEST_AGE + ROLLOUT_RING × RING_DELAY above 0: the soak is entered. */
  isDigestAgeOn: ({ context }: GuardArgs) => !isDigestAgeOff(context.config),
  /** choosingDigestsToAge: a changed digest to judge, or a pending record to clear — the records are read. */
  hasDigestAgeToJudge: ({ context: { config, resolve, admit } }: GuardArgs) =>
    hasDigestAgeToJudge(config.topology, admit.changed, resolve.bookkeeping),
  /** §3.4a — the decision writes a pending record (a digest seen for the first time, or one superseded). */
  hasPendingDigestsToWrite: ({ context }: GuardArgs) => !changesNothing(context.admit.pendingWrite),
  /** VERIFY_SIGNATURES ≠ off, or a halt's pin to check whatever it says (§3.4b): the signature check is entered. */
  isSignatureCheckOn: ({ context }: GuardArgs) => !isSignatureCheckOff(context.config, context.admit.haltPins),
  /**
   * A digest changed or first observed to check (an unchanged one was checked
   * when it changed), and the pull budget not low: with it low, the flap
   * back-off defers every re-image this tick anyway (I7b), so the check's
   * manifest GETs would be pulls spent for nothing; the digest stays
   * unrecorded and is checked on the tick that can act on it.
   */
  hasSignaturesToCheckWithinBudget: ({ context }: GuardArgs) =>
    context.admit.signatureSubjects.length > 0 && !context.resolve.budget.low,
  /** PLATFORM_CHECK=on: the platform check is entered. */
  isPlatformCheckOn: ({ context }: GuardArgs) => !isPlatformCheckOff(context.config),
  /**
   * A changed digest left by the earlier checks (a steady tick reads no
   * manifest), and the pull budget not low: the manifest GETs are pulls on
   * Docker Hub, and a low budget defers every re-image anyway (I7b).
   */
  hasPlatformsToCheckWithinBudget: ({ context }: GuardArgs) =>
    context.admit.platformSubjects.length > 0 && !context.resolve.budget.low,
  /**
   * The pull budget is low this tick (I7b): act defers the re-image (the
   * signature and platform checks skip their reads by their own guards).
   * Judged once, from the registry's answers (registryBudgetOf).
   */
  isRegistryBudgetLow: ({ context }: GuardArgs) => context.resolve.budget.low,
  /**
   * §3.4 — the plan re-images a workload: a recorded digest differs from the
   * registry's, or (RECONCILE_LIVE=1) a live container must be put back on
   * its recorded digest.
   */
  hasWorkloadsToReimage: ({ context }: GuardArgs) => hasDrift(context.admit.plan),
  // A plan that re-images nothing may still record first observations.
  hasDigestsToRecord: recordGuards.hasDigestsToRecord,
  /** OWNERSHIP_CHECK on (the default) and the plan re-images a container or records a first observation (§3.4c). */
  needsOwnershipCheck: ({ context }: GuardArgs) =>
    needsOwnershipCheck(context.config, context.admit.plan, topologyChanged(context)),
};
