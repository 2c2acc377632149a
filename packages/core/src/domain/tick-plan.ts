import type { Topology } from '../config/profile/topology.js';
import type { TickConfig } from '../config/tick-config.js';
import { type Holds, heldImages } from './admission.js';
import type { BookkeepingChanges } from './bookkeeping.js';
import {
  type Annotations,
  pinMarkersOf,
  quarantinedDigestsOf,
  type RecordedDigests,
  recordChanges,
} from './bookkeeping.js';
import { type DecoupledPass, decoupledScopeOf } from './decoupled-pass.js';
import type { HaltScope } from './fleet-halt-admission.js';
import { liveFindings } from './live-drift.js';
import { withPendingCleared } from './pending-digest.js';
import { digestsToRecord, type ImageResolution, planRefresh, type RefreshPlan } from './plan.js';
import { isManagedWorkload, type LiveWorkload, type TopologyWorkload } from './workloads.js';

// docs/behaviour.md §3.4, once every admission check has run: the plan of
// this tick from what it resolved, read, held back and (RECONCILE_LIVE) saw
// live — and §3.8, the one write that records it.

/** What the tick saw of the live workloads (RECONCILE_LIVE): what runs now, and which images image-refresh pinned. */
export interface LiveView {
  /** How many of {@link liveWorkloads} have been read (or failed to be): the next one to read is at this index. */
  readonly asked: number;
  readonly workloads: Readonly<Record<string, LiveWorkload>>;
  /** The pin markers as read; undefined when they were not read (no live pass) or could not be. */
  readonly pins: RecordedDigests | undefined;
}

export const NOTHING_SEEN_LIVE: LiveView = { asked: 0, workloads: {}, pins: undefined };

/** The workloads the live pass reads, in the profile's order: the gate (its read is the tick's own), and every other with something to follow. */
export const liveWorkloads = (topology: Topology): readonly TopologyWorkload[] =>
  topology.workloads.filter((w) => w.id === topology.gate.id || isManagedWorkload(topology, w.id));

/** The next workload the live pass reads; undefined once every one was asked about. */
export const nextLive = (topology: Topology, live: LiveView): TopologyWorkload | undefined =>
  liveWorkloads(topology)[live.asked];

/** What a workload runs now, remembered; the next one is asked about. */
export const withLiveWorkload = (live: LiveView, id: string, workload: LiveWorkload): LiveView => ({
  ...live,
  asked: live.asked + 1,
  workloads: { ...live.workloads, [id]: workload },
});

/** A workload that could not be read is not reconciled this tick; the next one is asked about. */
export const withLiveUnread = (live: LiveView): LiveView => ({ ...live, asked: live.asked + 1 });

/** The inputs of the plan, each as the phase before left it. */
export interface TickPlanInputs {
  readonly config: TickConfig;
  readonly resolutions: readonly ImageResolution[];
  readonly recorded: RecordedDigests;
  readonly bookkeeping: Annotations;
  readonly live: LiveView;
  readonly decoupled: DecoupledPass;
  readonly holds: Holds;
  /** The fleet halt (docs/behaviour.md §3.4b): the halt in force, or none; unverified, nothing moves. */
  readonly halt: HaltScope;
  /** MAINTENANCE_WINDOW: the window holds this tick's re-images (§3.4d); a live re-pin waits too. */
  readonly windowHolds: boolean;
}

export const planTick = ({
  config,
  resolutions,
  recorded,
  bookkeeping,
  live,
  decoupled,
  holds,
  halt,
  windowHolds,
}: TickPlanInputs): RefreshPlan => {
  const scope = decoupledScopeOf(decoupled);
  // Pin markers are read only on a settled RECONCILE_LIVE tick, so their
  // presence is the live pass.
  const findings =
    live.pins === undefined
      ? []
      : liveFindings(
          config,
          recorded,
          live.pins,
          live.workloads,
          quarantinedDigestsOf(config.topology, bookkeeping),
          halt.inForce,
        );
  const seen = { ...decoupled.workloads, ...live.workloads };
  return planRefresh(config, resolutions, recorded, {
    live: findings,
    // An unverified fleet halt: no re-image of any kind, live re-pins included (I37).
    // Outside the maintenance window a live re-pin waits as a re-image does (§3.4d).
    repairLive: config.reconcileLive === 'repair' && !halt.stopsEveryReimage && !windowHolds,
    markPins: config.reconcileLive !== 'off',
    markedBefore: pinMarkersOf(config.topology, bookkeeping),
    liveImages: Object.fromEntries(Object.entries(seen).map(([id, w]) => [id, w.images])),
    ...(scope === undefined ? {} : { decoupled: { settled: new Set(scope) } }),
    held: heldImages(holds),
  });
};

/**
 * The annotations the record write sets: first observations, drift on the
 * success path, and pin markers — and removes: the pending record of a
 * digest it records (§3.4a step 2; none with the defaults).
 */
export const recordWriteOf = (topology: Topology, plan: RefreshPlan, bookkeeping: Annotations): BookkeepingChanges =>
  withPendingCleared(topology, recordChanges(topology, digestsToRecord(plan), plan.pins), bookkeeping);

/** §3.4 — first observations are recorded without a re-image (I8); a plan may have nothing to record. */
export const hasDigestsToRecord = (topology: Topology, plan: RefreshPlan, bookkeeping: Annotations): boolean =>
  Object.keys(recordWriteOf(topology, plan, bookkeeping)).length > 0;
