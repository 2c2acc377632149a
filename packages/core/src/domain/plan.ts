import type { Option } from 'fp-ts/lib/Option.js';
import type { TickConfig } from '../config/tick-config.js';
import type { ContainerImage, RecordedDigests } from '../ports/cluster-port.js';
import type { RegistryError } from '../ports/registry-port.js';
import type { Digest } from './digest.js';
import { CONTAINER, IMAGES, type ImageName, imageSpec, type WorkloadId, type WorkloadRef } from './workloads.js';

// SPEC §3.4: compare what the registry reports with what was recorded, and turn
// drift into per-workload patches. Pure; the machine only asks.

export type ImageResolution =
  | { readonly _tag: 'Pinned'; readonly image: ImageName }
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
}

export interface RefreshPlan {
  readonly verdicts: readonly ImageVerdict[];
  /** Recorded whether or not anything is re-imaged: recording pulls nothing (I8). */
  readonly firstObservations: Readonly<Partial<Record<ImageName, Digest>>>;
  /** Recorded only after every rollout of the tick completed (I7). */
  readonly drift: Readonly<Partial<Record<ImageName, Digest>>>;
  /** In re-image order; only workloads that change. */
  readonly changes: readonly WorkloadChange[];
}

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
): RefreshPlan => {
  const verdicts: ImageVerdict[] = [];
  const firstObservations: Partial<Record<ImageName, Digest>> = {};
  const drift: Partial<Record<ImageName, Digest>> = {};
  const containers: Record<WorkloadId, ContainerImage[]> = {
    'jobs-manager': [],
    'requests-proxy': [],
    'resource-monitor': [],
  };

  for (const { name } of IMAGES) {
    const resolution = resolutions.find((r) => r.image === name);
    if (resolution?._tag !== 'Resolved') continue;
    const verdict = verdictOf(resolution.digest, recorded[name], name);
    verdicts.push(verdict);
    if (verdict._tag === 'FirstObservation') firstObservations[name] = verdict.digest;
    if (verdict._tag !== 'Drift') continue;
    drift[name] = verdict.to;
    const image = imageReference(config, name, verdict.to);
    switch (name) {
      case 'jobs-manager':
        containers['jobs-manager'].push({ container: CONTAINER.api, image });
        // requests-proxy runs the same image and follows its digest unless
        // pinned on its own (I13, I16).
        if (!config.pins.requestsProxy) containers['requests-proxy'].push({ container: CONTAINER.proxy, image });
        break;
      case 'pods-monitor':
        containers['jobs-manager'].push({ container: CONTAINER.podsMonitor, image });
        break;
      case 'resource-monitor':
        containers['resource-monitor'].push({ container: CONTAINER.resourceMonitor, image });
        break;
    }
  }

  const changes = (['jobs-manager', 'requests-proxy', 'resource-monitor'] as const)
    .filter((id) => containers[id].length > 0)
    .map((id) => ({ workload: workloadRef(config, id), images: containers[id] }));
  return { verdicts, firstObservations, drift, changes };
};

export const hasDrift = (plan: RefreshPlan): boolean => plan.changes.length > 0;

/** Everything to record on the success path: first observations and drift. */
export const digestsToRecord = (plan: RefreshPlan): Partial<Record<ImageName, Digest>> => ({
  ...plan.firstObservations,
  ...plan.drift,
});
