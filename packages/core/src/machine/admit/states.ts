import { acting, bookkeepingRead, withPortError, written } from '../step-params.js';
import type { SignatureAnswers } from '../tick-actors.js';
import { tickSetup } from '../tick-setup.js';
import { pendingDigestsWrite, platformTargets, signatureTargets } from './inputs.js';
import { stagingAhead } from './window-actions.js';

// Phase 3, admit (docs/behaviour.md §3.4a, §3.4): fleet halt, quarantine, digest age, promotion, window, signature,
// platforms — each changed digest in that order — and then the plan, made once. Its steps.

/** Where each admission check sends the tick on: the next one switched on, or the plan. */
const ADMIT = '#tick.admittingDigests';
const toPlatformCheck = [
  { guard: 'isPlatformCheckOn', target: `${ADMIT}.checkingPlatforms` },
  { target: '#tick.comparingDigests' },
] as const;
const toSignatureCheck = [
  { guard: 'isSignatureCheckOn', target: `${ADMIT}.checkingSignatures` },
  ...toPlatformCheck,
] as const;
const toWindowCheck = [
  { guard: 'isMaintenanceWindowOn', target: `${ADMIT}.checkingWindow` },
  ...toSignatureCheck,
] as const;
const toPromotionCheck = [
  { guard: 'isFleetPromotionOn', target: `${ADMIT}.checkingPromotion` },
  ...toWindowCheck,
] as const;
const toDigestAgeCheck = [
  { guard: 'isDigestAgeOn', target: `${ADMIT}.checkingDigestAge` },
  ...toPromotionCheck,
] as const;

