import type { TickKeys } from '../config/profile/topology-keys.js';
import type { TickConfig } from '../config/tick-config.js';
import { type AnsweredDigest, answeredDigests, changedDigests, type Holds, withHold } from './admission.js';
import type { RecordedDigests } from './bookkeeping.js';
import { type FleetPromotion, isPromotedFor, parseFleetPromotion } from './fleet-promotion.js';
import type { ImageResolution } from './plan.js';
import { activePromotionOf } from './promotion-switch.js';
import {
  isSignedUnverified,
  type SignedDocumentKind,
  type SignedReading,
  verifiedDocumentOf,
} from './signed-document-reading.js';

// The promotion check (docs/fleet-promotion.md), right after the soak in the
// admission order: halted? → quarantined? → old enough? → promoted? → in a
// window? → signature → platforms. On an edge of ring R ≥ 1 under
// FLEET_PROMOTION_REF, a changed digest goes on only when the verified,
// unexpired promotion names it for ring R or a higher one; otherwise it
// waits, spending no signature or platform request. A promotion that could
// not be read or verified opens nothing (fail closed). A fleet halt's
// pin-back is the halt's decision and is never held here: a halt always wins.

/** The fleet promotion as an edge reads it: kept on the gate beside its digest, as the halt is. */
export const promotionKindOf = (keys: TickKeys): SignedDocumentKind<FleetPromotion> => ({
  noun: 'promotion',
  parse: parseFleetPromotion,
  digestKey: keys.fleetPromotionDigest,
  documentKey: keys.fleetPromotionDocument,
});

export type PromotionReading = SignedReading<FleetPromotion>;

/**
 * Each answered digest (a change, or a first observation) a verified
 * promotion does not name for this edge's ring held back
 * (`AwaitingPromotion`), and every one held when the promotion could not be
 * verified; the rest go on to the window and the signature check.
 */
export const withPromotionHolds = (
  config: TickConfig,
  holds: Holds,
  answered: readonly AnsweredDigest[],
  reading: PromotionReading,
  nowMs: number | undefined,
): Holds => {
  const ring = config.rolloutRing;
  const unverified = isSignedUnverified(reading) || nowMs === undefined;
  const promotion = verifiedDocumentOf(reading);
  return answered.reduce((acc, change) => {
    const promoted =
      !unverified && promotion !== undefined && isPromotedFor(promotion, change.image, change.to, ring, nowMs);
    return promoted
      ? acc
      : withHold(acc, { _tag: 'AwaitingPromotion', image: change.image, digest: change.to, ring, unverified });
  }, holds);
};

/**
 * What the promotion judges: every changed digest; and, where a record is
 * something containers are moved to — a live re-pin (RECONCILE_LIVE=1) or a
 * rollback (ON_ROLLOUT_FAILURE=revert) goes back to it — first observations
 * too, so no baseline this ring was never promoted to becomes a target.
 * Without either, a baseline moves nothing (I8) and is recorded as always.
 */
export const promotionSubjects = (
  config: TickConfig,
  answers: readonly ImageResolution[],
  recorded: RecordedDigests,
  holds: Holds,
): readonly AnsweredDigest[] =>
  config.reconcileLive === 'repair' || config.onRolloutFailure === 'revert'
    ? answeredDigests(answers, recorded, holds)
    : changedDigests(answers, recorded, holds).map(({ image, to }) => ({ image, to }));

/** FLEET_PROMOTION_REF unset, or this edge is a canary (ring 0): the clock's rings, nothing read (docs/fleet-promotion.md). */
export const isPromotionGateOff = (config: TickConfig): boolean => activePromotionOf(config) === undefined;

/** How a tick left the promotion, as its outcome, `status` and the metrics report it. */
export interface PromotionReport {
  /** `verified`: a verified document counts this tick (it may name nothing for this edge). */
  readonly state: 'none' | 'withdrawn' | 'verified' | 'unverified';
  /** FLEET_PROMOTION_REF as configured. */
  readonly reference: string;
  /** The promotion's manifest digest, where the tag answered one. */
  readonly digest: string | null;
  /** Why it could not be verified (`unverified` only). */
  readonly why: string | null;
}

/** The report of a reading; undefined while no promotion is read here (nothing to report). */
export const promotionReportOf = (config: TickConfig, reading: PromotionReading): PromotionReport | undefined => {
  const reference = activePromotionOf(config)?.reference;
  if (reference === undefined || reading._tag === 'Off') return undefined;
  const none = { reference, digest: null, why: null };
  switch (reading._tag) {
    case 'None':
      return { ...none, state: 'none' };
    case 'Withdrawn':
      return { ...none, state: 'withdrawn', digest: reading.digest ?? null };
    case 'Verified':
      return { ...none, state: 'verified', digest: reading.digest };
    case 'Unverified':
      return { ...none, state: 'unverified', why: reading.why };
    default:
      return { ...none, state: 'unverified', digest: reading.digest, why: 'the promotion was not read to the end' };
  }
};
