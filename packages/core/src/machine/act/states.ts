import { bookkeepingRead, outcome, withPortError, written } from '../step-params.js';
import { rolloutErrorOf } from '../tick-actors.js';
import { tickSetup } from '../tick-setup.js';
import {
  attemptPersisted,
  attemptRead,
  flapMark,
  imagesToSet,
  rolloutToAwait,
  stabilityToProve,
  stagingEvent,
  stagingRequest,
} from './inputs.js';

// Phase 4, act (docs/behaviour.md §3.5, §3.5a, §3.6): the flap back-off, the pull budget,
// (PREPULL) the staging, and the re-image of each workload with its rollout wait (and
// ROLLOUT_STABLE_FOR). Its steps.

/** A rollout that counts (completed, and stayed so for ROLLOUT_STABLE_FOR): on to the next workload, or the success reset. */
const rolloutCounted = [
  {
    guard: 'hasMoreWorkloads',
    target: 'settingImages',
    actions: ['noteRolloutComplete', 'advanceToNextWorkload'],
  },
  {
    guard: 'hasEarlierFailuresToKeep',
    target: '#tick.keepingEarlierAttempts',
    actions: ['noteRolloutComplete', 'announceReimageComplete'],
  },
  { target: '#tick.successReset', actions: ['noteRolloutComplete', 'announceReimageComplete'] },
] as const;

// §3.5 Flap back-off (#563, #626). The lockout is decided before the pull
// budget: a tick in lockout with drift pending is the lockout finding
// (exit 1 under FLAP_LOCKOUT_EXIT=1) whatever the budget — a deferral
// checked first hid it behind exit 0 `complete` (I10, I18).
export const flapBackoff = tickSetup.createStateConfig({
  initial: 'readingRefreshAttempt',
  states: {
    readingRefreshAttempt: {
      invoke: {
        src: 'readGate',
        input: bookkeepingRead,
        onDone: [
          {
            guard: {
              type: 'isFlapLockedOut',
              params: attemptRead,
            },
            target: 'markingFlapDetected',
            actions: {
              type: 'rememberAttempt',
              params: attemptRead,
            },
          },
          // docs/behaviour.md §3.4c: past the lockout, the containers to set must run the image they follow.
          {
            guard: 'needsOwnershipCheck',
            target: '#tick.checkingOwnership',
            actions: {
              type: 'rememberAttempt',
              params: attemptRead,
            },
          },
          {
            target: 'checkingRegistryBudget',
            actions: {
              type: 'rememberAttempt',
              params: attemptRead,
            },
          },
        ],
        // Fail-closed, safe branch: no re-image, exit 0, retry next tick (I11).
        onError: {
          target: '#tick.attemptUnreadable',
          actions: { type: 'warnAttemptUnreadable', params: withPortError },
        },
      },
    },
    markingFlapDetected: {
      invoke: {
        src: 'patchBookkeeping',
        input: flapMark,
        onDone: {
          target: '#tick.flapLockout',
          actions: [{ type: 'noteWrite', params: written }, 'announceFlapDetected'],
        },
        onError: {
          target: '#tick.flapMarkFailed',
          actions: { type: 'reportFlapMarkFailed', params: withPortError },
        },
      },
    },
    // Before a re-image: is there pull budget left for the kubelets? (I7b)
    checkingRegistryBudget: {
      always: [
        { guard: 'isRegistryBudgetLow', target: '#tick.deferringReimage' },
        { guard: 'isPrepullOff', target: 'persistingAttempt' },
        { target: '#tick.stagingImages' },
      ],
    },
    // Persisted BEFORE any workload is touched: never re-image without it (I9).
    persistingAttempt: {
      invoke: {
        src: 'patchBookkeeping',
        input: attemptPersisted,
        onDone: [
          {
            guard: 'isRevertOn',
            target: '#tick.reimaging',
            actions: [{ type: 'noteWrite', params: written }, 'announceReimaging', 'announceRevertReady'],
          },
          { target: '#tick.reimaging', actions: [{ type: 'noteWrite', params: written }, 'announceReimaging'] },
        ],
        onError: {
          target: '#tick.attemptWriteFailed',
          actions: { type: 'reportAttemptWriteFailed', params: withPortError },
        },
      },
    },
  },
});

// §3.5a PREPULL: the plan's new images are pulled onto the nodes of each
// workload before anything is switched — after the lockout and the pull
// budget are decided, and before the attempt is persisted, so a staging
// failure holds its images back and spends no attempt (I41). Only a workload
// staged on every node is switched (I40); I9 holds: every set image still
// follows the attempt write of its tick.
export const stagingImages = tickSetup.createStateConfig({
  initial: 'recordingStagingEvent',
  entry: 'announceStagingStarts',
  states: {
    // Recorded now, not after the tick: a 20-minute pull is visible while it lasts. It can change nothing (I18b).
    recordingStagingEvent: {
      always: { guard: 'areKubernetesEventsOff', target: 'pullingOntoNodes' },
      invoke: {
        src: 'recordStagingEvent',
        input: stagingEvent,
        onDone: { target: 'pullingOntoNodes' },
        onError: {
          target: 'pullingOntoNodes',
          actions: { type: 'warnStagingEventNotRecorded', params: withPortError },
        },
      },
    },
    pullingOntoNodes: {
      invoke: {
        src: 'stageImages',
        input: stagingRequest,
        onDone: {
          target: 'switchingStaged',
          actions: { type: 'judgeStaging', params: ({ event }) => ({ results: event.output }) },
        },
        onError: { target: 'switchingStaged', actions: { type: 'holdUnstaged', params: withPortError } },
      },
    },
    // What was staged on every node goes on to the attempt write; what was not waits for the next tick.
    switchingStaged: {
      always: [
        { guard: 'hasWorkloadsToReimage', target: '#tick.flapBackoff.persistingAttempt' },
        { guard: 'hasDigestsToRecord', target: '#tick.recordingDigests' },
        { target: '#tick.complete' },
      ],
    },
  },
});

