import * as O from 'fp-ts/lib/Option.js';
import type { TickConfig } from '../config/tick-config.js';
import { type DigestsByImage, type RecordedDigests, recordOf } from './bookkeeping.js';
import type { Digest } from './digest.js';
import { isRepairable, type LiveFinding, type ManagedContainer } from './live-drift.js';
import { pulledFrom } from './mirror.js';
import type { RegistryError } from './port-error.js';
import { type ContainerImage, imageOf, managedOf, type WorkloadRef } from './workloads.js';

// docs/behaviour.md §3.4: compare what the registry reports with what was recorded, and turn
// drift into per-workload patches. Pure; the machine only asks.

/** A digest the upstream named that the mirror did not serve as it is: what keeps the image waiting (§3.3). */
export interface MirrorMiss {
  readonly mirror: string;
  readonly digest: Digest;
  /** The mirror answered another digest for it: a finding, never a pin. */
  readonly answered?: string;
}

export type ImageResolution =
  | { readonly _tag: 'Pinned'; readonly image: string }
  /** Not needed by this (decoupled) pass. */
  | { readonly _tag: 'NotAsked'; readonly image: string }
  | {
      readonly _tag: 'Unresolved';
      readonly image: string;
      readonly error: RegistryError;
      /** MIRROR_MODE=follow-upstream: the upstream answered, but the mirror has not served this digest (§3.3). */
      readonly unservedBy?: MirrorMiss;
    }
  | {
      readonly _tag: 'Resolved';
      readonly image: string;
      readonly digest: Digest;
      readonly rateLimitRemaining: O.Option<number>;
    };

export type ImageVerdict =
  | { readonly _tag: 'FirstObservation'; readonly image: string; readonly digest: Digest }
  | { readonly _tag: 'Unchanged'; readonly image: string; readonly digest: Digest }
  | { readonly _tag: 'Drift'; readonly image: string; readonly from: string; readonly to: Digest };

export interface WorkloadChange {
  readonly workload: WorkloadRef;
  readonly images: readonly ContainerImage[];
  /** container → the image it runs now, where the tick read the workload (`PlanScope.liveImages`). */
  readonly previous?: Readonly<Record<string, string>>;
}

export interface RefreshPlan {
  readonly verdicts: readonly ImageVerdict[];
  /** RECONCILE_LIVE: live images that are not what was recorded (reported; repaired in repair mode). */
  readonly live: readonly LiveFinding[];
  /** Recorded whether or not anything is re-imaged: recording pulls nothing (I8). */
  readonly firstObservations: Readonly<Partial<Record<string, Digest>>>;
  /** Recorded only after every rollout of the tick completed (I7). */
  readonly drift: Readonly<Partial<Record<string, Digest>>>;
  /** In re-image order; only workloads that change. */
  readonly changes: readonly WorkloadChange[];
  /** RECONCILE_LIVE: pin markers to record with the digests, once every rollout completed. */
  readonly pins: Readonly<Partial<Record<string, Digest>>>;
}

/** What narrows or widens a plan beyond the registry's verdicts (RECONCILE_LIVE, DECOUPLED_REFRESH). */
export interface PlanScope {
  /** RECONCILE_LIVE: the live findings; repaired only when `repairLive`. */
  readonly live?: readonly LiveFinding[];
  readonly repairLive?: boolean;
  /** RECONCILE_LIVE on: record pin markers for what this tick pins. */
  readonly markPins?: boolean;
  /** RECONCILE_LIVE on: the pin markers as the tick found them (I23: a marker was written when the tick had set every container of the image, or one was there before). */
  readonly markedBefore?: RecordedDigests;
  /** RECONCILE_LIVE: what each observed workload runs now, container → image. */
  readonly liveImages?: Readonly<Partial<Record<string, Readonly<Record<string, string>>>>>;
  /**
   * DECOUPLED_REFRESH pass on an unsettled gate: only these settled
   * decoupled workloads may change, the gate's own containers never; an
   * image with a container outside them is not recorded (that container did
   * not move, so the record would lie, #569), and its containers already on
   * the target (per `liveImages`) are not patched again (I25).
   */
  readonly decoupled?: { readonly settled: ReadonlySet<string> };
  /**
   * Images the admission checks held back this tick (docs/behaviour.md
   * §3.4a): their drift (or, quarantined, their first observation) is
   * reported as a verdict but moves no container and is not recorded, as if
   * the registry still answered the recorded digest.
   */
  readonly held?: ReadonlySet<string>;
}

