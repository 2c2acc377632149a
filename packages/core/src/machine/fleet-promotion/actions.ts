import type { Either } from 'fp-ts/lib/Either.js';
import type { FleetHaltDocument } from '../../domain/fleet-halt.js';
import type { PortError, RegistryError } from '../../domain/port-error.js';
import { promotionKindOf } from '../../domain/promotion-admission.js';
import {
  judgeSignedAnswer,
  signedDocumentJudged,
  signedDocumentRead,
  signedStepFailed,
} from '../../domain/signed-document-reading.js';
import type { SignatureAnswers } from '../tick-actors.js';
import { tickAssign } from '../tick-assign.js';
import { said } from '../tick-context.js';
import * as say from './messages.js';

// The fleet promotion phase's named actions (docs/fleet-promotion.md): each
// step's answer judged into the reading (domain/signed-document-reading.ts),
// and the verdict said once, on the way out.

export const fleetPromotionActions = {
  /** The HEAD's answer against what this edge kept, at the tick's clock. */
  judgePromotionAnswer: tickAssign(({ context }, params: { nowMs: number }) => {
    const reading = judgeSignedAnswer(
      promotionKindOf(context.config.topology.keys),
      context.resolve.promotionAnswer,
      context.resolve.bookkeeping,
      params.nowMs,
    );
    return {
      promotion: { reading, nowMs: params.nowMs },
      ...(reading._tag === 'Fetching'
        ? { events: said(context, say.promotionReading(context.config, reading.digest, reading.note)) }
        : {}),
    };
  }),
  /** A step that could not be taken: the promotion is unverified (fail closed). */
  failPromotionClosed: tickAssign(
    ({ context }, params: { step: 'clock' | 'document' | 'signature'; error: PortError }) => ({
      promotion: { ...context.promotion, reading: signedStepFailed(params.step, params.error) },
    }),
  ),
  rememberPromotionDocument: tickAssign(
    ({ context }, params: { answer: Either<RegistryError, FleetHaltDocument> }) => ({
      promotion: {
        ...context.promotion,
        reading: signedDocumentRead(
          promotionKindOf(context.config.topology.keys),
          context.promotion.reading,
          params.answer,
          // Stryker disable next-line all: the clock was read before any document is (readingPromotionClock)
          context.promotion.nowMs ?? 0,
        ),
      },
    }),
  ),
  judgePromotionSignature: tickAssign(({ context }, params: { answers: SignatureAnswers }) => ({
    promotion: {
      ...context.promotion,
      reading: signedDocumentJudged(
        promotionKindOf(context.config.topology.keys),
        context.promotion.reading,
        params.answers[0],
      ),
    },
  })),
  /** The verdict, said once per tick: verified, unverified, withdrawn or none. */
  announceFleetPromotion: tickAssign(({ context }) => ({
    events: said(context, ...say.promotionVerdictLines(context.config, context.promotion.reading)),
  })),
  warnPromotionWriteFailed: tickAssign(({ context }, params: { error: PortError }) => ({
    events: said(
      context,
      say.promotionWriteFailed(context.config, context.promotion.reading._tag === 'Withdrawn', params.error),
    ),
  })),
};
