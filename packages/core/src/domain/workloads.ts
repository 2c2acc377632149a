import type { PinName, TickConfig } from '../config/tick-config.js';
import type { Settledness } from './settledness.js';

// The chart's contract (docs/behaviour.md §2): which image runs in which container of which
// workload, and where image-refresh keeps its bookkeeping. Container names are
// contractual with the chart's templates; change them only together.

export type { PinName };

/** The three images image-refresh follows (docs/behaviour.md §2). */
export type ImageName = 'jobs-manager' | 'pods-monitor' | 'resource-monitor';
/** The three workloads it re-images; requests-proxy runs the jobs-manager image. */
export type WorkloadId = 'jobs-manager' | 'requests-proxy' | 'resource-monitor';

/** One followed image and where its bookkeeping lives. */
export interface ImageSpec {
  readonly name: ImageName;
  /** Repository on docker.io. */
  readonly repo: string;
  /** Annotation on the jobs-manager Deployment recording the last digest acted on. */
  readonly recordKey: string;
  /**
   * Annotation saying image-refresh itself pinned this image's containers to
   * that digest (RECONCILE_LIVE only). It is how a Helm re-render of repo:tag
   * over our pin is told apart from a container that has run repo:tag since
   * install (issue 7).
   */
  readonly pinKey: string;
  /**
   * Annotation holding a changed digest that is soaking (MIN_DIGEST_AGE,
   * ROLLOUT_RING; issue 17): `<digest> <RFC 3339 time first seen>`, written
   * the tick this edge first sees it, removed once it is recorded or superseded.
   */
  readonly pendingKey: string;
  /** The pin that stops it being resolved and re-imaged (I13). */
  readonly pin: PinName;
  /**
   * Annotation holding the digest of this image whose rollout failed here and
   * was rolled back (ON_ROLLOUT_FAILURE=revert, issue 16): while the registry
   * answers it, it is not re-applied (docs/behaviour.md §3.4a).
   */
  readonly quarantineKey: string;
}

/** In the reference's order: the tick resolves and logs them in this order. */
export const IMAGES: readonly ImageSpec[] = [
  {
    name: 'jobs-manager',
    repo: 'tracebloc/jobs-manager',
    recordKey: 'tracebloc.io/last-refreshed-jobs-manager-digest',
    pinKey: 'tracebloc.io/pinned-jobs-manager-digest',
    quarantineKey: 'tracebloc.io/quarantined-jobs-manager-digest',
    pendingKey: 'tracebloc.io/pending-jobs-manager-digest',
    pin: 'jobsManager',
  },
  {
    name: 'pods-monitor',
    repo: 'tracebloc/pods-monitor',
    recordKey: 'tracebloc.io/last-refreshed-pods-monitor-digest',
    pinKey: 'tracebloc.io/pinned-pods-monitor-digest',
    quarantineKey: 'tracebloc.io/quarantined-pods-monitor-digest',
    pendingKey: 'tracebloc.io/pending-pods-monitor-digest',
    pin: 'podsMonitor',
  },
  {
    name: 'resource-monitor',
    repo: 'tracebloc/resource-monitor',
    recordKey: 'tracebloc.io/last-refreshed-resource-monitor-digest',
    pinKey: 'tracebloc.io/pinned-resource-monitor-digest',
    quarantineKey: 'tracebloc.io/quarantined-resource-monitor-digest',
    pendingKey: 'tracebloc.io/pending-resource-monitor-digest',
    pin: 'resourceMonitor',
  },
];

/** The spec of one image; throws only for a name outside {@link ImageName}. */
export const imageSpec = (name: ImageName): ImageSpec => {
  const spec = IMAGES.find((image) => image.name === name);
  if (spec === undefined) throw new Error(`unknown image ${name}`);
  return spec;
};

/**
 * The bookkeeping annotation keys on the jobs-manager Deployment, the
 * reference's names (docs/behaviour.md §2). A counter whose value is absent, empty or not
 * a decimal integer counts as 0 (`counterValue`).
 */
export const ANNOTATION = {
  skipStreak: 'tracebloc.io/refresh-skip-streak',
  refreshAttempt: 'tracebloc.io/refresh-attempt',
  flapDetected: 'tracebloc.io/refresh-flap-detected',
  /** FLEET_HALT_REF (docs/behaviour.md §3.4b): the manifest digest of the halt this edge last verified. */
  fleetHaltDigest: 'tracebloc.io/fleet-halt-digest',
  /** Beside it, that halt's verified document, so that a halt seen before costs no request but its HEAD. */
  fleetHaltDocument: 'tracebloc.io/fleet-halt-document',
} as const;

/** Container names in the chart's pod templates; contractual with the chart. */
export const CONTAINER = {
  api: 'api',
  podsMonitor: 'pods-monitor-container',
  proxy: 'proxy',
  resourceMonitor: 'tracebloc-resource-monitor',
} as const;

/** The Kubernetes kind of a workload. */
export type WorkloadKind = 'Deployment' | 'DaemonSet';

/** A workload by identity and where it lives; `workloadRef` makes one from a config. */
export interface WorkloadRef {
  readonly id: WorkloadId;
  readonly kind: WorkloadKind;
  readonly name: string;
  readonly namespace: string;
}

/** `deployment/stg-jobs-manager`, the way kubectl and the reference name it. */
export const describeWorkload = (ref: WorkloadRef): string =>
  `${ref.kind === 'Deployment' ? 'deployment' : 'daemonset'}/${ref.name}`;

/** Where a workload lives under a config: its kind, object name and namespace. */
export const workloadRef = (config: TickConfig, id: WorkloadId): WorkloadRef => {
  switch (id) {
    case 'jobs-manager':
      return { id, kind: 'Deployment', name: config.deploymentName, namespace: config.releaseNamespace };
    case 'requests-proxy':
      return { id, kind: 'Deployment', name: config.requestsProxyDeployment, namespace: config.releaseNamespace };
    case 'resource-monitor':
      return { id, kind: 'DaemonSet', name: config.resourceMonitorDaemonSet, namespace: config.nodeAgentsNamespace };
  }
};

/** One container's new image in a re-image patch. */
export interface ContainerImage {
  /** The container's name in the pod template, e.g. `api`. */
  readonly container: string;
  /** `docker.io/<repo>@<digest>` */
  readonly image: string;
}

/** A workload as it runs now (RECONCILE_LIVE, DECOUPLED_REFRESH; issue 7). */
export interface LiveWorkload {
  /** By kubectl's rules, within the settle window. */
  readonly settledness: Settledness;
  /** container → image reference in the pod template */
  readonly images: Readonly<Record<string, string>>;
  /** container → the field manager that last set its image (managedFields), where known: `helm`, `image-refresh`, … */
  readonly imageOwners: Readonly<Record<string, string>>;
}

/** The order the re-image step takes the workloads in (docs/behaviour.md §3.6); the plan's changes follow it. */
export const WORKLOAD_ORDER: readonly WorkloadId[] = ['jobs-manager', 'requests-proxy', 'resource-monitor'];
