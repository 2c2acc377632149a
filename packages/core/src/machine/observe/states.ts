import { and } from 'xstate';
import { skipStreakOf, skipStreakRemoved, skipStreakSet } from '../../domain/bookkeeping.js';
import { nextDecoupled } from '../../domain/decoupled-pass.js';
import { nextWorkloadInput, observingWorkload } from '../observing-workload.js';
import { bookkeepingRead, outcome, settleWatch, withPortError, write, written } from '../step-params.js';
import { tickSetup } from '../tick-setup.js';

// Phase 1, observe (docs/behaviour.md §3.1, §3.2): the mirror guard, the settled guard with its
// skip streak, the streak cleared on settling, and DECOUPLED_REFRESH's pass past an unsettled gate. Its steps.

// §3.1 Mirror guard: inert behind a private mirror, touching and calling nothing (I14).
export const checkingMirror = tickSetup.createStateConfig({
  entry: 'announceTick',
  always: [{ guard: 'isMirrorRegistry', target: 'mirrorInert' }, { target: 'settledGuard' }],
});

// §3.2 Settled guard. Unreadable → exit 1 (#571). Unsettled → count the skip
// fail-closed and fail at the ceiling (#1964). Settled → clear the streak.
export const settledGuard = tickSetup.createStateConfig({
  initial: 'observingGate',
  states: {
    observingGate: {
      invoke: {
        src: 'readGate',
        input: settleWatch,
        onDone: [
          {
            guard: {
              type: 'isGateSettled',
              params: ({ event }) => ({ settledness: event.output.settledness }),
            },
            target: '#tick.clearingStreakOnSettle',
            actions: { type: 'rememberGate', params: ({ event }) => ({ gate: event.output }) },
          },
          {
            target: 'readingSkipStreak',
            actions: { type: 'rememberGate', params: ({ event }) => ({ gate: event.output }) },
          },
        ],
        onError: {
          target: '#tick.deploymentUnreadable',
          actions: { type: 'reportDeploymentUnreadable', params: withPortError },
        },
      },
    },
    readingSkipStreak: {
      invoke: {
        src: 'readGate',
        input: bookkeepingRead,
        onDone: {
          target: 'writingSkipStreak',
          actions: {
            type: 'countSkip',
            params: ({ context, event }) => ({
              streak: skipStreakOf(context.config.topology, event.output.annotations),
            }),
          },
        },
        onError: {
          target: '#tick.skipStreakUncountable',
          actions: { type: 'reportSkipStreakUncountable', params: withPortError },
        },
      },
    },
    writingSkipStreak: {
      invoke: {
        src: 'patchBookkeeping',
        input: ({ context }) =>
          write('writeSkipStreak', skipStreakSet(context.config.topology, context.observe.skip.streak)),
        onDone: [
          {
            guard: and(['isAtSkipCeiling', 'isDecoupledRefreshOn']),
            target: '#tick.decoupledRefresh',
            actions: [{ type: 'noteWrite', params: written }, 'announceFrozen', 'beginDecoupledPass'],
          },
          {
            guard: 'isAtSkipCeiling',
            target: '#tick.frozen',
            actions: [{ type: 'noteWrite', params: written }, 'announceFrozen'],
          },
          {
            guard: 'isDecoupledRefreshOn',
            target: '#tick.decoupledRefresh',
            actions: [{ type: 'noteWrite', params: written }, 'announceSkip', 'beginDecoupledPass'],
          },
          { target: '#tick.skipped', actions: [{ type: 'noteWrite', params: written }, 'announceSkip'] },
        ],
        onError: {
          target: '#tick.skipStreakWriteFailed',
          actions: { type: 'reportSkipStreakWriteFailed', params: withPortError },
        },
      },
    },
  },
});

// DECOUPLED_REFRESH (docs/behaviour.md §6): the streak is counted as always; then each
// workload the profile marks `decoupled` (with something to follow) is read,
// one after another, and refreshed if it is settled itself (I24). An image
// the unsettled gate alone runs waits (#1964 "decision 1", safe subset).
export const decoupledRefresh = tickSetup.createStateConfig({
  initial: 'choosingDecoupledWorkload',
  states: {
    choosingDecoupledWorkload: {
      always: [
        { guard: 'hasDecoupledWorkloadToObserve', target: 'observingDecoupledWorkload' },
        { target: '#tick.resolvingDigests' },
      ],
    },
    observingDecoupledWorkload: observingWorkload('choosingDecoupledWorkload', {
      input: nextWorkloadInput((context) => nextDecoupled(context.config.topology, context.observe.decoupled)),
      done: 'rememberDecoupledObservation',
      failed: 'warnDecoupledUnreadable',
    }),
  },
});

// §3.2 Settled again: the streak is over. Clearing it is best effort: a
// failure is a WARNING and the tick goes on (#2007).
export const clearingStreakOnSettle = tickSetup.createStateConfig({
  initial: 'readingSkipStreak',
  states: {
    readingSkipStreak: {
      invoke: {
        src: 'readGate',
        input: bookkeepingRead,
        onDone: [
          {
            guard: {
              type: 'hasRecordedSkipStreak',
              params: ({ context, event }) => ({
                streak: skipStreakOf(context.config.topology, event.output.annotations),
              }),
            },
            target: 'clearingSkipStreak',
            actions: {
              type: 'announceSettledAgain',
              params: ({ context, event }) => ({
                streak: skipStreakOf(context.config.topology, event.output.annotations),
              }),
            },
          },
          { target: '#tick.resolvingDigests' },
        ],
        onError: {
          target: '#tick.resolvingDigests',
          actions: { type: 'warnSkipStreakUnreadable', params: withPortError },
        },
      },
    },
    clearingSkipStreak: {
      invoke: {
        src: 'patchBookkeeping',
        input: ({ context }) => write('clearSkipStreak', skipStreakRemoved(context.config.topology)),
        onDone: { target: '#tick.resolvingDigests', actions: { type: 'noteWrite', params: written } },
        onError: {
          target: '#tick.resolvingDigests',
          actions: { type: 'warnSkipStreakClearFailed', params: withPortError },
        },
      },
    },
  },
});

// How the phase can end the tick.
export const mirrorInert = tickSetup.createStateConfig({
  type: 'final',
  entry: ['announceMirrorInert', 'announceTickComplete'],
  output: outcome('mirrorInert'),
});

export const deploymentUnreadable = tickSetup.createStateConfig({
  type: 'final',
  output: outcome('deploymentUnreadable'),
});

export const skipStreakUncountable = tickSetup.createStateConfig({
  type: 'final',
  output: outcome('skipStreakUncountable'),
});

export const skipStreakWriteFailed = tickSetup.createStateConfig({
  type: 'final',
  output: outcome('skipStreakWriteFailed'),
});

export const skipped = tickSetup.createStateConfig({ type: 'final', output: outcome('skipped') });

export const frozen = tickSetup.createStateConfig({ type: 'final', output: outcome('frozen') });

/** The phase's steps, in the order the tick takes them. */
export const observeSteps = { checkingMirror, settledGuard, decoupledRefresh, clearingStreakOnSettle };

/** The final states the phase ends a tick in. */
export const observeEnds = {
  mirrorInert,
  deploymentUnreadable,
  skipStreakUncountable,
  skipStreakWriteFailed,
  skipped,
  frozen,
};
