import type { MaintenanceWindowConfig } from '../config/maintenance-window-config.js';
import type { Topology } from '../config/profile/topology.js';
import { rolloutSecondsKeyOf } from '../config/profile/topology-keys.js';
import { prepullOf } from '../config/staging-config.js';
import type { TickConfig } from '../config/tick-config.js';
import { type Hold, type Holds, withHold } from './admission.js';
import type { Annotations, BookkeepingChanges } from './bookkeeping.js';
import type { Digest } from './digest.js';
import { longestOpenMs, windowStateAt } from './maintenance-window.js';
import type { RefreshPlan } from './plan.js';

// docs/behaviour.md §3.4d: a plan starts only inside a maintenance window,
// and only with room left for what it is expected to take on this edge — the
// sum, over the workloads it would re-image, of the longest rollout recorded
// for each (`<prefix>/rollout-seconds-<workload>`, the last five), or
// ROLLOUT_TIMEOUT (+ PREPULL_TIMEOUT with PREPULL=on) where none is, plus
// WINDOW_MARGIN. Judged once, before the first re-image, so a started plan
// completes (I16). A fleet halt's pin-back is a safety action and is never
// held (§3.4b); neither is a rollback, which only a started plan makes.

/** How many rollout durations a workload keeps. */
export const KEPT_ROLLOUT_DURATIONS = 5;

/** What the window says of this tick's re-images. */
export type WindowJudgement =
  /** Outside every window: nothing starts until `opensMs`. */
  | { readonly _tag: 'Closed'; readonly nowMs: number; readonly opensMs: number }
  /** Inside one, until `closesMs`; the plan's room not judged yet. */
  | { readonly _tag: 'Open'; readonly nowMs: number; readonly closesMs: number }
  /** Inside, with room for the plan: it starts. */
  | { readonly _tag: 'Room'; readonly nowMs: number; readonly needsMs: number; readonly leftMs: number }
  /** Inside, but the plan needs more than is left: it waits for the next window. */
  | {
      readonly _tag: 'NoRoom';
      readonly nowMs: number;
      readonly needsMs: number;
      readonly leftMs: number;
      readonly opensMs: number;
    }
  /** The plan needs more than the longest window lasts: it can never fit (WINDOW TOO SHORT, a finding). */
  | { readonly _tag: 'TooShort'; readonly needsMs: number; readonly longestMs: number; readonly windows: string }
  /** The clock could not be read: fail closed, nothing starts this tick. */
  | { readonly _tag: 'Unread' };

/** The judgements under which no re-image of the plan starts (the halt's pin-back aside). */
export const holdsReimages = (judgement: WindowJudgement | undefined): boolean =>
  judgement !== undefined && judgement._tag !== 'Open' && judgement._tag !== 'Room';

/**
 * The durations a workload's key holds, oldest first, in whole seconds; a
 * value that is not one is left out, so a garbled record counts as unknown
 * and the plan is sized by ROLLOUT_TIMEOUT instead — longer, never shorter.
 */
export const recordedRolloutSeconds = (annotations: Annotations, key: string): readonly number[] =>
  (annotations[key] ?? '')
    .split(' ')
    .filter((s) => /^[0-9]{1,9}$/.test(s))
    .map(Number);

/** What one workload is expected to take here, and whether that was measured. */
export interface ExpectedRollout {
  readonly workload: string;
  readonly ms: number;
  readonly measured: boolean;
}

/** Each workload's expected rollout: its longest recorded, or the configured bounds where none is. */
export const expectedRollouts = (
  config: TickConfig,
  workloads: readonly string[],
  bookkeeping: Annotations,
): readonly ExpectedRollout[] =>
  workloads.map((workload) => {
    const recorded = recordedRolloutSeconds(
      bookkeeping,
      rolloutSecondsKeyOf(config.topology.profile.annotationPrefix, workload),
    );
    if (recorded.length > 0) return { workload, ms: Math.max(...recorded) * 1000, measured: true };
    // With PREPULL=on its staging too, staged ahead or not: a build first seen inside the window stages there.
    return { workload, ms: config.rolloutTimeoutMs + (prepullOf(config)?.timeoutMs ?? 0), measured: false };
  });

/** The images a fleet halt sends back to its pin: their re-images are never held (§3.4b). */
type PinnedImages = Readonly<Partial<Record<string, unknown>>>;

/** The image each container of the topology runs, by `workload/container`. */
const imageOfContainer = (topology: Topology, workload: string, container: string): string | undefined =>
  topology.managed.find((m) => m.workload === workload && m.container === container)?.image;

/**
 * The workloads of the plan a window holds: every one it re-images, except
 * those it only sends back to a fleet halt's pin.
 */
export const windowedWorkloads = (topology: Topology, plan: RefreshPlan, pins: PinnedImages): readonly string[] =>
  plan.changes
    .filter((change) =>
      change.images.some((c) => {
        const image = imageOfContainer(topology, change.workload.id, c.container);
        return image === undefined || pins[image] === undefined;
      }),
    )
    .map((change) => change.workload.id);

