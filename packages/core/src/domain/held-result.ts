import type { Hold, Holds } from './admission.js';

// docs/behaviour.md §3.4a: a tick that ran through but held a digest back
// ends under the hold's own name, so the summary's `outcome=` and the pushed
// `image_refresh_tick_outcome` say what an SRE alerts on — a signature
// rejection, a quarantined build held, a digest soaking — instead of
// `complete`. Only a tick that would end `complete` is renamed: every other
// ending already names something more urgent (a failed rollout, a rollback).

/** Why a digest was held back, as the outcome reports it. */
export type HeldReason =
  /** FLEET_HALT_REF: a verified, unexpired halt names it (or `*` for its repository). */
  | 'halted'
  /** FLEET_HALT_REF could not be read or verified: every changed digest is held (fail closed, I37). */
  | 'haltUnverified'
  /** VERIFY_SIGNATURES=enforce: the registry's final word was "not verified" — a finding. */
  | 'signatureRejected'
  /** The signature could not be checked (a registry failure): retried next tick, never a rejection. */
  | 'signatureUnchecked'
  /** ON_ROLLOUT_FAILURE=revert quarantined it after a failed rollout here. */
  | 'quarantined'
  /** MIN_DIGEST_AGE / ROLLOUT_RING: not yet old enough on this edge (or its age could not be judged). */
  | 'soaking'
  /** PLATFORM_CHECK=on: it drops a platform the recorded digest provides — a finding. */
  | 'platformMismatch'
  /** PLATFORM_CHECK=on: a manifest could not be read: retried next tick, never a mismatch. */
  | 'platformUnchecked'
  /** PREPULL=on: it could not be pulled onto every node of its workload this tick (failed or still pulling). */
  | 'notStaged'
  /** MAINTENANCE_WINDOW: outside every window, or without room left for the plan (or the clock unread). */
  | 'outsideWindow'
  /** MAINTENANCE_WINDOW: the plan needs more than the longest window lasts — a finding. */
  | 'windowTooShort'
  /** FLEET_PROMOTION_REF: no verified promotion names it for this edge's ring yet. */
  | 'awaitingPromotion'
  /** FLEET_PROMOTION_REF could not be read or verified: every changed digest waits (fail closed) — a finding. */
  | 'promotionUnverified';

/** One digest the admission checks held back this tick. */
export interface HeldDigest {
  readonly image: string;
  readonly digest: string;
  readonly reason: HeldReason;
}

const reasonOf = (hold: Hold): HeldReason => {
  switch (hold._tag) {
    case 'Halted':
      return 'halted';
    case 'HaltUnverified':
      return 'haltUnverified';
    case 'Quarantined':
      return 'quarantined';
    case 'Soaking':
      return 'soaking';
    case 'SignatureNotVerified':
      return hold.check === 'NotVerified' ? 'signatureRejected' : 'signatureUnchecked';
    case 'PlatformMismatch':
      return hold.check === 'Lacks' ? 'platformMismatch' : 'platformUnchecked';
    case 'NotStaged':
      return 'notStaged';
    case 'OutsideWindow':
      return hold.why === 'tooShort' ? 'windowTooShort' : 'outsideWindow';
    case 'AwaitingPromotion':
      return hold.unverified ? 'promotionUnverified' : 'awaitingPromotion';
  }
};

/** The holds of a tick as the outcome reports them, in the images' order. */
export const heldDigestsOf = (holds: Holds, order: readonly string[]): readonly HeldDigest[] =>
  order.flatMap((image): HeldDigest[] => {
    const hold = holds[image];
    return hold === undefined ? [] : [{ image, digest: hold.digest, reason: reasonOf(hold) }];
  });

/** The name a tick that ran through ends under when it held a digest back. */
export type HeldResult =
  | 'haltUnverified'
  | 'promotionUnverified'
  | 'awaitingPromotion'
  | 'signatureRejected'
  | 'platformMismatch'
  | 'windowTooShort'
  | 'halted'
  | 'notStaged'
  | 'outsideWindow'
  | 'quarantineHeld'
  | 'soaking';

/**
 * The most urgent hold names the ending: the findings first (a fleet halt
 * that could not be verified — even on a steady tick, where it held nothing —
 * then one that could not verify the fleet promotion, then a signature rejection, a platform mismatch, a plan no maintenance
 * window can hold), then a halt in force, a build not staged, a plan waiting
 * for its window, a digest awaiting its promotion, a quarantined build held, a digest soaking; a signature
 * or a manifest the registry failed to answer is a retry, not a hold worth a
 * name. Undefined: nothing held, the tick is `complete`.
 */
export const heldResultOf = (
  held: readonly HeldDigest[],
  haltUnverified: boolean,
  promotionUnverified: boolean,
): HeldResult | undefined => {
  const reasons = new Set(held.map((h) => h.reason));
  if (haltUnverified || reasons.has('haltUnverified')) return 'haltUnverified';
  if (promotionUnverified || reasons.has('promotionUnverified')) return 'promotionUnverified';
  if (reasons.has('signatureRejected')) return 'signatureRejected';
  if (reasons.has('platformMismatch')) return 'platformMismatch';
  if (reasons.has('windowTooShort')) return 'windowTooShort';
  if (reasons.has('halted')) return 'halted';
  if (reasons.has('notStaged')) return 'notStaged';
  if (reasons.has('outsideWindow')) return 'outsideWindow';
  if (reasons.has('awaitingPromotion')) return 'awaitingPromotion';
  if (reasons.has('quarantined')) return 'quarantineHeld';
  if (reasons.has('soaking')) return 'soaking';
  return undefined;
};
