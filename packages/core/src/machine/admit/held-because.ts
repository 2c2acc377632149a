import type { Hold } from '../../domain/admission.js';

/** Why an admission check held a changed digest back, for its verdict line (docs/behaviour.md §3.4a). */
const HELD_BECAUSE: Record<Exclude<Hold['_tag'], 'AwaitingPromotion'>, string> = {
  Halted: 'by the fleet halt',
  HaltUnverified: 'by the fleet halt, which could not be verified this tick',
  Quarantined: 'by the quarantine',
  Soaking: 'by the soak (not yet old enough on this edge)',
  OutsideWindow: 'for the maintenance window',
  SignatureNotVerified: 'by the signature check',
  PlatformMismatch: 'by the platform check',
  NotStaged: 'by staging (not pulled onto every node of a workload)',
};

/**
 * The words after "held back": the check's own; a change awaiting its
 * promotion names what it waits for, `waiting for promotion of
 * <image>@<digest> to ring N` (docs/fleet-promotion.md), which operators grep for.
 */
export const heldBecause = (hold: Hold): string => {
  if (hold._tag !== 'AwaitingPromotion') return HELD_BECAUSE[hold._tag];
  return hold.unverified
    ? 'by the fleet promotion, which could not be verified this tick'
    : `waiting for promotion of ${hold.image}@${hold.digest} to ring ${hold.ring}`;
};