/**
 * `<host>/<repo>@<digest>` as a pod pulls it: the image's own registry
 * (`docker.io/…` for Docker Hub), or the mirror the tick follows upstream
 * through (docs/behaviour.md §3.3).
 */
export const imageReference = (config: TickConfig, image: string, digest: Digest): string => {
  const spec = imageOf(config.topology, image);
  return `${pulledFrom(config, spec)}/${spec.repo}@${digest}`;
};

/** A workload's identity alone: what a patch and a rollout name. */
const refOf = ({ id, kind, name, namespace }: WorkloadRef): WorkloadRef => ({ id, kind, name, namespace });

export const verdictOf = (resolved: Digest, recorded: O.Option<string>, image: string): ImageVerdict => {
  // Empty counts as absent, as in the reference's `[ -z "$recorded" ]`.
  if (recorded._tag === 'None' || recorded.value === '') {
    return { _tag: 'FirstObservation', image, digest: resolved };
  }
  return recorded.value === resolved
    ? { _tag: 'Unchanged', image, digest: resolved }
    : { _tag: 'Drift', image, from: recorded.value, to: resolved };
};

export const planRefresh = (
  config: TickConfig,
  resolutions: readonly ImageResolution[],
  recorded: RecordedDigests,
  scope: PlanScope = {},
): RefreshPlan => {
  const verdicts: ImageVerdict[] = [];
  const firstObservations: Partial<Record<string, Digest>> = {};
  const drift: Partial<Record<string, Digest>> = {};
  const pins: Partial<Record<string, Digest>> = {};
  const { topology } = config;
  const containers = new Map<string, ContainerImage[]>(topology.workloads.map((w) => [w.id, []]));
  const patchOf = (id: string): ContainerImage[] => containers.get(id) ?? [];
  const decoupled = scope.decoupled;
  // I22: the gate's own containers never move in a decoupled pass, whatever the pass lists as settled.
  const passes = new Set(topology.workloads.filter((w) => w.decoupled && w.id !== topology.gate.id).map((w) => w.id));
  const mayChange = (id: string): boolean => decoupled === undefined || (passes.has(id) && decoupled.settled.has(id));
  const runsLive = (m: ManagedContainer, image: string): boolean =>
    scope.liveImages?.[m.workload]?.[m.container] === image;
  const set = (m: ManagedContainer, image: string): boolean => {
    if (!mayChange(m.workload)) return false;
    patchOf(m.workload).push({ container: m.container, image });
    return true;
  };

  for (const { name } of topology.images) {
    const resolution = resolutions.find((r) => r.image === name);
    if (resolution?._tag !== 'Resolved') continue;
    const verdict = verdictOf(resolution.digest, recordOf(recorded, name), name);
    verdicts.push(verdict);
    // A held image is neither recorded nor moved: a quarantined first
    // observation is held too (I30), the other checks hold only drift.
    if (scope.held?.has(name) === true) continue;
    const mine = managedOf(topology, name);
    // In a decoupled pass an image is recorded only when every container
    // that runs it may move: one left behind on the gate would make the
    // record lie (#569).
    const recordable = mine.every((m) => mayChange(m.workload));
    if (verdict._tag === 'FirstObservation' && recordable) firstObservations[name] = verdict.digest;
    if (verdict._tag !== 'Drift') continue;
    const image = imageReference(config, name, verdict.to);
    // A decoupled pass that cannot record the image leaves its drift to
    // outlive the pass, so every later pass would patch its containers in
    // place again: a no-op whose "completed rollout" reset the flap counter
    // a failing gate was building (I25). A container already on the target
    // is therefore left alone then; an image the pass records keeps its
    // in-place retry, whose rollout wait is what counts a flapping
    // workload towards the lockout.
    const alreadyOn = (m: ManagedContainer) => decoupled !== undefined && !recordable && runsLive(m, image);
    const moved = mine.filter((m) => !alreadyOn(m)).map((m) => set(m, image));
    if (moved.some(Boolean) && recordable) drift[name] = verdict.to;
  }

  // RECONCILE_LIVE=1: re-pin what drifted live to its recorded digest, unless
  // the registry's drift already moves that container to a newer one.
  for (const finding of scope.repairLive === true ? (scope.live ?? []).filter(isRepairable) : []) {
    if (patchOf(finding.workload).some((c) => c.container === finding.container)) continue;
    set(finding, imageReference(config, finding.image, finding.recorded));
  }

  // A pin marker says "image-refresh pinned this image's containers": only
  // when, after this tick, every managed container of the image runs the
  // digest — one workload converged alone must not make another container
  // of the image, still on its tag since install, look like a reverted pin (#569).
  // What a container runs after this tick is its patch, or else what it runs
  // now. A container this tick does not patch is ours only if the image
  // was marked before: one someone set to the digest by hand was never
  // pinned, and Helm putting it back on its tag is the first-tick contract,
  // not a revert (I23). And a marker only beside a record: a drift always
  // has one (a Drift verdict needs it), a live repair has one when its
  // finding came from it.
  if (scope.markPins === true) {
    for (const { name } of topology.images) {
      const mine = managedOf(topology, name);
      const patched = (m: ManagedContainer) => patchOf(m.workload).find((c) => c.container === m.container)?.image;
      const target = mine.map(patched).find((image) => image !== undefined);
      if (target === undefined) continue;
      const markedBefore = O.isSome(recordOf(scope.markedBefore ?? {}, name));
      const endsOnTarget = (m: ManagedContainer) =>
        (patched(m) ?? (markedBefore ? scope.liveImages?.[m.workload]?.[m.container] : undefined)) === target;
      const digest = target.slice(target.indexOf('@') + 1);
      if (mine.every(endsOnTarget) && recordOf(recorded, name)._tag === 'Some') pins[name] = digest as Digest;
    }
  }

  const changes = topology.workloads
    .filter((w) => patchOf(w.id).length > 0)
    .map((workload) => {
      const live = scope.liveImages?.[workload.id];
      const previous = Object.fromEntries(
        patchOf(workload.id).flatMap(({ container }) => {
          const image = live?.[container];
          return image === undefined ? [] : [[container, image]];
        }),
      );
      return {
        workload: refOf(workload),
        images: patchOf(workload.id),
        ...(Object.keys(previous).length > 0 ? { previous } : {}),
      };
    });
  return { verdicts, live: scope.live ?? [], firstObservations, drift, changes, pins };
};

/** The plan re-images at least one workload: registry drift, or a live repair (RECONCILE_LIVE=1). */
export const hasDrift = (plan: RefreshPlan): boolean => plan.changes.length > 0;

/** Everything to record: first observations and drift (pin markers travel with them, see RefreshPlan.pins). */
export const digestsToRecord = (plan: RefreshPlan): DigestsByImage => ({
  ...plan.firstObservations,
  ...plan.drift,
});

/** Before the plan is made: nothing to re-image, nothing to record. */
export const EMPTY_PLAN: RefreshPlan = {
  verdicts: [],
  live: [],
  firstObservations: {},
  drift: {},
  changes: [],
  pins: {},
};

/**
 * The drift held back for a later tick (I7b); first observations,
 * which pull nothing, still get recorded. Nothing is re-imaged, so nothing is
 * pinned: a marker written now would make the next tick take a container
 * still on its tag for a reverted pin (I23; found by the property suite at
 * seed 2024).
 */
export const withDriftAside = (plan: RefreshPlan): RefreshPlan => ({ ...plan, drift: {}, changes: [], pins: {} });
