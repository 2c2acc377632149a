import {
  type Annotations,
  pinMarkersOf,
  resolveFailureStreakRemoved,
  resolveFailureStreakSet,
} from '../../domain/bookkeeping.js';
import { nextLive } from '../../domain/tick-plan.js';
import { toFleetHalt } from '../fleet-routes.js';
import { nextWorkloadInput, observingWorkload } from '../observing-workload.js';
import { acting, bookkeepingRead, outcome, withPortError, write, written } from '../step-params.js';
import type { TickContext } from '../tick-context.js';
import { tickSetup } from '../tick-setup.js';
import { digestRequests, jitterWait, mirrorRequests } from './inputs.js';

/** The streak a silent tick writes (judgeRegistrySilence decided it on the way in). */
const silentStreak = (context: TickContext): number =>
  context.resolve.silence._tag === 'Silent' ? context.resolve.silence.streak : 0;

// Phase 2, resolve (docs/behaviour.md §3.3, §5): START_JITTER, the registry, the recorded digests
// read fail-closed, and RECONCILE_LIVE's look at what runs now. Its steps.

// §3.3 Resolve every unpinned image; a failure skips that image only (I13, I15, I19).
// START_JITTER: first this edge's own delay, then the registry.
export const resolvingDigests = tickSetup.createStateConfig({
  initial: 'decidingStartJitter',
  states: {
    // Said on the way in, not on entry: with no jitter nothing is said (an entry action would be).
    decidingStartJitter: {
      always: [
        { guard: 'hasNoStartJitter', target: 'requestingDigests' },
        { target: 'waitingStartJitter', actions: 'announceStartJitter' },
      ],
    },
    waitingStartJitter: {
      invoke: {
        src: 'waitStartJitter',
        input: jitterWait,
        onDone: { target: 'requestingDigests' },
        // Not a security decision: a wait that failed only spreads the fleet less.
        onError: { target: 'requestingDigests', actions: { type: 'warnStartJitterFailed', params: withPortError } },
      },
    },
    requestingDigests: {
      invoke: {
        src: 'resolveDigests',
        input: digestRequests,
        onDone: [
          // MIRROR_MODE=follow-upstream: a changed digest is asked of the mirror before anything is judged.
          {
            guard: 'followsUpstreamThroughMirror',
            target: '#tick.askingMirror',
            actions: [
              { type: 'acceptResolutions', params: ({ event }) => ({ answers: event.output }) },
              'findMirrorQuestions',
            ],
          },
          // The common tick: every image answered and no streak was held — nothing to count,
          // no step spent judging it (README.md, Benchmarks).
          {
            guard: { type: 'leavesResolveFailureStreakAlone', params: ({ event }) => ({ answers: event.output }) },
            target: '#tick.readingRecordedDigests',
            actions: { type: 'acceptResolutions', params: ({ event }) => ({ answers: event.output }) },
          },
          {
            target: '#tick.countingRegistrySilence',
            actions: { type: 'acceptResolutions', params: ({ event }) => ({ answers: event.output }) },
          },
        ],
        // The port promises one answer per repo; a batch failing as a whole is a
        // defect of the port and leaves every image unresolved.
        onError: {
          target: '#tick.countingRegistrySilence',
          actions: { type: 'failAllResolutions', params: withPortError },
        },
      },
    },
  },
});

// §3.3 Follow upstream, pull through the mirror (MIRROR_MODE=follow-upstream):
// each digest that changed is asked of the mirror by digest — which makes a
// pull-through cache fetch it — and one it has not served as it is leaves its
// image unresolved this tick, counted on the streak below. A steady tick asks
// nothing: the step passes at once.
export const askingMirror = tickSetup.createStateConfig({
  always: { guard: 'hasNoMirrorQuestions', target: 'countingRegistrySilence' },
  invoke: {
    src: 'resolveDigests',
    input: mirrorRequests,
    onDone: {
      target: 'countingRegistrySilence',
      actions: { type: 'acceptMirrorAnswers', params: ({ event }) => ({ answers: event.output }) },
    },
    // The port promises one answer per request: a batch failing as a whole is a miss of each (fail closed).
    onError: { target: 'countingRegistrySilence', actions: { type: 'failMirrorAnswers', params: withPortError } },
  },
});

