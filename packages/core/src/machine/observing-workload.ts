import type { TopologyWorkload, WorkloadRef } from '../domain/workloads.js';
import { portErrorOf } from './tick-actors.js';
import type { InputArgs, TickContext } from './tick-context.js';
import { tickSetup } from './tick-setup.js';

// A step kind two phases share: observe's decoupled pass and resolve's live
// reconcile each read the workloads of their list, one after another, as
// they run now. A choosing state picks the next one (or leaves); an
// observing state reads it and returns to the choosing state whatever the
// answer: a failed read is remembered as a warning, never a finding, and
// never stops the registry pass.

/** What a workload read hands the port: the workload alone, by identity. */
const refOf = ({ id, kind, name, namespace }: WorkloadRef): { workload: WorkloadRef } => ({
  workload: { id, kind, name, namespace },
});

/** The list's next workload; the choosing state's guard made sure there is one. */
export const nextWorkloadInput =
  (next: (context: TickContext) => TopologyWorkload | undefined) =>
  ({ context }: InputArgs): { workload: WorkloadRef } => {
    const workload = next(context);
    if (workload === undefined) throw new RangeError('no workload left to observe');
    return refOf(workload);
  };

/** The reading half of the loop: observe the next workload, remember it (or warn), back to `choosing`. */
export const observingWorkload = (
  choosing: string,
  on: {
    readonly input: ReturnType<typeof nextWorkloadInput>;
    readonly done: 'rememberLiveWorkload' | 'rememberDecoupledObservation';
    readonly failed: 'warnLiveUnreadable' | 'warnDecoupledUnreadable';
  },
) =>
  tickSetup.createStateConfig({
    invoke: {
      src: 'observeWorkload',
      input: on.input,
      onDone: { target: choosing, actions: { type: on.done, params: ({ event }) => ({ workload: event.output }) } },
      onError: {
        target: choosing,
        actions: { type: on.failed, params: ({ event }) => ({ error: portErrorOf(event) }) },
      },
    },
  });
