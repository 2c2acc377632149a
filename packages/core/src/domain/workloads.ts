import type {
  ImageSpec,
  ManagedContainer,
  Topology,
  TopologyWorkload,
  WorkloadRef,
} from '../config/profile/topology.js';
import type { Settledness } from './settledness.js';

// The workloads and images of a tick, as its topology (config/profile/topology.ts) derives them
// from the profile once: lookups by name, and the words kubectl names a workload by.

export type { WorkloadKind } from '../config/profile/profile.js';
export type { ImageSpec, ManagedContainer, TopologyWorkload, WorkloadRef };

/** The spec of one image of the topology; throws only for a name the topology does not have (a defect). */
export const imageOf = (topology: Topology, name: string): ImageSpec => {
  const spec = topology.images.find((image) => image.name === name);
  if (spec === undefined) throw new Error(`unknown image ${name}`);
  return spec;
};

/** One workload of the topology; throws only for an id the topology does not have (a defect). */
export const workloadOf = (topology: Topology, id: string): TopologyWorkload => {
  const workload = topology.workloads.find((w) => w.id === id);
  if (workload === undefined) throw new Error(`unknown workload ${id}`);
  return workload;
};

/** `deployment/web`, `daemonset/agent`: the way kubectl and the reference name a workload. */
export const describeWorkload = (ref: WorkloadRef): string =>
  `${ref.kind === 'Deployment' ? 'deployment' : 'daemonset'}/${ref.name}`;

/** The managed containers of one image, in the topology's order (I16: they follow one digest together). */
export const managedOf = (topology: Topology, image: string): readonly ManagedContainer[] =>
  topology.managed.filter((m) => m.image === image);

/** A workload with something to follow: a container neither it nor its image pins. */
export const isManagedWorkload = (topology: Topology, workload: string): boolean =>
  topology.managed.some((m) => m.workload === workload);

/** One container's new image in a re-image patch. */
export interface ContainerImage {
  /** The container's name in the pod template, e.g. `api`. */
  readonly container: string;
  /** `docker.io/<repo>@<digest>` */
  readonly image: string;
}

/** A workload as it runs now (RECONCILE_LIVE, DECOUPLED_REFRESH, the ownership check). */
export interface LiveWorkload {
  /** By kubectl's rules, within the settle window. */
  readonly settledness: Settledness;
  /** container → image reference in the pod template */
  readonly images: Readonly<Record<string, string>>;
  /** container → the field manager that last set its image (managedFields), where known: `helm`, `image-refresh`, … */
  readonly imageOwners: Readonly<Record<string, string>>;
}