// §3.3 A registry that never answers is a finding (I46): the streak counted
// from the gate's own read, REGISTRY UNREACHABLE at MAX_RESOLVE_FAILURE_TICKS,
// removed once every image answers. Counting is the guard's own bookkeeping:
// a failed write fails the tick (an uncounted silence is how it hides);
// removing is best effort, as the skip streak's (I6).
export const countingRegistrySilence = tickSetup.createStateConfig({
  initial: 'judgingRegistrySilence',
  states: {
    judgingRegistrySilence: {
      entry: 'judgeRegistrySilence',
      always: [
        { guard: 'hasRegistrySilenceToCount', target: 'writingResolveFailureStreak' },
        { guard: 'hasResolveFailureStreakToClear', target: 'clearingResolveFailureStreak' },
        { target: '#tick.readingRecordedDigests' },
      ],
    },
    writingResolveFailureStreak: {
      invoke: {
        src: 'patchBookkeeping',
        input: ({ context }) =>
          write('writeResolveFailureStreak', resolveFailureStreakSet(context.config.topology, silentStreak(context))),
        onDone: {
          target: '#tick.readingRecordedDigests',
          actions: [{ type: 'noteWrite', params: written }, 'announceRegistrySilence'],
        },
        onError: {
          target: '#tick.resolveFailureStreakWriteFailed',
          actions: { type: 'reportResolveFailureStreakWriteFailed', params: withPortError },
        },
      },
    },
    clearingResolveFailureStreak: {
      invoke: {
        src: 'patchBookkeeping',
        input: ({ context }) =>
          write('clearResolveFailureStreak', resolveFailureStreakRemoved(context.config.topology)),
        onDone: {
          target: '#tick.readingRecordedDigests',
          actions: [{ type: 'noteWrite', params: written }, 'announceRegistryAnswering'],
        },
        onError: {
          target: '#tick.readingRecordedDigests',
          actions: { type: 'warnResolveFailureStreakClearFailed', params: withPortError },
        },
      },
    },
  },
});

// §5: recorded digests are read fail-closed — unreadable is never "first observation".
// With FLEET_HALT_REF set the halt is judged even when no image resolved (§3.4b): it is said every tick.
export const readingRecordedDigests = tickSetup.createStateConfig({
  always: { guard: 'hasNothingToJudge', target: 'complete' },
  invoke: {
    src: 'readGate',
    input: bookkeepingRead,
    onDone: [
      {
        guard: 'isNothingResolved',
        target: 'judgingFleetHalt',
        actions: {
          type: 'rememberRecorded',
          params: ({ event }) => ({ annotations: event.output.annotations }),
        },
      },
      {
        guard: 'isLiveReconcileOn',
        target: 'reconcilingLive',
        actions: {
          type: 'rememberRecorded',
          params: ({ event }) => ({ annotations: event.output.annotations }),
        },
      },
      ...acting(toFleetHalt, {
        type: 'rememberRecorded',
        params: ({ event }: { event: { output: { annotations: Annotations } } }) => ({
          annotations: event.output.annotations,
        }),
      }),
    ],
    onError: {
      target: 'recordedDigestsUnreadable',
      actions: { type: 'warnRecordedDigestsUnreadable', params: withPortError },
    },
  },
});

// RECONCILE_LIVE (docs/behaviour.md §6, I23): what runs now, against what was
// pinned. Reads that fail leave that workload (or, without pin markers, the
// whole live pass) out of this tick; the registry pass goes on.
export const reconcilingLive = tickSetup.createStateConfig({
  initial: 'readingPinMarkers',
  states: {
    readingPinMarkers: {
      invoke: {
        src: 'readGate',
        input: bookkeepingRead,
        onDone: {
          target: 'choosingLiveWorkload',
          actions: {
            type: 'rememberPinMarkers',
            params: ({ context, event }) => ({ pins: pinMarkersOf(context.config.topology, event.output.annotations) }),
          },
        },
        onError: acting(toFleetHalt, { type: 'warnPinMarkersUnreadable', params: withPortError }),
      },
    },
    // The gate, then every other workload with something to follow, one after another.
    choosingLiveWorkload: {
      always: [{ guard: 'hasLiveWorkloadToObserve', target: 'observingLiveWorkload' }, ...toFleetHalt],
    },
    observingLiveWorkload: observingWorkload('choosingLiveWorkload', {
      input: nextWorkloadInput((context) => nextLive(context.config.topology, context.resolve.live)),
      done: 'rememberLiveWorkload',
      failed: 'warnLiveUnreadable',
    }),
  },
});

// How the phase can end the tick.
export const resolveFailureStreakWriteFailed = tickSetup.createStateConfig({
  type: 'final',
  output: outcome('resolveFailureStreakWriteFailed'),
});

export const recordedDigestsUnreadable = tickSetup.createStateConfig({
  type: 'final',
  entry: 'announceTickComplete',
  output: outcome('recordedDigestsUnreadable'),
});

/** The phase's steps, in the order the tick takes them. */
export const resolveSteps = {
  resolvingDigests,
  askingMirror,
  countingRegistrySilence,
  readingRecordedDigests,
  reconcilingLive,
};

/** The final states the phase ends a tick in. */
export const resolveEnds = { resolveFailureStreakWriteFailed, recordedDigestsUnreadable };
