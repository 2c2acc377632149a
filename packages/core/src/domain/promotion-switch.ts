import type { FleetPromotionConfig } from '../config/fleet-promotion-config.js';
import type { TickConfig } from '../config/tick-config.js';

// FLEET_PROMOTION_REF counts only on an edge of ring ≥ 1 (docs/fleet-promotion.md):
// the canaries (ring 0) make the evidence and act as they always did, so
// they read no promotion at all.

/** The promotion this edge reads: FLEET_PROMOTION_REF's, on ring ≥ 1; undefined otherwise (the clock's rings). */
export const activePromotionOf = (config: TickConfig): FleetPromotionConfig | undefined =>
  config.rolloutRing >= 1 ? config.fleetPromotion : undefined;
