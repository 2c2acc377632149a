import type { PromotionReading } from '../../domain/promotion-admission.js';
import { READING_OFF } from '../../domain/signed-document-reading.js';

/** What the fleet promotion phase learns (docs/fleet-promotion.md): where reading the promotion got to, and when. */
export interface FleetPromotionContext {
  /** Off until FLEET_PROMOTION_REF's promotion is read; then the verdict, step by step. */
  readonly reading: PromotionReading;
  /** The tick's clock read, ms since the epoch: what each promotion's expiry is judged at; undefined until read. */
  readonly nowMs: number | undefined;
}

export const NO_FLEET_PROMOTION: FleetPromotionContext = { reading: READING_OFF, nowMs: undefined };
