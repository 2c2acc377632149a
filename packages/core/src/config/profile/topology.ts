import { DOCKER_HUB, repositoryName } from './image-reference.js';
import type { Profile, WorkloadKind } from './profile.js';
import { type ImageKeys, imageKeysOf, type TickKeys, tickKeysOf } from './topology-keys.js';

// The one table of a tick (docs/profiles.md): image → workload → container,
// derived from the profile once, with this edge's pins applied. Every phase
// asks it; nothing else spells a workload, a container or a key.

/** A workload by identity and where it lives. */
export interface WorkloadRef {
  /** Its id in the profile. */
  readonly id: string;
  readonly kind: WorkloadKind;
  readonly name: string;
  readonly namespace: string;
}

/** One followed image, as a tick uses it. */
export interface ImageSpec extends ImageKeys {
  readonly name: string;
  /** Its repository's path on its registry, normalized (`shop/web`, `library/nginx`). */
  readonly repo: string;
  /** The registry host of its repository (`docker.io` for Docker Hub). */
  readonly host: string;
  /** The tag it follows: its own, or IMAGE_TAG. */
  readonly tag: string;
  /** The variable that pins it, if the profile names one. */
  readonly pinnedBy: string | undefined;
  /** Pinned on this edge: neither resolved nor re-imaged (I13). */
  readonly pinned: boolean;
}

/** One container of a workload and the image it runs. */
export interface MappedContainer {
  readonly container: string;
  readonly image: string;
}

/** One workload, as a tick uses it. */
export interface TopologyWorkload extends WorkloadRef {
  /** Its containers, in the profile's order. */
  readonly containers: readonly MappedContainer[];
  /** The variable that pins it alone, if the profile names one. */
  readonly pinnedBy: string | undefined;
  /** Pinned on this edge: none of its containers is re-imaged (I13). */
  readonly pinned: boolean;
  /** May be refreshed past an unsettled gate (DECOUPLED_REFRESH, I24). */
  readonly decoupled: boolean;
}

/** A container image-refresh keeps on its image's digest: neither it nor its workload is pinned. */
export interface ManagedContainer {
  readonly workload: string;
  readonly container: string;
  readonly image: string;
}

/** The tick's one table, derived from a profile once. */
export interface Topology {
  /** The profile it was derived from, as understood (what `--dry-run` shows). */
  readonly profile: Profile;
  /** In the profile's order: the order a tick resolves and says them in. */
  readonly images: readonly ImageSpec[];
  /** In the profile's order: the order a tick re-images them in (docs/behaviour.md §3.6). */
  readonly workloads: readonly TopologyWorkload[];
  /** The workload that gates the tick and holds the bookkeeping (docs/behaviour.md §3.2). */
  readonly gate: TopologyWorkload;
  /** Every managed container: by image, then by workload, then in the workload's container order. */
  readonly managed: readonly ManagedContainer[];
  /** The tick-wide bookkeeping keys on the gate. */
  readonly keys: TickKeys;
}

/** What a topology is derived with besides its profile: the tag images follow, and this edge's pins. */
export interface TopologyInputs {
  /** IMAGE_TAG: the tag of every image that names none of its own. */
  readonly imageTag: string;
  /** Whether a pin variable is set to `1` on this edge. */
  readonly isPinned: (variable: string) => boolean;
}

/**
 * The table of a valid profile (parseProfile's Right). Pure; every list
 * keeps the profile's order.
 */
export const topologyOf = (profile: Profile, inputs: TopologyInputs): Topology => {
  const pinned = (variable: string | undefined) => variable !== undefined && inputs.isPinned(variable);
  const images: ImageSpec[] = profile.images.map((image) => {
    const repository = repositoryName(image.repository) ?? { host: DOCKER_HUB, path: image.repository };
    return {
      name: image.name,
      repo: repository.path,
      host: repository.host,
      tag: image.tag ?? inputs.imageTag,
      pinnedBy: image.pinnedBy,
      pinned: pinned(image.pinnedBy),
      ...imageKeysOf(profile.annotationPrefix, image.name),
    };
  });
  const workloads: TopologyWorkload[] = profile.workloads.map((w) => ({
    id: w.id,
    kind: w.kind,
    name: w.name,
    namespace: w.namespace,
    containers: Object.entries(w.containers).map(([container, image]) => ({ container, image })),
    pinnedBy: w.pinnedBy,
    pinned: pinned(w.pinnedBy),
    decoupled: w.decoupled === true,
  }));
  const isImagePinned = new Map(images.map((i) => [i.name, i.pinned]));
  const managed = images.flatMap((image) =>
    workloads.flatMap((w) =>
      w.pinned || isImagePinned.get(image.name) === true
        ? []
        : w.containers
            .filter((c) => c.image === image.name)
            .map((c) => ({ workload: w.id, container: c.container, image: image.name })),
    ),
  );
  const gate = workloads.find((w) => w.id === profile.gate);
  // parseProfile refuses a gate that is not a declared workload.
  if (gate === undefined) throw new Error(`topologyOf: the gate "${profile.gate}" is not a workload of the profile`);
  return { profile, images, workloads, gate, managed, keys: tickKeysOf(profile.annotationPrefix) };
};
