import type { HaltReport } from '../domain/fleet-halt-reading.js';
import type { HeldDigest } from '../domain/held-result.js';
import type { PromotionReport } from '../domain/promotion-admission.js';
import type { FailedReimage, Reimage } from '../domain/reimage-run.js';
import type { Settledness } from '../domain/settledness.js';
import type { SignatureCheckReport } from '../domain/signature-admission.js';
import type { WindowJudgement } from '../domain/window-room.js';
import type { TickEvent } from './tick-event.js';

export type { HaltReport } from '../domain/fleet-halt-reading.js';
export type { HeldDigest, HeldReason } from '../domain/held-result.js';
export type { FailedReimage, FailedReimageWhy, Reimage } from '../domain/reimage-run.js';

/** How a tick ended: the name of the machine's final state. */
export type TickResult =
  | 'configInvalid'
  | 'mirrorInert'
  | 'deploymentUnreadable'
  | 'skipStreakUncountable'
  | 'skipStreakWriteFailed'
  | 'skipped'
  | 'frozen'
  /** MAX_RESOLVE_FAILURE_TICKS: the registry's silence could not be counted on the gate (a finding, I46). */
  | 'resolveFailureStreakWriteFailed'
  | 'recordedDigestsUnreadable'
  | 'attemptUnreadable'
  | 'flapLockout'
  | 'flapMarkFailed'
  | 'attemptWriteFailed'
  | 'reimageFailed'
  | 'recordFailed'
  /**
   * OWNERSHIP_CHECK: a container the tick would set or record for runs
   * another image than the one it follows, or is missing (a finding, exit 1);
   * nothing was re-imaged or recorded (docs/behaviour.md §3.4c).
   */
  | 'foreignImage'
  /** OWNERSHIP_CHECK: a workload the check needed could not be read (a finding, exit 1; §3.4c). */
  | 'ownershipUnchecked'
  | 'complete'
  /**
   * Ran through, but FLEET_HALT_REF named a halt that could not be read or
   * verified (a finding, exit 1): no changed digest moved (docs/behaviour.md §3.4b).
   */
  | 'haltUnverified'
  /**
   * Ran through, but VERIFY_SIGNATURES=enforce rejected a new digest (a
   * finding, exit 1): that image was not re-imaged (docs/behaviour.md §3.4a step 3).
   */
  | 'signatureRejected'
  /**
   * Ran through, but PLATFORM_CHECK=on refused a new digest that drops a
   * platform the recorded one provides (a finding, exit 1; §3.4a step 4).
   */
  | 'platformMismatch'
  /**
   * Ran through, but PREPULL=on could not stage a new digest on every node of
   * its workload this tick (failed, or still pulling): that workload was not
   * switched, no attempt spent (§3.5a).
   */
  | 'notStaged'
  /**
   * Ran through, but some image has not been resolved for
   * MAX_RESOLVE_FAILURE_TICKS ticks in a row: REGISTRY UNREACHABLE (a finding,
   * exit 1; docs/behaviour.md §3.3, I46).
   */
  | 'registryUnreachable'
  /**
   * Ran through, but the mirror answered another digest than the upstream
   * named for a changed image (MIRROR_MODE=follow-upstream): a finding, exit 1,
   * never a pin (docs/behaviour.md §3.3).
   */
  | 'mirrorMismatch'
  /** Ran through, holding its re-images for the maintenance window: outside it, or no room left (exit 0; §3.4d). */
  | 'outsideWindow'
  /** Ran through, holding a plan no maintenance window is long enough for: WINDOW TOO SHORT (exit 1; §3.4d). */
  | 'windowTooShort'
  /** Ran through, holding back a digest a verified fleet halt names (exit 0 unless FLEET_HALT_EXIT=1; §3.4b). */
  | 'halted'
  /**
   * Ran through, but FLEET_PROMOTION_REF named a promotion that could not be
   * read or verified (a finding, exit 1): no changed digest moved (docs/fleet-promotion.md).
   */
  | 'promotionUnverified'
  /** Ran through, holding back a digest no verified promotion names for this edge's ring yet (exit 0; docs/fleet-promotion.md). */
  | 'awaitingPromotion'
  /** Ran through, holding back a digest quarantined after a rollback here (exit 0; §3.4a step 1). */
  | 'quarantineHeld'
  /** Ran through, holding back a digest not yet old enough on this edge (exit 0; §3.4a step 2). */
  | 'soaking'
  /** ON_ROLLOUT_FAILURE=revert: a rollout failed and was rolled back to the recorded digests (exit 1; §3.6). */
  | 'rolledBack'
  /** ON_ROLLOUT_FAILURE=revert: the rollback itself failed, or had nothing recorded to go back to (exit 1; §3.6). */
  | 'rollbackFailed'
  /** Stopped by SIGTERM or SIGINT before it ended (§3, Signals): exit 143 or 130. */
  | 'interrupted';

