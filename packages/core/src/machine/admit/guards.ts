import { changesNothing } from '../../domain/bookkeeping.js';
import { hasNoDigestAgeToJudge } from '../../domain/digest-age.js';
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
  /** §3.4a — a changed digest is the one quarantined for its image: held, not re-applied (I30). */
  isChangedDigestQuarantined: ({ context }: GuardArgs) => context.admit.quarantined.length > 0,
  /** decidingDigestAge: straight on to the signature check. */
  isDigestAgeOff: ({ context }: GuardArgs) => isDigestAgeOff(context.config),
  /** choosingDigestsToAge: on to the signature check without reading the pending records. */
  hasNoDigestAgeToJudge: ({ context: { config, resolve, admit } }: GuardArgs) =>
    hasNoDigestAgeToJudge(config.topology, admit.changed, resolve.bookkeeping),
  /** §3.4a — the decision writes no pending record (every changed digest already had its own). */
  hasNoPendingDigestsToWrite: ({ context }: GuardArgs) => changesNothing(context.admit.pendingWrite),
  /** The signature check is skipped: on to the platform check. */
  isSignatureCheckOff: ({ context }: GuardArgs) => isSignatureCheckOff(context.config, context.admit.haltPins),
  /** Nothing changed and nothing is first observed: no digest to check (an unchanged one was checked when it changed). */
  hasNoSignaturesToCheck: ({ context }: GuardArgs) => context.admit.signatureSubjects.length === 0,
  /** decidingPlatformCheck: straight on to comparingDigests. */
  isPlatformCheckOff: ({ context }: GuardArgs) => isPlatformCheckOff(context.config),
  /** No changed digest left by the earlier checks: nothing to compare (a steady tick reads no manifest). */
  hasNoPlatformsToCheck: ({ context }: GuardArgs) => context.admit.platformSubjects.length === 0,
  /**
   * The pull budget is low this tick (I7b): the signature and platform checks
   * skip their manifest reads, and act defers the re-image. Judged once, from
   * the registry's answers (registryBudgetOf); act's guard too.
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
