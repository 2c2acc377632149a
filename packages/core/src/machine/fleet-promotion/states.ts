import { withPortError, written } from '../step-params.js';
import { tickSetup } from '../tick-setup.js';
import {
  promotionDocumentTarget,
  promotionRecordWrite,
  promotionSignatureTargets,
  promotionWithdrawWrite,
} from './inputs.js';

// The fleet promotion, after the fleet halt and before admit
// (docs/fleet-promotion.md): FLEET_PROMOTION_REF's tag, as the resolve batch's
// HEAD answered it, judged against what this edge kept; a new digest read and
// its signature checked; the verdict kept (or a withdrawn promotion's record
// removed) and said — the halt's steps (docs/behaviour.md §3.4b). Off, or on
// a canary (ring 0), it is not entered and says nothing. It never ends a
// tick: an unverified promotion is a finding that holds every change back at
// admission.

export const judgingFleetPromotion = tickSetup.createStateConfig({
  // Entered only when on (fleet-routes.ts): off, or on a canary, the tick is routed past it.
  initial: 'readingPromotionClock',
  states: {
    // Each promotion's expiry is judged at the tick's own clock read (I20: the machine reads none).
    readingPromotionClock: {
      invoke: {
        src: 'readClock',
        input: () => undefined,
        onDone: {
          target: 'decidingPromotionDocument',
          actions: { type: 'judgePromotionAnswer', params: ({ event }) => ({ nowMs: event.output }) },
        },
        onError: {
          target: 'announcingFleetPromotion',
          actions: {
            type: 'failPromotionClosed',
            params: ({ event }) => ({ step: 'clock', ...withPortError({ event }) }),
          },
        },
      },
    },
    decidingPromotionDocument: {
      always: [
        { guard: 'needsPromotionDocument', target: 'readingPromotionDocument' },
        { guard: 'isPromotionWithdrawn', target: 'withdrawingPromotion' },
        { target: 'announcingFleetPromotion' },
      ],
    },
    // A digest not verified here before: its manifest and its one document layer, capped.
    readingPromotionDocument: {
      invoke: {
        src: 'readFleetPromotion',
        input: promotionDocumentTarget,
        onDone: {
          target: 'decidingPromotionSignature',
          actions: { type: 'rememberPromotionDocument', params: ({ event }) => ({ answer: event.output }) },
        },
        onError: {
          target: 'announcingFleetPromotion',
          actions: {
            type: 'failPromotionClosed',
            params: ({ event }) => ({ step: 'document', ...withPortError({ event }) }),
          },
        },
      },
    },
    decidingPromotionSignature: {
      always: [
        { guard: 'hasPromotionSignatureToCheck', target: 'verifyingPromotionSignature' },
        { target: 'announcingFleetPromotion' },
      ],
    },
    // With VERIFY_SIGNATURES's trust, whatever VERIFY_SIGNATURES says.
    verifyingPromotionSignature: {
      invoke: {
        src: 'verifySignatures',
        input: promotionSignatureTargets,
        onDone: {
          target: 'decidingPromotionRecord',
          actions: { type: 'judgePromotionSignature', params: ({ event }) => ({ answers: event.output }) },
        },
        onError: {
          target: 'announcingFleetPromotion',
          actions: {
            type: 'failPromotionClosed',
            params: ({ event }) => ({ step: 'signature', ...withPortError({ event }) }),
          },
        },
      },
    },
    decidingPromotionRecord: {
      always: [{ guard: 'hasPromotionToRecord', target: 'recordingPromotion' }, { target: 'announcingFleetPromotion' }],
    },
    // Kept beside its digest: the next tick costs only the HEAD. A failed
    // write is a WARN: the promotion counts this tick, the next reads it again.
    recordingPromotion: {
      invoke: {
        src: 'patchBookkeeping',
        input: promotionRecordWrite,
        onDone: { target: 'announcingFleetPromotion', actions: { type: 'noteWrite', params: written } },
        onError: {
          target: 'announcingFleetPromotion',
          actions: { type: 'warnPromotionWriteFailed', params: withPortError },
        },
      },
    },
    withdrawingPromotion: {
      invoke: {
        src: 'patchBookkeeping',
        input: promotionWithdrawWrite,
        onDone: { target: 'announcingFleetPromotion', actions: { type: 'noteWrite', params: written } },
        onError: {
          target: 'announcingFleetPromotion',
          actions: { type: 'warnPromotionWriteFailed', params: withPortError },
        },
      },
    },
    announcingFleetPromotion: { entry: 'announceFleetPromotion', always: { target: 'leavingFleetPromotion' } },
    leavingFleetPromotion: { always: { target: '#tick.admittingDigests' } },
  },
});

/** The phase's steps, in the order the tick takes them. */
export const fleetPromotionSteps = { judgingFleetPromotion };