// §3.4a Admission: each changed digest passes the checks in this order;
// a check that holds an image back adds to context.admit.holds, and the plan is
// made once, after the last check. A check that is switched off is never
// entered — the check before it routes past it, so it costs a tick no step —
// and a tick with nothing to admit passes them all (README.md, Benchmarks).
export const admittingDigests = tickSetup.createStateConfig({
  initial: 'checkingHalt',
  entry: 'takeAnswers',
  states: {
    /**
     * FLEET_HALT_REF (docs/behaviour.md §3.4b): a halt that could not be
     * verified holds every answer (I37); one in force holds the digests it
     * names (I36) and sends an image that runs one back to its pin (I38).
     */
    checkingHalt: {
      always: [
        { guard: 'isFleetHaltUnverified', target: 'checkingQuarantine', actions: 'holdEveryAnswerForHalt' },
        { guard: 'isFleetHaltInForce', target: 'checkingQuarantine', actions: 'admitByFleetHalt' },
        // A steady tick: no check has anything to judge (domain/nothing-to-admit.ts).
        { guard: 'hasNothingToAdmit', target: '#tick.comparingDigests' },
        { target: 'checkingQuarantine' },
      ],
    },
    /** A digest that failed a rollout here is not re-applied (§3.4a step 1, I30): each quarantined one held, and said. */
    checkingQuarantine: {
      entry: ['findQuarantinedDigests', 'holdQuarantinedDigests'],
      always: [...toDigestAgeCheck],
    },
    /** MIN_DIGEST_AGE, ROLLOUT_RING: the digest must be old enough on this edge (§3.4a step 2, I32). */
    checkingDigestAge: {
      initial: 'choosingDigestsToAge',
      entry: 'findChangedDigests',
      states: {
        choosingDigestsToAge: {
          always: [{ guard: 'hasDigestAgeToJudge', target: 'readingPendingDigests' }, ...toPromotionCheck],
        },
        // The pending records, read fail-closed: an unreadable one never counts as old enough.
        readingPendingDigests: {
          invoke: {
            src: 'readGate',
            input: bookkeepingRead,
            onDone: {
              target: 'readingClock',
              actions: {
                type: 'rememberAgeBookkeeping',
                params: ({ event }) => ({ annotations: event.output.annotations }),
              },
            },
            onError: acting(toPromotionCheck, [
              'holdEveryChangedDigest',
              { type: 'warnPendingDigestsUnreadable', params: withPortError },
            ]),
          },
        },
        readingClock: {
          invoke: {
            src: 'readClock',
            input: () => undefined,
            onDone: {
              target: 'choosingPendingWrite',
              actions: { type: 'judgeDigestAges', params: ({ event }) => ({ nowMs: event.output }) },
            },
            onError: acting(toPromotionCheck, [
              'holdEveryChangedDigest',
              { type: 'warnClockUnavailable', params: withPortError },
            ]),
          },
        },
        // One write on the tick a digest is first seen, none while it waits.
        choosingPendingWrite: {
          always: [{ guard: 'hasPendingDigestsToWrite', target: 'writingPendingDigests' }, ...toPromotionCheck],
        },
        writingPendingDigests: {
          invoke: {
            src: 'patchBookkeeping',
            input: pendingDigestsWrite,
            onDone: acting(toPromotionCheck, { type: 'noteWrite', params: written }),
            // The digests stay held (they are young by definition); the next tick sees them first again.
            onError: acting(toPromotionCheck, { type: 'warnPendingDigestsWriteFailed', params: withPortError }),
          },
        },
      },
    },
    /**
     * FLEET_PROMOTION_REF on ring ≥ 1 (docs/fleet-promotion.md): right after
     * the soak, a changed digest goes on only when the verified promotion
     * names it for this edge's ring; otherwise it waits, spending no
     * signature or platform request. A halt's pin is never held.
     */
    checkingPromotion: {
      always: acting(toWindowCheck, 'holdUnpromotedDigests'),
    },
    /**
     * MAINTENANCE_WINDOW (§3.4d): outside every window each changed digest is
     * held until the next opens, before any signature or manifest is asked
     * about. A steady tick reads no clock; a halt's pin is never held.
     */
    checkingWindow: {
      initial: 'choosingDigestsToWindow',
      entry: 'findDigestsToWindow',
      states: {
        choosingDigestsToWindow: {
          always: [{ guard: 'hasDigestsToWindow', target: 'readingWindowClock' }, ...toSignatureCheck],
        },
        readingWindowClock: {
          invoke: {
            src: 'readClock',
            input: () => undefined,
            onDone: acting(toSignatureCheck, {
              type: 'judgeWindowAtAdmission',
              params: ({ event }: { event: { output: number } }) => ({ nowMs: event.output }),
            }),
            // Where the tick stands is unknown: nothing starts (fail closed).
            onError: acting(toSignatureCheck, { type: 'holdDigestsForUnreadWindow', params: withPortError }),
          },
        },
      },
    },
    /**
     * VERIFY_SIGNATURES: the digest's signature must verify before any pod
     * runs it (§3.4a step 3, I26). Checked before the flap back-off persists an
     * attempt: an unverified digest never spends one.
     */
    checkingSignatures: {
      initial: 'choosingSignatureSubjects',
      entry: 'findSignatureSubjects',
      states: {
        choosingSignatureSubjects: {
          always: [{ guard: 'hasSignaturesToCheckWithinBudget', target: 'verifyingSignatures' }, ...toPlatformCheck],
        },
        verifyingSignatures: {
          invoke: {
            src: 'verifySignatures',
            input: signatureTargets,
            onDone: acting(toPlatformCheck, {
              type: 'admitBySignature',
              params: ({ event }: { event: { output: SignatureAnswers } }) => ({ answers: event.output }),
            }),
            onError: acting(toPlatformCheck, { type: 'holdUncheckedSignatures', params: withPortError }),
          },
        },
      },
    },
    /**
     * PLATFORM_CHECK: the digest must provide every platform the recorded one
     * does (docs/behaviour.md §3.4a step 4), checked after the signature and
     * before the flap back-off persists an attempt: a refused digest never
     * spends one. Two manifest reads per changed digest; none on a steady tick.
     */
    checkingPlatforms: {
      initial: 'choosingPlatformSubjects',
      entry: 'findPlatformSubjects',
      states: {
        choosingPlatformSubjects: {
          always: [
            { guard: 'hasPlatformsToCheckWithinBudget', target: 'readingPlatforms' },
            { target: '#tick.comparingDigests' },
          ],
        },
        readingPlatforms: {
          invoke: {
            src: 'readPlatforms',
            input: platformTargets,
            onDone: {
              target: '#tick.comparingDigests',
              actions: { type: 'admitByPlatform', params: ({ event }) => ({ answers: event.output }) },
            },
            onError: {
              target: '#tick.comparingDigests',
              actions: { type: 'holdUncheckedPlatforms', params: withPortError },
            },
          },
        },
      },
    },
  },
});

