import { flapStateRemoved } from '../../domain/bookkeeping.js';
import { outcome, withPortError, write, written } from '../step-params.js';
import { tickSetup } from '../tick-setup.js';
import { attemptKept, digestRecord } from './inputs.js';

// Phase 6, record (docs/behaviour.md §3.7, §3.8): the success reset, its decoupled variant that
// keeps earlier attempts, and the one digest record; the tick's end. Its steps.

// §3.7 Success reset, in a write of its own before the record (I12, #626).
// Its failure is a finding, but the rollouts did complete, so the record
// still happens (I7) and the next tick does not re-image for nothing. A
// re-image that moved nothing recordable (a live re-pin back to the
// recorded digest) has no record to write: no empty write is reported.
export const successReset = tickSetup.createStateConfig({
  invoke: {
    src: 'patchBookkeeping',
    input: ({ context }) => write('clearFlapState', flapStateRemoved(context.config.topology)),
    onDone: [
      { guard: 'hasDigestsToRecord', target: 'recordingDigests', actions: { type: 'noteWrite', params: written } },
      { target: 'complete', actions: { type: 'noteWrite', params: written } },
    ],
    onError: [
      {
        guard: 'hasDigestsToRecord',
        target: 'recordingDigests',
        actions: { type: 'reportSuccessResetFailed', params: withPortError },
      },
      { target: 'complete', actions: { type: 'reportSuccessResetFailed', params: withPortError } },
    ],
  },
});

// The success reset of a decoupled pass over earlier failures (the flap
// counter keeps its meaning, I25): refresh-attempt goes back to the
// count it found, so a gate that fails, crash-loops, fails again
// still reaches the lockout. A failed write is a finding; the rollouts did
// complete, so the record still happens (I7).
export const keepingEarlierAttempts = tickSetup.createStateConfig({
  invoke: {
    src: 'patchBookkeeping',
    input: attemptKept,
    onDone: [
      {
        guard: 'hasDigestsToRecord',
        target: 'recordingDigests',
        actions: [{ type: 'noteWrite', params: written }, 'announceAttemptKept'],
      },
      { target: 'complete', actions: [{ type: 'noteWrite', params: written }, 'announceAttemptKept'] },
    ],
    onError: [
      {
        guard: 'hasDigestsToRecord',
        target: 'recordingDigests',
        actions: { type: 'reportAttemptKeepFailed', params: withPortError },
      },
      { target: 'complete', actions: { type: 'reportAttemptKeepFailed', params: withPortError } },
    ],
  },
});

// §3.8 Record every new and first-observed digest in one write. With
// PUSHGATEWAY_URL set, each with the time it was recorded, read from the
// clock first (docs/fleet-promotion.md); a clock that cannot be read leaves
// the times out (a WARN) and the record still happens.
export const recordingDigests = tickSetup.createStateConfig({
  entry: 'announceRecording',
  initial: 'decidingRecordTimes',
  states: {
    decidingRecordTimes: {
      always: [{ guard: 'recordsTimes', target: 'readingRecordClock' }, { target: 'writingRecord' }],
    },
    readingRecordClock: {
      invoke: {
        src: 'readClock',
        input: () => undefined,
        onDone: {
          target: 'writingRecord',
          actions: { type: 'rememberRecordTime', params: ({ event }) => ({ nowMs: event.output }) },
        },
        onError: { target: 'writingRecord', actions: { type: 'warnRecordTimeUnread', params: withPortError } },
      },
    },
    writingRecord: {
      invoke: {
        src: 'patchBookkeeping',
        input: digestRecord,
        onDone: { target: '#tick.complete', actions: { type: 'noteWrite', params: written } },
        onError: { target: '#tick.recordFailed', actions: { type: 'reportRecordFailed', params: withPortError } },
      },
    },
  },
});

// How the phase can end the tick.
export const recordFailed = tickSetup.createStateConfig({ type: 'final', output: outcome('recordFailed') });

export const complete = tickSetup.createStateConfig({
  type: 'final',
  entry: 'announceTickComplete',
  output: outcome('complete'),
});

/** The phase's steps, in the order the tick takes them. */
export const recordSteps = { successReset, keepingEarlierAttempts, recordingDigests };

/** The final states the phase ends a tick in. */
export const recordEnds = { recordFailed, complete };
