import { outcome, withPortError, written } from '../step-params.js';
import { portErrorOf, rolloutErrorOf } from '../tick-actors.js';
import { tickSetup } from '../tick-setup.js';
import { quarantineWrite, revertImagesToSet, revertRolloutToAwait } from './inputs.js';

// Phase 5, the way back (ON_ROLLOUT_FAILURE=revert; docs/behaviour.md §3.6): a failed
// re-image rolled back to the recorded digests, and the failed digest quarantined. Its steps.

// §3.6 The way back (ON_ROLLOUT_FAILURE=revert): every
// container moved so far goes back to its recorded digest as a digest
// reference, each rollout waited for (ROLLOUT_TIMEOUT); then the failed
// digest is quarantined. refresh-attempt stays as persisted before the
// re-image and nothing is recorded (I7, I29). A rollback that fails
// touches nothing more: ROLLBACK FAILED.
export const revertingRollout = tickSetup.createStateConfig({
  // Decided once, on the way in: every guard and line of the way back reads it.
  entry: 'planRevert',
  initial: 'planningRevert',
  states: {
    planningRevert: {
      always: [
        { guard: 'hasNoRecordToRevertTo', target: '#tick.rollbackFailed', actions: 'reportRollbackImpossible' },
        { guard: 'hasNothingToRollBack', target: '#tick.reimageFailed' },
        { target: 'settingRevertImages', actions: 'beginRevert' },
      ],
    },
    settingRevertImages: {
      entry: 'announceRollingBack',
      invoke: {
        src: 'setImages',
        input: revertImagesToSet,
        onDone: { target: 'awaitingRevertRollout', actions: 'noteRevertSet' },
        onError: {
          target: '#tick.rollbackFailed',
          actions: { type: 'reportRollbackFailed', params: ({ event }) => ({ error: portErrorOf(event) }) },
        },
      },
    },
    awaitingRevertRollout: {
      invoke: {
        src: 'waitForRollout',
        input: revertRolloutToAwait,
        onDone: [
          {
            guard: 'hasMoreReverts',
            target: 'settingRevertImages',
            actions: ['noteRevertComplete', 'advanceToNextRevert'],
          },
          {
            guard: 'hasDigestToQuarantine',
            target: 'quarantiningDigests',
            actions: ['noteRevertComplete', 'announceRolledBack'],
          },
          { target: '#tick.rolledBack', actions: ['noteRevertComplete', 'announceRolledBack'] },
        ],
        onError: {
          target: '#tick.rollbackFailed',
          actions: { type: 'reportRollbackFailed', params: ({ event }) => ({ error: rolloutErrorOf(event) }) },
        },
      },
    },
    quarantiningDigests: {
      invoke: {
        src: 'patchBookkeeping',
        input: quarantineWrite,
        onDone: {
          target: '#tick.rolledBack',
          actions: [{ type: 'noteWrite', params: written }, 'announceQuarantineStarted'],
        },
        onError: {
          target: '#tick.rolledBack',
          actions: { type: 'reportQuarantineWriteFailed', params: withPortError },
        },
      },
    },
  },
});

// How the phase can end the tick.
export const rolledBack = tickSetup.createStateConfig({ type: 'final', output: outcome('rolledBack') });

export const rollbackFailed = tickSetup.createStateConfig({ type: 'final', output: outcome('rollbackFailed') });

/** The phase's steps, in the order the tick takes them. */
export const wayBackSteps = { revertingRollout };

/** The final states the phase ends a tick in. */
export const wayBackEnds = { rolledBack, rollbackFailed };
