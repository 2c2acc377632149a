import type { Option } from 'fp-ts/lib/Option.js';
import type { TickConfig } from '../config/tick-config.js';
import type { RecordedDigests } from './bookkeeping.js';
import type { Digest } from './digest.js';
import { isRepairable, type LiveFinding, type ManagedContainer, managedContainers } from './live-drift.js';
import type { RegistryError } from './port-error.js';
import {
  CONTAINER,
  type ContainerImage,
  IMAGES,
  type ImageName,
  imageSpec,
  WORKLOAD_ORDER,
  type WorkloadId,
  type WorkloadRef,
  workloadRef,
} from './workloads.js';

// docs/behaviour.md §3.4: compare what the registry reports with what was recorded, and turn
// drift into per-workload patches. Pure; the machine only asks.

export type ImageResolution =
  | { readonly _tag: 'Pinned'; readonly image: ImageName }
  /** Not needed by this (decoupled) pass. */
  | { readonly _tag: 'NotAsked'; readonly image: ImageName }
  | { readonly _tag: 'Unresolved'; readonly image: ImageName; readonly error: RegistryError }
  | {
      readonly _tag: 'Resolved';
      readonly image: ImageName;
      readonly digest: Digest;
      readonly rateLimitRemaining: Option<number>;
    };

export type ImageVerdict =
  | { readonly _tag: 'FirstObservation'; readonly image: ImageName; readonly digest: Digest }
  | { readonly _tag: 'Unchanged'; readonly image: ImageName; readonly digest: Digest }
  | { readonly _tag: 'Drift'; readonly image: ImageName; readonly from: string; readonly to: Digest };

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
  readonly firstObservations: Readonly<Partial<Record<ImageName, Digest>>>;
  /** Recorded only after every rollout of the tick completed (I7). */
  readonly drift: Readonly<Partial<Record<ImageName, Digest>>>;
  /** In re-image order; only workloads that change. */
  readonly changes: readonly WorkloadChange[];
  /** RECONCILE_LIVE: pin markers to record with the digests, once every rollout completed. */
  readonly pins: Readonly<Partial<Record<ImageName, Digest>>>;
}

/** What narrows or widens a plan beyond the registry's verdicts (issue 7). */
export interface PlanScope {
  /** RECONCILE_LIVE: the live findings; repaired only when `repairLive`. */
  readonly live?: readonly LiveFinding[];
  readonly repairLive?: boolean;
  /** RECONCILE_LIVE on: record pin markers for what this tick pins. */
  readonly markPins?: boolean;
  /** RECONCILE_LIVE: what each observed workload runs now, container → image. */
  readonly liveImages?: Readonly<Partial<Record<WorkloadId, Readonly<Record<string, string>>>>>;
  /**
   * DECOUPLED_REFRESH pass on an unsettled jobs-manager: only these settled
   * workloads may change, jobs-manager's own containers never, a
   * requests-proxy already on the target (per `liveImages`) is not patched
   * again, and the jobs-manager image's digest is not recorded (its api
   * container did not move, so the record would lie, #569).
   */
  readonly decoupled?: { readonly settled: ReadonlySet<WorkloadId> };
  /**
   * Images the admission checks held back this tick (docs/behaviour.md
   * §3.4a): their drift (or, quarantined, their first observation) is
   * reported as a verdict but moves no container and is not recorded, as if
   * the registry still answered the recorded digest.
   */
  readonly held?: ReadonlySet<ImageName>;
}

export const imageReference = (config: TickConfig, image: ImageName, digest: Digest): string =>
  `${config.imageRegistry}/${imageSpec(image).repo}@${digest}`;

