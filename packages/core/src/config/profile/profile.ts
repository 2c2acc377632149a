// The topology a tick follows, as one value: which images it follows, which
// workloads run them in which containers, which workload gates the tick and
// keeps the bookkeeping (docs/profiles.md). Its field names are the contract of
// the IMAGE_REFRESH_PROFILE file; parseProfile checks a document against them.

/** The Kubernetes kind of a workload a profile names. */
export type WorkloadKind = 'Deployment' | 'DaemonSet';

/** One image the tick follows: a floating tag whose digest it pins the mapped containers to. */
export interface ProfileImage {
  /** The image's name in this profile: its bookkeeping keys derive from it (`last-refreshed-<name>-digest`). */
  readonly name: string;
  /** Where it lives: a Docker Hub short name (`shop/web`, `nginx`) or `host[:port]/path`. */
  readonly repository: string;
  /** The tag it follows; absent: IMAGE_TAG. */
  readonly tag?: string;
  /** The environment variable that pins it: `1` means neither resolved nor re-imaged (I13). */
  readonly pinnedBy?: string;
}

/** One workload whose containers the tick keeps on the followed digests. */
export interface ProfileWorkload {
  /** Its id in this profile: lines, metrics and the gate name it by it. */
  readonly id: string;
  readonly kind: WorkloadKind;
  readonly namespace: string;
  /** The object's name. */
  readonly name: string;
  /** container name → the name of the image it runs. */
  readonly containers: Readonly<Record<string, string>>;
  /** The environment variable that pins this workload alone: `1` means none of its containers is re-imaged. */
  readonly pinnedBy?: string;
  /** May be refreshed past an unsettled gate when DECOUPLED_REFRESH=1 and it is settled itself (I24). */
  readonly decoupled?: boolean;
}

/** How the tick's lines name the followed images and the workloads as a group. */
export interface ProfileNouns {
  /** `<images>: shop/{web,log} on docker.io under tag=stg` in the tick's first lines; absent: `images`. */
  readonly images?: string;
  /** `re-imaging <workloads> (attempt 1/3)`, `NOT re-imaging the <workloads>`; absent: `workloads`. */
  readonly workloads?: string;
}

/**
 * A fleet's topology (docs/profiles.md): the images followed, the workloads
 * that run them, the gate whose settledness gates every tick and whose
 * annotations hold the bookkeeping, and the annotation prefix of that
 * bookkeeping. The chart's topology is {@link DEFAULT_PROFILE}'s.
 */
export interface Profile {
  /** The bookkeeping keys' prefix: `<prefix>/refresh-attempt`, `<prefix>/last-refreshed-<image>-digest`, …. */
  readonly annotationPrefix: string;
  /** The id of the workload that gates the tick (docs/behaviour.md §3.2) and holds the bookkeeping. */
  readonly gate: string;
  /** What to check when the gate never settles, said with `IMAGE REFRESH IS FROZEN`; lines split at newlines. */
  readonly frozenHint?: string;
  /** The Helm release these workloads belong to, said in the tick's first line. */
  readonly release?: string;
  /**
   * The pull-through mirror the pods pull every image through (`host[:port]`;
   * pod images are `<mirror>/<repository path>`): with MIRROR_MODE=follow-upstream
   * tags are resolved upstream and pinned through it, else the tick is inert (I14).
   */
  readonly mirror?: string;
  /** How lines name the images and workloads as a group (the chart's: `client images`, `control-plane workloads`). */
  readonly nouns?: ProfileNouns;
  readonly images: readonly ProfileImage[];
  readonly workloads: readonly ProfileWorkload[];
}