// Drift held back for a later tick (I7b); reached only when not in flap lockout.
export const deferringReimage = tickSetup.createStateConfig({
  entry: ['warnRegistryBudgetLow', 'setDriftAside'],
  always: [{ guard: 'hasDigestsToRecord', target: 'recordingDigests' }, { target: 'complete' }],
});

// §3.6 Re-image each workload in order, each followed by its rollout wait.
export const reimaging = tickSetup.createStateConfig({
  initial: 'settingImages',
  states: {
    settingImages: {
      invoke: {
        src: 'setImages',
        input: imagesToSet,
        // Announced once the port says it changed something: a patch it did not send is no re-image.
        onDone: [
          {
            guard: { type: 'wasAlreadyOnTarget', params: ({ event }) => ({ changed: event.output.changed }) },
            target: 'awaitingRollout',
            actions: 'announceAlreadyOnTarget',
          },
          { target: 'awaitingRollout', actions: ['announceSetImage', 'noteImagesSet'] },
        ],
        onError: [
          {
            guard: 'isRevertOn',
            target: '#tick.revertingRollout',
            actions: { type: 'reportSetImageFailed', params: withPortError },
          },
          { target: '#tick.reimageFailed', actions: { type: 'reportSetImageFailed', params: withPortError } },
        ],
      },
    },
    awaitingRollout: {
      invoke: {
        src: 'waitForRollout',
        input: rolloutToAwait,
        onDone: [
          { guard: 'hasStabilityWindow', target: 'provingStability', actions: 'announceStabilityWatch' },
          { guard: 'isTimingRollouts', target: 'timingRollout' },
          ...rolloutCounted,
        ],
        onError: [
          {
            guard: 'isRevertOn',
            target: '#tick.revertingRollout',
            actions: { type: 'reportRolloutFailed', params: ({ event }) => ({ error: rolloutErrorOf(event) }) },
          },
          {
            target: '#tick.reimageFailed',
            actions: { type: 'reportRolloutFailed', params: ({ event }) => ({ error: rolloutErrorOf(event) }) },
          },
        ],
      },
    },
    // ROLLOUT_STABLE_FOR: complete is not yet counted; falling
    // apart inside the window is a failed rollout (docs/behaviour.md §3.6).
    provingStability: {
      invoke: {
        src: 'watchStability',
        input: stabilityToProve,
        onDone: [{ guard: 'isTimingRollouts', target: 'timingRollout' }, ...rolloutCounted],
        onError: [
          {
            guard: 'isRevertOn',
            target: '#tick.revertingRollout',
            actions: { type: 'reportFellApart', params: ({ event }) => ({ error: rolloutErrorOf(event) }) },
          },
          {
            target: '#tick.reimageFailed',
            actions: { type: 'reportFellApart', params: ({ event }) => ({ error: rolloutErrorOf(event) }) },
          },
        ],
      },
    },
    // MAINTENANCE_WINDOW (docs/behaviour.md §3.4d): how long this rollout took
    // here, from the last one's end (the first's from the window's clock: the
    // plan's staging and attempt write count in it), for the record write.
    timingRollout: {
      invoke: {
        src: 'readClock',
        input: () => undefined,
        onDone: rolloutCounted.map((t) => ({
          ...t,
          actions: [
            {
              type: 'noteRolloutDuration' as const,
              params: ({ event }: { event: { output: number } }) => ({ nowMs: event.output }),
            },
            ...t.actions,
          ],
        })),
        onError: rolloutCounted.map((t) => ({
          ...t,
          actions: [{ type: 'warnRolloutUntimed' as const, params: withPortError }, ...t.actions],
        })),
      },
    },
  },
});

// How the phase can end the tick.
export const attemptUnreadable = tickSetup.createStateConfig({
  type: 'final',
  entry: 'announceTickComplete',
  output: outcome('attemptUnreadable'),
});

export const flapLockout = tickSetup.createStateConfig({
  type: 'final',
  entry: 'announceTickComplete',
  output: outcome('flapLockout'),
});

export const flapMarkFailed = tickSetup.createStateConfig({ type: 'final', output: outcome('flapMarkFailed') });

export const attemptWriteFailed = tickSetup.createStateConfig({ type: 'final', output: outcome('attemptWriteFailed') });

export const reimageFailed = tickSetup.createStateConfig({ type: 'final', output: outcome('reimageFailed') });

/** The phase's steps, in the order the tick takes them. */
export const actSteps = { flapBackoff, stagingImages, deferringReimage, reimaging };

/** The final states the phase ends a tick in. */
export const actEnds = { attemptUnreadable, flapLockout, flapMarkFailed, attemptWriteFailed, reimageFailed };