export const verdictOf = (resolved: Digest, recorded: Option<string>, image: ImageName): ImageVerdict => {
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
  const firstObservations: Partial<Record<ImageName, Digest>> = {};
  const drift: Partial<Record<ImageName, Digest>> = {};
  const pins: Partial<Record<ImageName, Digest>> = {};
  const containers: Record<WorkloadId, ContainerImage[]> = {
    'jobs-manager': [],
    'requests-proxy': [],
    'resource-monitor': [],
  };
  const decoupled = scope.decoupled;
  const mayChange = (id: WorkloadId): boolean =>
    decoupled === undefined || (id !== 'jobs-manager' && decoupled.settled.has(id));
  const runsLive = (id: WorkloadId, container: string, image: string): boolean =>
    scope.liveImages?.[id]?.[container] === image;
  const set = (id: WorkloadId, container: string, image: string): boolean => {
    if (!mayChange(id)) return false;
    containers[id].push({ container, image });
    return true;
  };

  for (const { name } of IMAGES) {
    const resolution = resolutions.find((r) => r.image === name);
    if (resolution?._tag !== 'Resolved') continue;
    const verdict = verdictOf(resolution.digest, recorded[name], name);
    verdicts.push(verdict);
    // A held image is neither recorded nor moved: a quarantined first
    // observation is held too (I30), the other checks hold only drift.
    if (scope.held?.has(name) === true) continue;
    // In a decoupled pass jobs-manager's image is only followed, never recorded.
    const recordable = decoupled === undefined || name !== 'jobs-manager';
    if (verdict._tag === 'FirstObservation' && recordable) firstObservations[name] = verdict.digest;
    if (verdict._tag !== 'Drift') continue;
    const image = imageReference(config, name, verdict.to);
    // Stryker disable next-line BooleanLiteral: every case of the switch below assigns it before it is read
    let moved = false;
    switch (name) {
      case 'jobs-manager':
        moved = set('jobs-manager', CONTAINER.api, image);
        // requests-proxy runs the same image and follows its digest unless
        // pinned on its own (I13, I16) — and, in a decoupled pass, unless it
        // already runs it: that pass cannot record the digest (jobs-manager's
        // api has not moved), so the drift outlives it and every later pass
        // would patch the proxy in place, a no-op whose "completed rollout"
        // reset the flap counter a failing jobs-manager was building (I25,
        // issue 7). resource-monitor keeps its in-place retry: its own record
        // is pending, and the retry's rollout wait is what counts a flapping
        // DaemonSet towards the lockout.
        {
          const proxyAlreadyOnIt = decoupled !== undefined && runsLive('requests-proxy', CONTAINER.proxy, image);
          if (!config.pins.requestsProxy && !proxyAlreadyOnIt)
            // Stryker disable next-line LogicalOperator: moved is read only when recordable, i.e. outside a decoupled pass, where api always moved
            moved = set('requests-proxy', CONTAINER.proxy, image) || moved;
        }
        break;
      case 'pods-monitor':
        moved = set('jobs-manager', CONTAINER.podsMonitor, image);
        break;
      case 'resource-monitor':
        moved = set('resource-monitor', CONTAINER.resourceMonitor, image);
        break;
    }
    if (moved && recordable) drift[name] = verdict.to;
  }

  // RECONCILE_LIVE=1: re-pin what drifted live to its recorded digest, unless
  // the registry's drift already moves that container to a newer one.
  for (const finding of scope.repairLive === true ? (scope.live ?? []).filter(isRepairable) : []) {
    if (containers[finding.workload].some((c) => c.container === finding.container)) continue;
    set(finding.workload, finding.container, imageReference(config, finding.image, finding.recorded));
  }

  // A pin marker says "image-refresh pinned this image's containers": only
  // when, after this tick, every managed container of the image runs the
  // digest — a requests-proxy converged alone must not make jobs-manager's
  // api, still on its tag since install, look like a reverted pin (#569).
  // What a container runs after this tick is its patch, or else what it runs
  // now. And a marker only beside a record: a drift always has one (a Drift
  // verdict needs it), a live repair has one when its finding came from it.
  if (scope.markPins === true) {
    for (const { name } of IMAGES) {
      const mine = managedContainers(config).filter((m) => m.image === name);
      const patched = (m: ManagedContainer) => containers[m.workload].find((c) => c.container === m.container)?.image;
      const target = mine.map(patched).find((image) => image !== undefined);
      if (target === undefined) continue;
      const endsOnTarget = (m: ManagedContainer) =>
        (patched(m) ?? scope.liveImages?.[m.workload]?.[m.container]) === target;
      const digest = target.slice(target.indexOf('@') + 1);
      if (mine.every(endsOnTarget) && recorded[name]._tag === 'Some') pins[name] = digest as Digest;
    }
  }

  const changes = WORKLOAD_ORDER.filter((id) => containers[id].length > 0).map((id) => {
    const live = scope.liveImages?.[id];
    const previous = Object.fromEntries(
      containers[id].flatMap(({ container }) => {
        const image = live?.[container];
        return image === undefined ? [] : [[container, image]];
      }),
    );
    return {
      workload: workloadRef(config, id),
      images: containers[id],
      ...(Object.keys(previous).length > 0 ? { previous } : {}),
    };
  });
  return { verdicts, live: scope.live ?? [], firstObservations, drift, changes, pins };
};

/** The plan re-images at least one workload: registry drift, or a live repair (RECONCILE_LIVE=1). */
export const hasDrift = (plan: RefreshPlan): boolean => plan.changes.length > 0;

/** Everything to record: first observations and drift (pin markers travel with them, see RefreshPlan.pins). */
export const digestsToRecord = (plan: RefreshPlan): Partial<Record<ImageName, Digest>> => ({
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
 * The drift held back for a later tick (issue 6, I7b); first observations,
 * which pull nothing, still get recorded. Nothing is re-imaged, so nothing is
 * pinned: a marker written now would make the next tick take a container
 * still on its tag for a reverted pin (I23; found by the property suite at
 * seed 2024).
 */
export const withDriftAside = (plan: RefreshPlan): RefreshPlan => ({ ...plan, drift: {}, changes: [], pins: {} });