/**
 * The window's word on a plan that re-images `workloads`, at `nowMs`:
 * outside, never fits, no room left, or room.
 */
export const judgeWindowRoom = (
  config: TickConfig,
  window: MaintenanceWindowConfig,
  nowMs: number,
  workloads: readonly string[],
  bookkeeping: Annotations,
): WindowJudgement => {
  const needsMs = expectedRollouts(config, workloads, bookkeeping).reduce((sum, r) => sum + r.ms, 0) + window.marginMs;
  const longestMs = longestOpenMs(window.windows, nowMs);
  // Inside a window or not: a plan no window can hold is said at once, not after a wait (a finding).
  if (needsMs > longestMs) {
    return { _tag: 'TooShort', needsMs, longestMs, windows: window.windows.map((w) => w.text).join('; ') };
  }
  const state = windowStateAt(window.windows, nowMs);
  if (state._tag === 'Closed') return { _tag: 'Closed', nowMs, opensMs: state.opensMs };
  const leftMs = state.closesMs - nowMs;
  if (needsMs > leftMs) {
    const after = windowStateAt(window.windows, state.closesMs);
    return {
      _tag: 'NoRoom',
      nowMs,
      needsMs,
      leftMs,
      opensMs: after._tag === 'Closed' ? after.opensMs : state.closesMs,
    };
  }
  return { _tag: 'Room', nowMs, needsMs, leftMs };
};

/**
 * The write that keeps each measured rollout: its whole seconds appended to
 * the workload's key, the last {@link KEPT_ROLLOUT_DURATIONS} kept.
 */
export const rolloutSecondsWrite = (
  topology: Topology,
  bookkeeping: Annotations,
  measuredMs: Readonly<Record<string, number>>,
): BookkeepingChanges =>
  Object.fromEntries(
    Object.entries(measuredMs).map(([workload, ms]) => {
      const key = rolloutSecondsKeyOf(topology.profile.annotationPrefix, workload);
      const kept = [...recordedRolloutSeconds(bookkeeping, key), Math.max(0, Math.round(ms / 1000))];
      return [key, kept.slice(-KEPT_ROLLOUT_DURATIONS).join(' ')];
    }),
  );

/** Why the window holds a digest, as its hold says it. */
const holdWhyOf = (judgement: WindowJudgement): Extract<Hold, { _tag: 'OutsideWindow' }>['why'] => {
  switch (judgement._tag) {
    case 'NoRoom':
      return 'noRoom';
    case 'TooShort':
      return 'tooShort';
    case 'Unread':
      return 'unread';
    default:
      return 'closed';
  }
};

/** Each of `digests` held for the window; an image held already keeps its first reason (§3.4a). */
export const withWindowHolds = (
  holds: Holds,
  digests: readonly { readonly image: string; readonly to: Digest }[],
  judgement: WindowJudgement,
): Holds =>
  digests.reduce(
    (acc, d) => withHold(acc, { _tag: 'OutsideWindow', image: d.image, digest: d.to, why: holdWhyOf(judgement) }),
    holds,
  );

/** The holds but the window's: what the plan would be if the window had let it start. */
export const withoutWindowHolds = (holds: Holds): Holds =>
  Object.fromEntries(Object.entries(holds).filter(([, hold]) => hold?._tag !== 'OutsideWindow'));

/** The judgements a plan may be staged ahead under: it waits for a window that will come, not for a clock or a finding. */
export const waitsForAWindow = (judgement: WindowJudgement | undefined): boolean =>
  judgement?._tag === 'Closed' || judgement?._tag === 'NoRoom';

/**
 * The digests the window holds in a plan: each image a windowed change moves
 * (a decoupled pass may move one it cannot record), with the digest its
 * verdict moves it to; a fleet halt's pin-back is not among them (§3.4b).
 */
export const windowedDigests = (
  topology: Topology,
  plan: RefreshPlan,
  pins: PinnedImages,
): readonly { readonly image: string; readonly to: Digest }[] => {
  const windowed = new Set(windowedWorkloads(topology, plan, pins));
  const images = new Set(
    plan.changes
      .filter((change) => windowed.has(change.workload.id))
      .flatMap((change) => change.images.map((c) => imageOfContainer(topology, change.workload.id, c.container))),
  );
  return plan.verdicts.flatMap((v) =>
    v._tag === 'Drift' && images.has(v.image) && pins[v.image] === undefined ? [{ image: v.image, to: v.to }] : [],
  );
};

/** The plan with only what the window never holds left to re-image: a fleet halt's pin-backs (§3.4b). */
export const onlyPinBacks = (topology: Topology, plan: RefreshPlan, pins: PinnedImages): RefreshPlan => {
  const windowed = new Set(windowedWorkloads(topology, plan, pins));
  return { ...plan, changes: plan.changes.filter((change) => !windowed.has(change.workload.id)) };
};
