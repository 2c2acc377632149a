import { type WorkloadId, workloadRef } from '../domain/workloads.js';
import { portErrorOf } from './tick-actors.js';
import { tickSetup } from './tick-setup.js';

// A step kind two phases share: observe's decoupled pass and resolve's live
// reconcile each read a workload as it runs now.

/**
 * A step that reads one workload as it runs now (issue 7) and moves on to
 * `next` whatever the answer: a failed read is remembered as a warning, never
 * a finding, and never stops the registry pass. Skipped where `skipIf` says
 * the workload is not image-refresh's to manage (pinned).
 */
export const observingWorkload = (
  id: WorkloadId,
  next: string,
  on: {
    readonly done: 'rememberLiveWorkload' | 'rememberDecoupledObservation';
    readonly failed: 'warnLiveUnreadable' | 'warnDecoupledUnreadable';
  },
  skipIf?: 'isRequestsProxyUnmanaged' | 'isResourceMonitorUnmanaged',
) =>
  tickSetup.createStateConfig({
    ...(skipIf === undefined ? {} : { always: { guard: skipIf, target: next } }),
    invoke: {
      src: 'observeWorkload',
      input: ({ context }) => ({ workload: workloadRef(context.config, id) }),
      onDone: { target: next, actions: { type: on.done, params: ({ event }) => ({ id, workload: event.output }) } },
      onError: {
        target: next,
        actions: { type: on.failed, params: ({ event }) => ({ id, error: portErrorOf(event) }) },
      },
    },
  });

export const DECOUPLED = { done: 'rememberDecoupledObservation', failed: 'warnDecoupledUnreadable' } as const;
export const LIVE = { done: 'rememberLiveWorkload', failed: 'warnLiveUnreadable' } as const;
