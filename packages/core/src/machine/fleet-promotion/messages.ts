import type { TickConfig } from '../../config/tick-config.js';
import { shortDigest } from '../../domain/digest.js';
import { describePortError, type PortError } from '../../domain/port-error.js';
import type { PromotionReading } from '../../domain/promotion-admission.js';
import { activePromotionOf } from '../../domain/promotion-switch.js';
import { gate } from '../operator-words.js';
import type { TickEvent } from '../tick-event.js';

// The fleet promotion phase's operator lines (docs/fleet-promotion.md).
// `PROMOTION UNVERIFIED` is the contract's phrase, kept verbatim: operators grep for it.

const referenceOf = (c: TickConfig): string => activePromotionOf(c)?.reference ?? 'FLEET_PROMOTION_REF';

/** Fail closed: a finding, and no change beyond the canaries moves this tick. */
export const promotionUnverifiedLine = (c: TickConfig, why: string): TickEvent => ({
  level: 'error',
  code: 'FLEET_PROMOTION_UNVERIFIED',
  message: `ERROR: PROMOTION UNVERIFIED: ${referenceOf(c)}: ${why}; no changed digest is acted on this tick (a promotion that cannot be verified opens no ring)`,
  hints: [
    'a promotion is written by `image-refresh promote --out`, published with `oras push` and signed with `cosign sign` by a key (or identity) in SIGNATURE_PUBLIC_KEYS / SIGNATURE_IDENTITY; `image-refresh status` shows what this edge reads.',
  ],
});

/** What the phase says once it has its verdict. */
export const promotionVerdictLines = (c: TickConfig, reading: PromotionReading): TickEvent[] => {
  switch (reading._tag) {
    case 'Off':
      return [];
    case 'None':
      return [
        {
          level: 'info',
          code: 'FLEET_PROMOTION_NONE',
          message: `fleet promotion: none published under ${referenceOf(c)}; ring ${c.rolloutRing} waits for one`,
        },
      ];
    case 'Withdrawn':
      return [
        {
          level: 'info',
          code: 'FLEET_PROMOTION_WITHDRAWN',
          message: `fleet promotion withdrawn: ${referenceOf(c)} answers 404${reading.digest === undefined ? '' : `; the promotion ${shortDigest(reading.digest)} no longer opens ring ${c.rolloutRing}`}, and its record on ${gate(c)} is removed`,
        },
      ];
    case 'Verified':
      return [
        {
          level: 'info',
          code: 'FLEET_PROMOTION_VERIFIED',
          message: `fleet promotion: ${referenceOf(c)} answers ${shortDigest(reading.digest)}, signature verified: ${reading.document.promotions.length} promotion(s)`,
        },
      ];
    case 'Unverified':
      return [promotionUnverifiedLine(c, reading.why)];
    default:
      return [promotionUnverifiedLine(c, 'the promotion was not read to the end')];
  }
};

/** A digest not verified here before: read, then checked (the only tick it costs more than its HEAD). */
export const promotionReading = (c: TickConfig, digest: string, note: string | undefined): TickEvent => ({
  level: 'info',
  code: 'FLEET_PROMOTION_READ',
  message: `fleet promotion: ${referenceOf(c)} answers ${shortDigest(digest)}${note === undefined ? ', not verified here before' : `; ${note}`}: reading and verifying it`,
});

export const promotionWriteFailed = (c: TickConfig, withdrawing: boolean, e: PortError): TickEvent => ({
  level: 'warn',
  code: 'FLEET_PROMOTION_WRITE_FAILED',
  message: withdrawing
    ? `WARN: could not remove the record of the withdrawn fleet promotion on ${gate(c)} (${describePortError(e)}); it opens nothing, and the next tick tries again.`
    : `WARN: could not record the verified fleet promotion on ${gate(c)} (${describePortError(e)}); it counts this tick, and the next tick reads and verifies it again.`,
});
