import { toFleetPromotion } from '../fleet-routes.js';
import { withPortError, written } from '../step-params.js';
import { tickSetup } from '../tick-setup.js';
import { haltDocumentTarget, haltLiftWrite, haltRecordWrite, haltSignatureTargets } from './inputs.js';

// The fleet halt, between resolve and admit (docs/behaviour.md §3.4b): FLEET_HALT_REF's tag, as
// the resolve batch's HEAD answered it, judged against what this edge
// recorded; a new digest read and its signature checked; the verdict kept
// (or a lifted halt's record removed) and said. Off, it is not entered and
// says nothing (I35). It never ends a tick: an unverified halt is a finding
// that holds every change back at admission (I37).

export const judgingFleetHalt = tickSetup.createStateConfig({
  // Entered only when on (fleet-routes.ts): off, the tick is routed past it.
  initial: 'readingHaltClock',
  states: {
    // The halt's expiry is judged at the tick's own clock read (I20: the machine reads none).
    readingHaltClock: {
      invoke: {
        src: 'readClock',
        input: () => undefined,
        onDone: {
          target: 'decidingHaltDocument',
          actions: { type: 'judgeHaltAnswer', params: ({ event }) => ({ nowMs: event.output }) },
        },
        onError: {
          target: 'announcingFleetHalt',
          actions: { type: 'failHaltClosed', params: ({ event }) => ({ step: 'clock', ...withPortError({ event }) }) },
        },
      },
    },
    decidingHaltDocument: {
      always: [
        { guard: 'needsHaltDocument', target: 'readingHaltDocument' },
        { guard: 'isHaltLifted', target: 'liftingHalt' },
        { target: 'announcingFleetHalt' },
      ],
    },
    // A digest not verified here before: its manifest and its one document layer, capped.
    readingHaltDocument: {
      invoke: {
        src: 'readFleetHalt',
        input: haltDocumentTarget,
        onDone: {
          target: 'decidingHaltSignature',
          actions: { type: 'rememberHaltDocument', params: ({ event }) => ({ answer: event.output }) },
        },
        onError: {
          target: 'announcingFleetHalt',
          actions: {
            type: 'failHaltClosed',
            params: ({ event }) => ({ step: 'document', ...withPortError({ event }) }),
          },
        },
      },
    },
    decidingHaltSignature: {
      always: [
        { guard: 'hasHaltSignatureToCheck', target: 'verifyingHaltSignature' },
        { target: 'announcingFleetHalt' },
      ],
    },
    // With VERIFY_SIGNATURES's trust, whatever VERIFY_SIGNATURES says.
    verifyingHaltSignature: {
      invoke: {
        src: 'verifySignatures',
        input: haltSignatureTargets,
        onDone: {
          target: 'decidingHaltRecord',
          actions: { type: 'judgeHaltSignature', params: ({ event }) => ({ answers: event.output }) },
        },
        onError: {
          target: 'announcingFleetHalt',
          actions: {
            type: 'failHaltClosed',
            params: ({ event }) => ({ step: 'signature', ...withPortError({ event }) }),
          },
        },
      },
    },
    decidingHaltRecord: {
      always: [{ guard: 'hasHaltToRecord', target: 'recordingHalt' }, { target: 'announcingFleetHalt' }],
    },
    // Kept beside its digest: the next tick costs only the HEAD (I39). A failed
    // write is a WARN: the halt holds this tick, and the next reads it again.
    recordingHalt: {
      invoke: {
        src: 'patchBookkeeping',
        input: haltRecordWrite,
        onDone: { target: 'announcingFleetHalt', actions: { type: 'noteWrite', params: written } },
        onError: {
          target: 'announcingFleetHalt',
          actions: { type: 'warnHaltWriteFailed', params: withPortError },
        },
      },
    },
    liftingHalt: {
      invoke: {
        src: 'patchBookkeeping',
        input: haltLiftWrite,
        onDone: { target: 'announcingFleetHalt', actions: { type: 'noteWrite', params: written } },
        onError: {
          target: 'announcingFleetHalt',
          actions: { type: 'warnHaltWriteFailed', params: withPortError },
        },
      },
    },
    announcingFleetHalt: { entry: 'announceFleetHalt', always: { target: 'leavingFleetHalt' } },
    // Nothing resolved (all pinned or all failed): the halt is said, there is nothing to admit.
    leavingFleetHalt: {
      always: [{ guard: 'isNothingResolved', target: '#tick.complete' }, ...toFleetPromotion],
    },
  },
});

/** The phase's steps, in the order the tick takes them. */
export const fleetHaltSteps = { judgingFleetHalt };