/** Where a plan goes once it is made (and, with MAINTENANCE_WINDOW, judged by the window). */
const planRoutes = [
  // PREPULL_OUTSIDE_WINDOW=on (§3.4d): a plan the window holds is staged now, then the tick goes on without it.
  { guard: 'isStagingAheadOfWindow', target: '#tick.stagingAheadOfWindow' },
  { guard: 'hasWorkloadsToReimage', target: '#tick.flapBackoff' },
  // docs/behaviour.md §3.4c: a first observation's containers run the image it follows, or nothing is recorded.
  { guard: 'needsOwnershipCheck', target: '#tick.checkingOwnership' },
  { guard: 'hasDigestsToRecord', target: '#tick.recordingDigests' },
  { target: '#tick.complete' },
] as const;

// §3.4 Compare.
export const comparingDigests = tickSetup.createStateConfig({
  entry: 'planRefresh',
  always: [{ guard: 'needsWindowRoom', target: 'checkingWindowRoom' }, ...planRoutes],
});

/**
 * §3.4d: inside the window, the plan starts only with room left for its
 * expected duration — judged once, before the first re-image, so a started
 * plan completes (I16). Held, it is made again without what waits.
 */
export const checkingWindowRoom = tickSetup.createStateConfig({
  initial: 'readingWindowClock',
  states: {
    // Read again, not taken from the admission check: the signature and
    // platform checks between them may have taken minutes of the window.
    readingWindowClock: {
      invoke: {
        src: 'readClock',
        input: () => undefined,
        onDone: {
          target: 'judgingWindowRoom',
          actions: { type: 'rememberWindowClock', params: ({ event }) => ({ nowMs: event.output }) },
        },
        onError: { target: 'routingPlan', actions: { type: 'holdPlanForUnreadWindow', params: withPortError } },
      },
    },
    judgingWindowRoom: { entry: 'judgeWindowRoom', always: { target: 'routingPlan' } },
    routingPlan: { always: [...planRoutes] },
  },
});

/**
 * PREPULL_OUTSIDE_WINDOW=on (§3.4d, §3.5a): the plan the window holds is
 * pulled onto its nodes now, so only the switch needs the window. No
 * attempt is spent and nothing is switched or recorded for it; staging's
 * own pods come and go as in any staging.
 */
export const stagingAheadOfWindow = tickSetup.createStateConfig({
  invoke: {
    src: 'stageImages',
    input: stagingAhead,
    onDone: {
      target: 'routingAfterStagingAhead',
      actions: { type: 'judgeStagedAhead', params: ({ event }) => ({ results: event.output }) },
    },
    onError: { target: 'routingAfterStagingAhead', actions: { type: 'stagingAheadFailed', params: withPortError } },
  },
});

/** After staging ahead: where the plan (a halt's pin-back, first observations) goes on as always. */
export const routingAfterStagingAhead = tickSetup.createStateConfig({ always: [...planRoutes] });

/** The phase's steps, in the order the tick takes them. */
export const admitSteps = {
  admittingDigests,
  comparingDigests,
  checkingWindowRoom,
  stagingAheadOfWindow,
  routingAfterStagingAhead,
};
