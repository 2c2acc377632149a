import * as E from 'fp-ts/lib/Either.js';
import type { TickConfig } from '../config/tick-config.js';
import { type DigestsByImage, isQuarantinedDigest, type RecordedDigests, recordOf } from './bookkeeping.js';
import { type Digest, isWellFormedDigest } from './digest.js';
import type { FleetHalt } from './fleet-halt.js';
import { isHaltedFor } from './fleet-halt-admission.js';
import { imageReference, type WorkloadChange } from './plan.js';
import type { ReimageFailure } from './reimage-run.js';
import type { ContainerImage } from './workloads.js';

// The way back (ON_ROLLOUT_FAILURE=revert; docs/behaviour.md §3.6):
// when a rollout of this tick fails, every container the tick's plan moved,
// up to and including the failed workload, goes back to the last recorded
// digest of its image, as `docker.io/<repo>@<digest>` — never `repo:tag`,
// which now names the bad build. Workloads that completed on the same bad
// digest (a workload sharing the image with it) go back with it; so do those
// that completed on another new digest, so that after the tick every
// container it touched runs what was recorded (I29) and the record, left as
// it was (I7), tells the truth. Pure: the machine computes this once.

/** One container moved back: what it was set to this tick, and the recorded digest it goes back to. */
export interface ContainerRevert {
  readonly workload: string;
  readonly container: string;
  readonly image: string;
  /** The digest this tick set (the bad one, for the failed workload). */
  readonly from: string;
  readonly to: Digest;
}

export interface RevertPlan {
  /** The patches, in re-image order (docs/behaviour.md §3.6), each container on its recorded digest. */
  readonly changes: readonly WorkloadChange[];
  /** Every container moved back. */
  readonly containers: readonly ContainerRevert[];
  /** The new digests the failed workload was rolling to: what is quarantined (I30). */
  readonly bad: DigestsByImage;
}

/** Why no revert can be made: a container the tick moved has no recorded digest to go back to. */
export interface NoRevertTarget {
  readonly workload: string;
  readonly container: string;
  /** Its image; undefined for a container the topology does not manage (the plan sets none such). */
  readonly image: string | undefined;
  /** The record as it reads (`undefined`: absent). */
  readonly recorded: string | undefined;
  /** The record is well formed but is the digest quarantined for the image (a hand edit): no way back to a bad build (I30). */
  readonly quarantined?: true;
  /** The record is a digest the fleet halt in force names (docs/behaviour.md §3.4b): no way back to it either (I36). */
  readonly halted?: true;
}

const digestOf = (reference: string): string => reference.slice(reference.indexOf('@') + 1);

/** The image a managed container runs; undefined for a container the topology does not manage. */
const imageAt = (config: TickConfig, workload: string, container: string): string | undefined =>
  config.topology.managed.find((m) => m.workload === workload && m.container === container)?.image;

/**
 * The revert of a tick: every change up to `changes[throughIndex]`, each
 * container back on its image's recorded digest. `failed` is the index of the
 * workload whose rollout failed — its new digests are the bad ones; null
 * when the tick failed on a refused patch, which says nothing of a build.
 * `Left` when a container has no well-formed recorded digest (a record
 * missing or edited by hand): there is nothing known-good to go back to, so
 * nothing is guessed — the tick says ROLLBACK FAILED and touches nothing more
 * (fail safe). So is a record that names the digest quarantined for its
 * image (`quarantined`): going back to it would re-apply a build that failed
 * here (I30). A Drift needs a record, so a first install never gets here.
 */
