import type { TickConfig } from '../config/tick-config.js';
import { type Holds, heldImages } from './admission.js';
import type { BookkeepingChanges } from './bookkeeping.js';
import { type Annotations, quarantinedDigestsOf, type RecordedDigests, recordChanges } from './bookkeeping.js';
import { type DecoupledPass, decoupledScopeOf } from './decoupled-pass.js';
import type { HaltScope } from './fleet-halt-admission.js';
import { liveFindings } from './live-drift.js';
import { withPendingCleared } from './pending-digest.js';
import { digestsToRecord, type ImageResolution, planRefresh, type RefreshPlan } from './plan.js';
import type { LiveWorkload, WorkloadId } from './workloads.js';

// docs/behaviour.md §3.4, once every admission check has run: the plan of
// this tick from what it resolved, read, held back and (RECONCILE_LIVE) saw
// live — and §3.8, the one write that records it.

/** What the tick saw of the live workloads (RECONCILE_LIVE): what runs now, and which images image-refresh pinned. */
export interface LiveView {
  readonly workloads: Readonly<Partial<Record<WorkloadId, LiveWorkload>>>;
  /** The pin markers as read; undefined when they were not read (no live pass) or could not be. */
  readonly pins: RecordedDigests | undefined;
}

export const NOTHING_SEEN_LIVE: LiveView = { workloads: {}, pins: undefined };

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
}: TickPlanInputs): RefreshPlan => {
  const scope = decoupledScopeOf(decoupled);
  // Pin markers are read only on a settled RECONCILE_LIVE tick, so their
  // presence is the live pass (issue 7).
  const findings =
    live.pins === undefined
      ? []
      : liveFindings(config, recorded, live.pins, live.workloads, quarantinedDigestsOf(bookkeeping), halt.inForce);
  const seen = { ...decoupled.workloads, ...live.workloads };
  return planRefresh(config, resolutions, recorded, {
    live: findings,
    // An unverified fleet halt: no re-image of any kind, live re-pins included (I37).
    repairLive: config.reconcileLive === 'repair' && !halt.stopsEveryReimage,
    markPins: config.reconcileLive !== 'off',
    liveImages: Object.fromEntries(Object.entries(seen).map(([id, w]) => [id, w.images])),
    ...(scope === undefined ? {} : { decoupled: { settled: new Set(scope) } }),
    held: heldImages(holds),
  });
};

/**
 * The annotations the record write sets: first observations, drift on the
 * success path, and pin markers — and removes: the pending record of a
 * digest it records (issue 17; none with the defaults).
 */
export const recordWriteOf = (plan: RefreshPlan, bookkeeping: Annotations): BookkeepingChanges =>
  withPendingCleared(recordChanges(digestsToRecord(plan), plan.pins), bookkeeping);

/** §3.4 — first observations are recorded without a re-image (I8); a plan may have nothing to record. */
export const hasDigestsToRecord = (plan: RefreshPlan, bookkeeping: Annotations): boolean =>
  Object.keys(recordWriteOf(plan, bookkeeping)).length > 0;
