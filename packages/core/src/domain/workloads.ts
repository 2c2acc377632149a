// The chart's contract (SPEC §2): which image runs in which container of which
// workload, and where image-refresh keeps its bookkeeping. Container names are
// contractual with the chart's templates; change them only together.

export type ImageName = 'jobs-manager' | 'pods-monitor' | 'resource-monitor';
export type WorkloadId = 'jobs-manager' | 'requests-proxy' | 'resource-monitor';
export type PinName = 'jobsManager' | 'podsMonitor' | 'resourceMonitor' | 'requestsProxy';

export interface ImageSpec {
  readonly name: ImageName;
  /** Repository on docker.io. */
  readonly repo: string;
  /** Annotation on the jobs-manager Deployment recording the last digest acted on. */
  readonly recordKey: string;
  /**
   * Annotation saying image-refresh itself pinned this image's containers to
   * that digest (RECONCILE_LIVE only): what tells "Helm re-rendered repo:tag
   * over our pin" from "still on repo:tag since install" (issue 7).
   */
  readonly pinKey: string;
  readonly pin: PinName;
}

/** In the reference's order: the tick resolves and logs them in this order. */
export const IMAGES: readonly ImageSpec[] = [
  {
    name: 'jobs-manager',
    repo: 'tracebloc/jobs-manager',
    recordKey: 'tracebloc.io/last-refreshed-jobs-manager-digest',
    pinKey: 'tracebloc.io/pinned-jobs-manager-digest',
    pin: 'jobsManager',
  },
  {
    name: 'pods-monitor',
    repo: 'tracebloc/pods-monitor',
    recordKey: 'tracebloc.io/last-refreshed-pods-monitor-digest',
    pinKey: 'tracebloc.io/pinned-pods-monitor-digest',
    pin: 'podsMonitor',
  },
  {
    name: 'resource-monitor',
    repo: 'tracebloc/resource-monitor',
    recordKey: 'tracebloc.io/last-refreshed-resource-monitor-digest',
    pinKey: 'tracebloc.io/pinned-resource-monitor-digest',
    pin: 'resourceMonitor',
  },
];

export const imageSpec = (name: ImageName): ImageSpec => {
  const spec = IMAGES.find((image) => image.name === name);
  if (spec === undefined) throw new Error(`unknown image ${name}`);
  return spec;
};

export const ANNOTATION = {
  skipStreak: 'tracebloc.io/refresh-skip-streak',
  refreshAttempt: 'tracebloc.io/refresh-attempt',
  flapDetected: 'tracebloc.io/refresh-flap-detected',
} as const;

export const CONTAINER = {
  api: 'api',
  podsMonitor: 'pods-monitor-container',
  proxy: 'proxy',
  resourceMonitor: 'tracebloc-resource-monitor',
} as const;

export type WorkloadKind = 'Deployment' | 'DaemonSet';

export interface WorkloadRef {
  readonly id: WorkloadId;
  readonly kind: WorkloadKind;
  readonly name: string;
  readonly namespace: string;
}

/** `deployment/stg-jobs-manager`, the way kubectl and the reference name it. */
export const describeWorkload = (ref: WorkloadRef): string =>
  `${ref.kind === 'Deployment' ? 'deployment' : 'daemonset'}/${ref.name}`;

/** The order SPEC §3 step 6 re-images in. */
export const WORKLOAD_ORDER: readonly WorkloadId[] = ['jobs-manager', 'requests-proxy', 'resource-monitor'];