export const planRevert = (
  config: TickConfig,
  changes: readonly WorkloadChange[],
  throughIndex: number,
  recorded: RecordedDigests,
  failed: number | null = throughIndex,
  quarantined: Partial<RecordedDigests> = {},
  halt?: FleetHalt,
): E.Either<NoRevertTarget, RevertPlan> => {
  const containers: ContainerRevert[] = [];
  const reverted: WorkloadChange[] = [];
  for (const change of changes.slice(0, throughIndex + 1)) {
    const images: ContainerImage[] = [];
    for (const { container, image: reference } of change.images) {
      const image = imageAt(config, change.workload.id, container);
      const record = image === undefined ? undefined : recordOf(recorded, image);
      const value = record?._tag === 'Some' ? record.value : undefined;
      if (image === undefined || value === undefined || !isWellFormedDigest(value))
        return E.left({ workload: change.workload.id, container, image, recorded: value });
      if (isQuarantinedDigest(quarantined, image, value))
        return E.left({ workload: change.workload.id, container, image, recorded: value, quarantined: true });
      if (isHaltedFor(config.topology, halt, image, value))
        return E.left({ workload: change.workload.id, container, image, recorded: value, halted: true });
      containers.push({ workload: change.workload.id, container, image, from: digestOf(reference), to: value });
      images.push({ container, image: imageReference(config, image, value) });
    }
    reverted.push({ workload: change.workload, images });
  }
  const failedWorkload = failed === null ? undefined : changes[failed]?.workload.id;
  const bad: Partial<Record<string, Digest>> = {};
  for (const c of containers) {
    // A live re-pin (RECONCILE_LIVE=1) moves a container TO its recorded
    // digest: that digest is the good one, never quarantined.
    if (c.workload === failedWorkload && c.from !== c.to && isWellFormedDigest(c.from)) bad[c.image] = c.from;
  }
  return E.right({ changes: reverted, containers, bad });
};

/** The failed workload was rolling to at least one new digest: there is a bad build to roll back from. */
export const hasBadDigest = (plan: RevertPlan): boolean => Object.keys(plan.bad).length > 0;

/** Some container moved this tick is not on its recorded digest: there is something to roll back. */
export const movesAnything = (plan: RevertPlan): boolean => plan.containers.some((c) => c.from !== c.to);

/**
 * The way back of this tick, decided once (docs/behaviour.md §3.6), with its
 * reason: a container with no record to go back to (ROLLBACK FAILED, touch
 * nothing more), nothing moved off its record (a live re-pin: a plain failed
 * re-image), or the rollback to make.
 */
export type RevertDecision =
  | { readonly _tag: 'NoRecord'; readonly target: NoRevertTarget; readonly plan: RevertPlan }
  | { readonly _tag: 'NothingToRollBack'; readonly plan: RevertPlan }
  | { readonly _tag: 'RollBack'; readonly plan: RevertPlan };

/** A rollback that moves nothing. */
export const NO_REVERT_PLAN: RevertPlan = { changes: [], containers: [], bad: {} };

/** Before a re-image failed: no way back is planned. */
export const NO_REVERT: RevertDecision = { _tag: 'NothingToRollBack', plan: NO_REVERT_PLAN };

/**
 * The rollback of the workloads the run moved, up to `index` where it failed.
 * A refused patch changed nothing of its own workload: what the tick moved
 * before it goes back, and no digest is bad. A failed rollout takes its own
 * workload back too, and its new digests are the bad ones (I30). A failure
 * not yet known (the REVERT_READY line) plans as a failed rollout.
 */
export const decideRevert = (
  config: TickConfig,
  changes: readonly WorkloadChange[],
  index: number,
  failure: ReimageFailure,
  recorded: RecordedDigests,
  quarantined: Partial<RecordedDigests>,
  halt?: FleetHalt,
): RevertDecision => {
  const planned =
    failure._tag === 'PatchRefused'
      ? planRevert(config, changes, index - 1, recorded, null, quarantined, halt)
      : planRevert(config, changes, index, recorded, index, quarantined, halt);
  if (E.isLeft(planned)) return { _tag: 'NoRecord', target: planned.left, plan: NO_REVERT_PLAN };
  return { _tag: movesAnything(planned.right) ? 'RollBack' : 'NothingToRollBack', plan: planned.right };
};

/** Under revert, where a failed rollout of this tick would take each workload it moves (REVERT_READY, --dry-run). */
export const revertReadiness = (
  config: TickConfig,
  changes: readonly WorkloadChange[],
  recorded: RecordedDigests,
  quarantined: Partial<RecordedDigests>,
  halt?: FleetHalt,
): RevertDecision => decideRevert(config, changes, changes.length - 1, { _tag: 'None' }, recorded, quarantined, halt);

/** A container the tick moved has no well-formed recorded digest: nothing known-good to go back to. */
export const hasNoRecordToRevertTo = (decision: RevertDecision): boolean => decision._tag === 'NoRecord';

/** Every container moved so far went onto its recorded digest (RECONCILE_LIVE=1 re-pins): nothing to roll back. */
export const hasNothingToRollBack = (decision: RevertDecision): boolean => decision._tag === 'NothingToRollBack';
