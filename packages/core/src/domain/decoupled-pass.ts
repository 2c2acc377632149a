import type { LiveWorkload, WorkloadId } from './workloads.js';

// DECOUPLED_REFRESH (issue 7): past an unsettled jobs-manager, requests-proxy
// and resource-monitor are refreshed if they are settled themselves (I24);
// pods-monitor, a sidecar of jobs-manager, waits (#1964 "decision 1").

/** Whether the pass runs this tick, the workloads settled themselves, and what they run now. */
export interface DecoupledPass {
  readonly begun: boolean;
  readonly settled: readonly WorkloadId[];
  readonly workloads: Readonly<Partial<Record<WorkloadId, LiveWorkload>>>;
}

/** A settled tick, or an unsettled one without DECOUPLED_REFRESH: no pass. */
export const NO_DECOUPLED_PASS: DecoupledPass = { begun: false, settled: [], workloads: {} };

export const DECOUPLED_PASS_BEGUN: DecoupledPass = { begun: true, settled: [], workloads: {} };

/** A decoupled workload is refreshed only if it is settled itself (I24); one that is not stays out of the pass. */
export const withDecoupledObservation = (pass: DecoupledPass, id: WorkloadId, workload: LiveWorkload): DecoupledPass =>
  workload.settledness._tag === 'Settled'
    ? { ...pass, settled: [...pass.settled, id], workloads: { ...pass.workloads, [id]: workload } }
    : pass;

/** The workloads a decoupled pass may refresh, or undefined on a tick without one (everything may). */
export const decoupledScopeOf = (pass: DecoupledPass): readonly WorkloadId[] | undefined =>
  pass.begun ? pass.settled : undefined;