/** Why a write happened; one per logical write port. */
export type WriteKind =
  | 'writeSkipStreak'
  | 'clearSkipStreak'
  | 'writeRefreshAttempt'
  | 'markFlapDetected'
  | 'clearFlapState'
  | 'recordDigests'
  /** The failed digests quarantined after a rollback (§3.6). */
  | 'quarantineDigests'
  /** A changed digest first seen (its pending record), or a pending record superseded (§3.4a step 2). */
  | 'writePendingDigests'
  /** FLEET_HALT_REF: a halt verified this tick, kept beside its digest (docs/behaviour.md §3.4b). */
  | 'recordFleetHalt'
  /** FLEET_HALT_REF: the tag answers 404 where a halt was recorded: its record removed. */
  | 'liftFleetHalt'
  /** FLEET_PROMOTION_REF: a promotion verified this tick, kept beside its digest (docs/fleet-promotion.md). */
  | 'recordFleetPromotion'
  /** FLEET_PROMOTION_REF: the tag answers 404 where a promotion was kept: its record removed. */
  | 'withdrawFleetPromotion'
  /** MAX_RESOLVE_FAILURE_TICKS: some image went unanswered this tick (I46). */
  | 'writeResolveFailureStreak'
  /** Every image answered again: the resolve-failure streak is over. */
  | 'clearResolveFailureStreak'
  /** OWNERSHIP_CHECK: every mapped container was found the followed image's on a changed topology (§3.4c). */
  | 'recordTopologyFingerprint';

/** A write to the gate's annotations that succeeded; `null` removes the key. */
export interface AnnotationWrite {
  readonly kind: WriteKind;
  readonly annotations: Readonly<Record<string, string | null>>;
}

/** A digest the registry moved to, against the one recorded; acted on unless the tick says otherwise. */
export interface DigestChange {
  readonly image: string;
  readonly from: string;
  readonly to: string;
}

/**
 * How one tick ended and everything it did — enough to assert on, or to
 * render, without parsing log lines.
 */
export interface TickOutcome {
  /** The final state the machine reached. */
  readonly result: TickResult;
  /** 0 ok, 1 a finding an operator must see, 2 configuration error; 143 / 130 stopped by SIGTERM / SIGINT (I18). */
  readonly exitCode: 0 | 1 | 2 | 130 | 143;
  /** What the settled guard saw of the gate; undefined when it was not (or could not be) read. */
  readonly settledness?: Settledness;
  /** Everything the operator is told, in order. */
  readonly events: readonly TickEvent[];
  /** The error-level events; non-empty iff exitCode is 1 (an interrupted tick keeps those it had: exit 130/143). */
  readonly findings: readonly TickEvent[];
  /** The images this tick asked the registry for and did not resolve, 429 included (the summary's `unresolved=`); absent before it asked. */
  readonly unresolved?: readonly string[];
  /** Every successful write to the gate's annotations, in order. */
  readonly writes: readonly AnnotationWrite[];
  /** Every successful set-image, with whether its rollout completed. */
  readonly reimages: readonly Reimage[];
  /** The drift this tick found and set out to roll out (empty when held back or when nothing moved). */
  readonly digestChanges: readonly DigestChange[];
  /**
   * ON_ROLLOUT_FAILURE=revert (docs/behaviour.md §3.6): every workload the
   * rollback set back to its recorded digests, with whether that rollout
   * completed. Absent when no rollback ran.
   */
  readonly reverts?: readonly Reimage[];
  /**
   * VERIFY_SIGNATURES ≠ off (docs/behaviour.md §3.4a step 3): each digest the
   * signature check asked about, and what it said; absent when nothing was
   * checked.
   */
  readonly signatureChecks?: readonly SignatureCheckReport[];
  /**
   * Each digest the admission checks held back this tick, and why
   * (docs/behaviour.md §3.4a); absent when none was.
   */
  readonly held?: readonly HeldDigest[];
  /** The workload whose set image or rollout failed the tick, and why (§3.6); absent when none did. */
  readonly failedReimage?: FailedReimage;
  /**
   * FLEET_HALT_REF (docs/behaviour.md §3.4b): how the tick left the fleet
   * halt — none, lifted, in force, expired or unverified. Absent when
   * FLEET_HALT_REF is unset, or the tick ended before it read the halt.
   */
  readonly halt?: HaltReport;
  /**
   * MAINTENANCE_WINDOW (docs/behaviour.md §3.4d): what the window said of
   * this tick's re-images — outside (until when), no room, never fits, room,
   * or the clock unread. Absent when unset, or when the tick judged nothing.
   */
  readonly window?: WindowJudgement;
  /**
   * FLEET_PROMOTION_REF on ring ≥ 1 (docs/fleet-promotion.md): how the tick
   * left the promotion — none, withdrawn, verified or unverified. Absent when
   * no promotion is read here, or the tick ended before it read it.
   */
  readonly promotion?: PromotionReport;
}
