import type { GuardArgs } from '../tick-assign.js';

// The fleet promotion phase's named guards (docs/fleet-promotion.md), each one question to domain/.

export const fleetPromotionGuards = {
  /** The tag answers a digest this edge has not verified (or whose kept document no longer parses): read it. */
  needsPromotionDocument: ({ context }: GuardArgs) => context.promotion.reading._tag === 'Fetching',
  /** Its document read and parsed: its signature is checked next. */
  hasPromotionSignatureToCheck: ({ context }: GuardArgs) => context.promotion.reading._tag === 'Read',
  /** Verified this tick: kept beside its digest, so the next tick costs only the HEAD. */
  hasPromotionToRecord: ({ context }: GuardArgs) =>
    context.promotion.reading._tag === 'Verified' && !context.promotion.reading.known,
  /** The tag answers 404 where a promotion was kept: its record is removed. */
  isPromotionWithdrawn: ({ context }: GuardArgs) => context.promotion.reading._tag === 'Withdrawn',
};
