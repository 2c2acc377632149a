import { promotionKindOf } from '../../domain/promotion-admission.js';
import { activePromotionOf } from '../../domain/promotion-switch.js';
import { readingDigestOf, signedWriteOf } from '../../domain/signed-document-reading.js';
import { write } from '../step-params.js';
import type { InputArgs } from '../tick-context.js';

// What the fleet promotion phase's steps hand their actors.

/** The promotion artifact the tag answered: its repository and manifest digest (a step taken only while Fetching or Read). */
const target = ({ context }: InputArgs) => {
  const promotion = activePromotionOf(context.config);
  return {
    host: promotion?.host ?? '',
    repo: promotion?.repo ?? '',
    digest: readingDigestOf(context.promotion.reading),
  };
};

/** The document the digest names, read from the registry. */
export const promotionDocumentTarget = (args: InputArgs) => ({ target: target(args) });

/** The promotion's manifest digest, checked with the halt's trust (VERIFY_SIGNATURES's). */
export const promotionSignatureTargets = (args: InputArgs) => ({ targets: [target(args)] });

const promotionWrite = ({ context }: InputArgs) =>
  signedWriteOf(promotionKindOf(context.config.topology.keys), context.promotion.reading, context.resolve.bookkeeping);

/** A promotion verified this tick kept beside its digest: one write. */
export const promotionRecordWrite = (args: InputArgs) => write('recordFleetPromotion', promotionWrite(args));

/** A withdrawn promotion's record removed: one write. */
export const promotionWithdrawWrite = (args: InputArgs) => write('withdrawFleetPromotion', promotionWrite(args));
