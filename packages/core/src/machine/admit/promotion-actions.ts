import { withoutHaltPins } from '../../domain/fleet-halt-admission.js';
import { promotionSubjects, withPromotionHolds } from '../../domain/promotion-admission.js';
import { resolveGuards } from '../resolve/guards.js';
import { tickAssign } from '../tick-assign.js';

// The promotion check's guard and action (docs/fleet-promotion.md), right
// after the soak: the digests no earlier check held (promotionSubjects: the
// changed ones, and first observations where a record is a target), a halt's
// pins aside (a halt always wins), each held unless the verified promotion
// names it for this edge's ring. Its verdict is said in each image's line.

export const promotionGuards = {
  // The promotion check is entered when the promotion is on, as its phase is (fleet-routes.ts): resolve's question, asked again.
  isFleetPromotionOn: resolveGuards.isFleetPromotionOn,
};

export const promotionActions = {
  /** Each changed digest no verified promotion names for this ring held back (fail closed when unverified). */
  holdUnpromotedDigests: tickAssign(({ context: { config, resolve, admit, promotion } }) => ({
    admit: {
      ...admit,
      holds: withPromotionHolds(
        config,
        admit.holds,
        withoutHaltPins(promotionSubjects(config, admit.answers, resolve.recorded, admit.holds), admit.haltPins),
        promotion.reading,
        promotion.nowMs,
      ),
    },
  })),
};
