import type { Topology } from '../config/profile/topology.js';

// The simulated edge's nodes (docs/behaviour.md §3.5a): which nodes each
// workload's pods run on, what each node's image cache holds, and how long a
// pull takes over the site's link. A pull, once started on a node — by a
// rollout's new pod or by a staging pod — runs on in the background until it
// is done (the kubelet keeps the layers it fetched), so its image is there
// from `readyAt` on. A pull that fails never finishes (ErrImagePull, then
// ImagePullBackOff, retried by the kubelet for as long as a pod needs it).

/** Never: a pull that fails (the registry refuses it, the manifest has no image for this node's platform). */
const NEVER = Number.POSITIVE_INFINITY;

/** The edge's nodes: a DaemonSet runs on every one of them. */
export const SIM_NODE_NAMES: readonly string[] = ['edge-1', 'edge-2', 'edge-3'];

/** A staging pod as the simulated API server holds it, until it is deleted. */
export interface SimStagingPod {
  readonly workload: string;
  readonly node: string;
  /** The image references it pulls, joined by a space (its digest label, in the adapter). */
  readonly images: string;
}

/**
 * The simulated edge's nodes for {@link SimWorld}: each workload's nodes, each
 * node's image cache, the link's pull times and failing pulls, staging pods on
 * the API server, and the time each workload's pods were unavailable.
 */
export class SimNodes {
  /** Each workload's nodes, by id: a Deployment's one replica runs on the first node, a DaemonSet on all three. */
  readonly of: Record<string, string[]>;
  /** How long a pull of a digest takes over the link, by digest; absent: at once (the default, as before). */
  readonly pullMs = new Map<string, number>();
  /** Digests whose pull fails on every node (or, `digest node`, on one node). */
  readonly failing = new Set<string>();
  /** node → image reference → when the pull that brings it there ends (virtual ms). */
  readonly readyAt = new Map<string, Map<string, number>>();
  /** Staging pods left on the API server by a tick that was killed mid-staging (or still being made), by name. */
  readonly stagingPods = new Map<string, SimStagingPod>();
  /** Virtual ms each workload spent in a rollout wait with its new pods not yet available (the `slow-link` measure), by id. */
  readonly unavailableMs: Record<string, number>;

  constructor(topology: Topology) {
    this.of = Object.fromEntries(
      topology.workloads.map((w) => [w.id, w.kind === 'DaemonSet' ? [...SIM_NODE_NAMES] : ['edge-1']]),
    );
    this.unavailableMs = Object.fromEntries(topology.workloads.map((w) => [w.id, 0]));
  }

  /** The nodes a workload's pods run on. */
  nodesOf(id: string): readonly string[] {
    return this.of[id] ?? [];
  }

  /** Its pods were unavailable for `ms` more of a rollout wait. */
  addUnavailable(id: string, ms: number): void {
    this.unavailableMs[id] = (this.unavailableMs[id] ?? 0) + ms;
  }

  /** Every node of the edge. */
  get all(): readonly string[] {
    return [...new Set(Object.values(this.of).flat())];
  }

  private digestOf(reference: string): string | undefined {
    const at = reference.indexOf('@');
    return at < 0 ? undefined : reference.slice(at + 1);
  }

  /** How long `reference`'s pull takes on `node`; a tag (Helm's `repo:tag`) is taken as cached since install. */
  private durationOf(node: string, reference: string): number {
    const digest = this.digestOf(reference);
    if (digest === undefined) return 0;
    if (this.failing.has(digest) || this.failing.has(`${digest} ${node}`)) return NEVER;
    return this.pullMs.get(digest) ?? 0;
  }

  /** Start pulling `reference` on `node` at `nowMs`, unless it is there or on its way; when it will be there. */
  startPull(node: string, reference: string, nowMs: number): number {
    const cache = this.readyAt.get(node) ?? new Map<string, number>();
    this.readyAt.set(node, cache);
    const known = cache.get(reference);
    // A pull that failed is tried again by the next pod that needs the image (the kubelet's back-off).
    if (known !== undefined && known !== NEVER) return known;
    const ready = nowMs + this.durationOf(node, reference);
    cache.set(reference, ready);
    return ready;
  }

  /** Whether `reference` is on `node` at `nowMs`; an image never pulled is there only when its pull takes no time. */
  present(node: string, reference: string, nowMs: number): boolean {
    const ready = this.readyAt.get(node)?.get(reference);
    return ready === undefined ? this.durationOf(node, reference) === 0 : ready <= nowMs;
  }

  /** When every reference is on every node, starting the pulls that have not started; Infinity if one fails. */
  readyEverywhere(nodes: readonly string[], references: readonly string[], nowMs: number): number {
    return Math.max(nowMs, ...nodes.flatMap((node) => references.map((r) => this.startPull(node, r, nowMs))));
  }

  copyInto(copy: SimNodes): void {
    for (const [id, nodes] of Object.entries(this.of)) copy.of[id] = [...nodes];
    for (const [id, ms] of Object.entries(this.unavailableMs)) copy.unavailableMs[id] = ms;
    for (const [digest, ms] of this.pullMs) copy.pullMs.set(digest, ms);
    for (const digest of this.failing) copy.failing.add(digest);
    for (const [node, cache] of this.readyAt) copy.readyAt.set(node, new Map(cache));
    for (const [name, pod] of this.stagingPods) copy.stagingPods.set(name, { ...pod });
  }
}
