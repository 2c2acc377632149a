import type { WorkloadChange } from './plan.js';
import type { PortError, RolloutError } from './port-error.js';
import type { ContainerImage, WorkloadRef } from './workloads.js';

// docs/behaviour.md §3.6: the re-image runs the plan's changes in order, each
// patch followed by its rollout wait (and, under ROLLOUT_STABLE_FOR, its
// watch). These are the run's values: where it is, what it patched, and how
// it failed, as data the way back and the outcome read.

/** A workload the tick patched with new images (one patch per workload, I16). */
export interface Reimage {
  /** The Deployment or DaemonSet patched. */
  readonly workload: WorkloadRef;
  /** Every container the patch changed, as `docker.io/<repo>@<digest>`. */
  readonly images: readonly ContainerImage[];
  /** True once its rollout completed within ROLLOUT_TIMEOUT. */
  readonly rolledOut: boolean;
  /**
   * container → the image it ran before the patch, where this tick read the
   * workload (RECONCILE_LIVE, DECOUPLED_REFRESH); absent otherwise. The
   * re-image Event names it when no recorded digest says what moved.
   */
  readonly previous?: Readonly<Record<string, string>>;
}

/** The change the run is at; `index` stays inside `changes` (hasMoreChanges). */
export const changeAt = (changes: readonly WorkloadChange[], index: number): WorkloadChange => {
  const change = changes[index];
  if (change === undefined) throw new RangeError(`no workload change at index ${index} of ${changes.length}`);
  return change;
};

/** §3.6 — more workloads after the one at `index`. */
export const hasMoreChanges = (changes: readonly WorkloadChange[], index: number): boolean =>
  index + 1 < changes.length;

/**
 * §3.6 — the port sent nothing: every container named already runs the
 * target reference (a retry tick after a rollout that completed late), as
 * `kubectl set image` sends nothing then. Its rollout is still waited for
 * (I7); it is not a re-image.
 */
export const wasAlreadyOnTarget = (answer: { readonly changed: boolean }): boolean => !answer.changed;

/** A patch the port sent: a re-image, not yet rolled out. */
export const patched = (change: WorkloadChange): Reimage => {
  const { workload, images, previous } = change;
  return { workload, images, rolledOut: false, ...(previous === undefined ? {} : { previous }) };
};

/** The workload waited for rolled out; it is a re-image only if the port changed it (then it is in the list). */
export const withRolledOut = (reimages: readonly Reimage[], id: string): readonly Reimage[] =>
  reimages.map((r) => (r.workload.id === id ? { ...r, rolledOut: true } : r));

/**
 * How this tick's re-image failed, for the way back (what to roll back, and
 * whose digests are bad) and its ROLLED BACK line: a refused patch changed
 * nothing of its own workload and says nothing of a build; a rollout that
 * failed, or fell apart inside ROLLOUT_STABLE_FOR, blames its new digests.
 */
export type ReimageFailure =
  | { readonly _tag: 'None' }
  | { readonly _tag: 'PatchRefused'; readonly change: WorkloadChange; readonly error: PortError }
  | { readonly _tag: 'RolloutFailed'; readonly error: RolloutError; readonly inWindow: boolean };

export const NO_FAILURE: ReimageFailure = { _tag: 'None' };

/** How the workload that failed a tick's re-image failed, in words an outcome carries. */
export type FailedReimageWhy =
  | 'setImageRefused'
  | 'rolloutFailed'
  | 'rolloutTimedOut'
  | 'rolloutUnreadable'
  | 'notStable';

/** The workload whose set image or rollout failed the tick (docs/behaviour.md §3.6). */
export interface FailedReimage {
  readonly workload: WorkloadRef;
  readonly why: FailedReimageWhy;
  /**
   * It already ran the target (a retry tick after a rollout that did not
   * complete): nothing was patched, and it was its rollout, still not done,
   * that failed.
   */
  readonly alreadyOnTarget: boolean;
}

const rolloutWhyOf = (error: RolloutError, inWindow: boolean): FailedReimageWhy => {
  if (inWindow) return 'notStable';
  if (error._tag === 'RolloutFailed') return 'rolloutFailed';
  if (error._tag === 'RolloutTimedOut') return 'rolloutTimedOut';
  return 'rolloutUnreadable';
};

/**
 * Which workload failed the re-image, and why; undefined when none did. A
 * failed rollout is the workload the run was at (`index`); it was not
 * patched this tick when it is not among `reimages`.
 */
export const failedReimageOf = (
  failure: ReimageFailure,
  changes: readonly WorkloadChange[],
  index: number,
  reimages: readonly Reimage[],
): FailedReimage | undefined => {
  switch (failure._tag) {
    case 'None':
      return undefined;
    case 'PatchRefused':
      return { workload: failure.change.workload, why: 'setImageRefused', alreadyOnTarget: false };
    case 'RolloutFailed': {
      const { workload } = changeAt(changes, index);
      return {
        workload,
        why: rolloutWhyOf(failure.error, failure.inWindow),
        alreadyOnTarget: !reimages.some((r) => r.workload.id === workload.id),
      };
    }
  }
};
