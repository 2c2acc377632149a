import { prepullOf } from '../../config/staging-config.js';
import { type Annotations, flapMarked, refreshAttemptOf, refreshAttemptSet } from '../../domain/bookkeeping.js';
import { attemptOf } from '../../domain/flap.js';
import { changeAt } from '../../domain/reimage-run.js';
import { type StagingRequest, stagingAnnouncement, stagingRequestOf } from '../../domain/staging.js';
import type { KubeEvent } from '../../ports/events-port.js';
import { clipNote } from '../kubernetes-events.js';
import { write } from '../step-params.js';
import type { InputArgs, TickContext } from '../tick-context.js';

// What the act phase's steps hand their actors, and read off their answers.

/** refresh-attempt as the bookkeeping read answered it (absent or garbage = 0, #626). */
export const attemptRead = ({
  context,
  event,
}: {
  context: TickContext;
  event: { output: { annotations: Annotations } };
}) => ({
  attempt: attemptOf(refreshAttemptOf(context.config.topology, event.output.annotations)),
});

export const flapMark = ({ context }: InputArgs) =>
  write('markFlapDetected', flapMarked(context.config.topology, context.act.attempt));

/** Persisted BEFORE any workload is touched: never re-image without it (I9). */
export const attemptPersisted = ({ context }: InputArgs) =>
  write('writeRefreshAttempt', refreshAttemptSet(context.config.topology, context.act.attempt + 1));

const currentChange = (context: TickContext) => changeAt(context.admit.plan.changes, context.act.index);

export const imagesToSet = ({ context }: InputArgs) => ({ change: currentChange(context) });

export const rolloutToAwait = ({ context }: InputArgs) => ({
  change: currentChange(context),
  timeoutMs: context.config.rolloutTimeoutMs,
});

export const stabilityToProve = ({ context }: InputArgs) => ({
  change: currentChange(context),
  stableForMs: context.config.rolloutStableForMs,
});

/** PREPULL=on: every workload of the plan, under PREPULL_TIMEOUT and PREPULL_PARALLEL (docs/behaviour.md §3.5a). */
export const stagingRequest = ({ context }: InputArgs): { request: StagingRequest } => ({
  request: stagingRequestOf(context.admit.plan, prepullOf(context.config) ?? { timeoutMs: 0, parallel: 1 }),
});

/** The RefreshStaging Event, recorded as staging starts: a long pull is visible while it lasts. */
export const stagingEvent = (args: InputArgs): { event: KubeEvent } => ({
  event: {
    type: 'Normal',
    reason: 'RefreshStaging',
    message: clipNote(stagingAnnouncement(stagingRequest(args).request)),
  },
});
