import type { Topology } from '../config/profile/topology.js';
import { isManagedWorkload, type LiveWorkload, type TopologyWorkload } from './workloads.js';

// DECOUPLED_REFRESH (docs/behaviour.md §6): past an unsettled gate, the workloads the
// profile marks `decoupled` are refreshed if they are settled themselves
// (I24); an image the gate alone runs waits (#1964 "decision 1").

/** Whether the pass runs this tick, how many of its workloads it asked about, those settled themselves, and what they run now. */
export interface DecoupledPass {
  readonly begun: boolean;
  /** How many of {@link decoupledWorkloads} have been read (or failed to be): the next one to read is at this index. */
  readonly asked: number;
  readonly settled: readonly string[];
  readonly workloads: Readonly<Record<string, LiveWorkload>>;
}

/** A settled tick, or an unsettled one without DECOUPLED_REFRESH: no pass. */
export const NO_DECOUPLED_PASS: DecoupledPass = { begun: false, asked: 0, settled: [], workloads: {} };

export const DECOUPLED_PASS_BEGUN: DecoupledPass = { begun: true, asked: 0, settled: [], workloads: {} };

/** The workloads a decoupled pass reads, in the profile's order: decoupled, with something to follow. */
export const decoupledWorkloads = (topology: Topology): readonly TopologyWorkload[] =>
  topology.workloads.filter((w) => w.decoupled && isManagedWorkload(topology, w.id));

/** The next workload the pass reads; undefined once every one was asked about. */
export const nextDecoupled = (topology: Topology, pass: DecoupledPass): TopologyWorkload | undefined =>
  decoupledWorkloads(topology)[pass.asked];

/** A decoupled workload is refreshed only if it is settled itself (I24); one that is not stays out of the pass. */
export const withDecoupledObservation = (pass: DecoupledPass, id: string, workload: LiveWorkload): DecoupledPass =>
  workload.settledness._tag === 'Settled'
    ? {
        ...pass,
        asked: pass.asked + 1,
        settled: [...pass.settled, id],
        workloads: { ...pass.workloads, [id]: workload },
      }
    : { ...pass, asked: pass.asked + 1 };

/** A decoupled workload that could not be read stays out of the pass; the next one is asked about. */
export const withDecoupledUnread = (pass: DecoupledPass): DecoupledPass => ({ ...pass, asked: pass.asked + 1 });

/** The workloads a decoupled pass may refresh, or undefined on a tick without one (everything may). */
export const decoupledScopeOf = (pass: DecoupledPass): readonly string[] | undefined =>
  pass.begun ? pass.settled : undefined;
