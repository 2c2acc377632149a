import type { TopologyWorkload } from '../config/profile/topology.js';
import type { TickConfig } from '../config/tick-config.js';
import { type BookkeepingChanges, changeMatches } from '../domain/bookkeeping.js';
import { renderedHost } from '../domain/mirror.js';
import type { Platform } from '../domain/platforms.js';
import type { PortErrorTag } from '../domain/port-error.js';
import {
  type DaemonSetRolloutView,
  type DeploymentRolloutView,
  daemonSetSettledness,
  deploymentSettledness,
  type Settledness,
} from '../domain/settledness.js';
import { imageOf, type WorkloadKind, workloadOf } from '../domain/workloads.js';
import type { ClusterPort } from '../ports/cluster-port.js';
import { simDigest } from './sim-digest.js';
import { SIM_NODE_NAMES, SimNodes } from './sim-nodes.js';

// An in-memory edge cluster and registry, shaped by the config's topology
// (docs/profiles.md). Workloads carry a generation, spec images, a rollout
// behaviour that decides their status, and (the gate) the bookkeeping
// annotations; the registry maps repo:tag to a digest. Faults are injected per
// port operation. Every port call is logged.

/**
 * How a workload's rollouts behave:
 * - settles: every rollout completes;
 * - stalls: a rollout started by a re-image never completes, and the workload
 *   stays unsettled afterwards (a skip streak, not a flap);
 * - flaps: looks settled at the top of a tick, then fails the wait after a
 *   re-image (Ready, then crashes) — the shape the flap lockout exists for;
 * - neverReady: never settled at all (the pod Runs but is never Ready, #1964);
 * - fallsApart: a rollout completes, then fails inside ROLLOUT_STABLE_FOR
 *   (a readiness flap seconds after "rollout complete", §3.6), and looks
 *   settled again at the top of the next tick.
 *
 * Whatever its behaviour, a workload running a build {@link SimWorld.breakBuild}
 * marked as crash-looping is never available while it runs it.
 */
export type RolloutBehaviour = 'settles' | 'stalls' | 'flaps' | 'neverReady' | 'fallsApart';

/** When a workload's status is read: the top of a tick, a rollout wait, or the ROLLOUT_STABLE_FOR watch after it. */
export type StatusPhase = 'top-of-tick' | 'rollout-wait' | 'stability-watch';

/** Every fault-injectable cluster-side operation: the port's, recording an Event, and staging (PREPULL). */
export type ClusterOp = keyof ClusterPort | 'recordEvent' | 'stageImages';

/**
 * Where an armed fault bites: every call of `op`, or — with `key` — only a
 * `patchBookkeeping` one of whose changes, spelled `key=value` or `key-`,
 * starts with it: `tracebloc.io/refresh-attempt=` is "the attempt write",
 * apart from the streak write and from the success reset's removal.
 */
export interface FaultTarget {
  readonly op: ClusterOp;
  readonly key?: string;
  /**
   * For `readGate`: only the read with this index in its tick. A tick
   * reads the gate several times — the settled guard's
   * read (0, the one with a settle window), then the skip streak, the
   * recorded digests, the pin markers, refresh-attempt (docs/behaviour.md
   * §3.2–§3.5) — and `readIndex` picks one of them, tick after tick.
   */
  readonly readIndex?: number;
  /** The read's index on a tick whose guard found the gate unsettled (a decoupled pass has no live pass), when it differs. */
  readonly unsettledReadIndex?: number;
}

/** A Kubernetes Event the simulated Events port holds. */
export interface SimKubeEvent {
  readonly type: 'Normal' | 'Warning';
  readonly reason: string;
  message: string;
  /** How many times this reason was recorded: repeats update one Event. */
  count: number;
}
/** A fault a cluster operation can meet: a port error of that class, or a hang until the request bound. */
export type ClusterFault = PortErrorTag | 'Hang';
/** A fault one repo's resolution can meet; `Garbage` answers a digest that is not an OCI digest (I19). */
export type RegistryFault = PortErrorTag | 'RateLimited' | 'Hang' | 'Garbage';

/**
 * A fault one signature check can meet (§3.4a step 3): a registry failure of
 * that class (no verdict), or a hang until the request bound.
 */
export type SignatureFault = PortErrorTag | 'RateLimited' | 'Hang';

/**
 * A fault reading a fleet halt's document can meet (docs/behaviour.md
 * §3.4b): a registry failure of that class, a hang until the request bound,
 * or an artifact that holds no usable document.
 */
export type HaltDocumentFault = PortErrorTag | 'RateLimited' | 'Hang' | 'Unusable';

/** A fault one platform read can meet (PLATFORM_CHECK): a registry failure of that class, or a hang. */
export type PlatformFault = PortErrorTag | 'RateLimited' | 'Hang';

/** What a digest provides unless a scenario says otherwise: the fleet's two platforms. */
export const SIM_PLATFORMS: readonly Platform[] = [
  { os: 'linux', architecture: 'amd64' },
  { os: 'linux', architecture: 'arm64' },
];

/** The key the simulated signature port says verified a signed digest. */
export const SIM_SIGNING_KEY = '/etc/image-refresh/keys/sim.pub';

/** One call the simulated ports answered, in order: what the property suite's checker reads. */
export interface SimCall {
  /** The port operation (`resolveDigest` per repo, `verifySignature` per digest checked, the clock's, a halt's document). */
  readonly op:
    | ClusterOp
    | 'resolveDigest'
    // MIRROR_MODE=follow-upstream: a changed digest asked of the mirror (docs/behaviour.md §3.3).
    | 'askMirror'
    | 'verifySignature'
    | 'readClock'
    | 'sleep'
    | 'readFleetHalt'
    | 'readFleetPromotion'
    // Stage, then switch: a manifest's platforms read, one workload's images staged on one node, a staging pod deleted.
    | 'readPlatforms'
    | 'stageImage'
    | 'deleteStagingPod';
  /** Virtual time when it ended, in ms. */
  readonly at: number;
  /** Its arguments, e.g. the annotation value written or the repo resolved. */
  readonly detail: string;
  /** 'ok', the error tag the call ended with, or 'unchanged' for a set image that sent nothing (already on target). */
  readonly outcome: string;
}

/** A simulated workload; mutable on purpose, for world events a test stages. */
export interface SimWorkload {
  readonly id: string;
  readonly kind: WorkloadKind;
  /** False once deleted: every read of it is NotFound. */
  exists: boolean;
  /** Bumped by every change of its images (a rollout). */
  generation: number;
  /** container → image reference in the pod spec */
  images: Record<string, string>;
  /** container → the field manager that last set its image */
  imageOwners: Record<string, string>;
  /** How its rollouts go; see {@link RolloutBehaviour}. */
  behaviour: RolloutBehaviour;
  /** A re-image started a rollout that has not completed. */
  rolloutPending: boolean;
}

interface Armed<F> {
  fault: F;
  remaining: number;
}

interface ArmedClusterFault extends Armed<ClusterFault> {
  readonly target: FaultTarget;
}

const slotOf = (target: FaultTarget): string =>
  target.key !== undefined
    ? `${target.op} ${target.key}`
    : target.readIndex !== undefined
      ? `${target.op} #${target.readIndex}`
      : target.op;

/** The image reference a fresh install renders: `repo:tag` (the first-tick contract, #569), owned by helm. */
const renderedImage = (config: TickConfig, image: string): string => {
  const spec = imageOf(config.topology, image);
  return `${renderedHost(config, spec)}/${spec.repo}:${spec.tag}`;
};

const freshWorkload = (workload: TopologyWorkload, config: TickConfig): SimWorkload => ({
  id: workload.id,
  kind: workload.kind,
  exists: true,
  generation: 1,
  images: Object.fromEntries(
    workload.containers.map(({ container, image }) => [container, renderedImage(config, image)]),
  ),
  imageOwners: Object.fromEntries(workload.containers.map(({ container }) => [container, 'helm'])),
  behaviour: 'settles',
  rolloutPending: false,
});

/**
 * An in-memory edge cluster and registry for {@link simPorts}: the
 * topology's workloads (fresh install: `repo:tag`, settled), the gate's
 * annotations, a registry with build 1 of every image published, a virtual
 * clock, and faults armed per operation. Deterministic: the same world and
 * the same ticks give the same calls and outcomes (I20).
 *
 * @example
 * ```ts
 * const world = new SimWorld(simConfig());
 * world.publish('tracebloc/jobs-manager', simDigest('build 2'));
 * world.injectClusterFault('patchBookkeeping', 'Forbidden', 1, 'tracebloc.io/refresh-attempt=');
 * const outcome = await runTick(world.config, simPorts(world));
 * ```
 */
export class SimWorld {
  /** Virtual time in ms; the simulated ports advance it as real requests and waits would take. */
  clockMs = 0;
  /** The gate's metadata.uid (START_JITTER derives from it, §3.3); a recreate gives a new one. */
  uid = '6f1c2a4e-0000-4000-8000-000000000001';
  /** The topology's workloads by id; {@link SimWorld.workload} reads one. */
  readonly workloads: Record<string, SimWorkload>;
  /** Annotations of the gate. */
  annotations: Record<string, string> = {};
  /** `repo:tag` → digest */
  readonly registry = new Map<string, string>();
  /** What the registry reports in `ratelimit-remaining`; undefined sends none. */
  rateLimitRemaining: number | undefined = 100;
  /** Every port call, in order. */
  readonly calls: SimCall[] = [];
  /** Kubernetes Events recorded on the gate, one per reason. */
  readonly kubeEvents: SimKubeEvent[] = [];
  private readonly clusterFaults = new Map<string, ArmedClusterFault>();
  private readsThisTick = 0;
  private tickSettled = true;
  private readonly registryFaults = new Map<string, Armed<RegistryFault>>();
  /** Digests of crash-looping builds: a pod running one is never available (scenario `bad-build`). */
  readonly brokenDigests = new Set<string>();
  /** Digests a trusted key signed, by `repo@digest`; any other digest is unsigned. */
  readonly signedDigests = new Set<string>();
  /** Every digest ever published, by `repo@digest`: what a pull-through mirror can fetch (§3.3). */
  readonly publishedDigests = new Set<string>();
  /** Repositories whose newest builds the mirror has not fetched yet: it answers them 404 (scenario `mirror`). */
  readonly mirrorLagging = new Set<string>();
  /** Repositories the mirror answers another digest for than it is asked: a corrupt or misconfigured cache. */
  readonly mirrorCorrupt = new Set<string>();
  private readonly signatureFaults = new Map<string, Armed<SignatureFault>>();
  /** Fleet halt artifacts on the registry, by manifest digest: each one's document (docs/behaviour.md §3.4b). */
  readonly haltDocuments = new Map<string, string>();
  private readonly haltDocumentFaults: Armed<HaltDocumentFault>[] = [];
  /** The edge's nodes, their image caches and the link's pull times (PREPULL, docs/behaviour.md §3.5a). */
  readonly nodes: SimNodes;
  /** What a digest provides (PLATFORM_CHECK), where it is not {@link SIM_PLATFORMS}; a string: its manifest cannot be read. */
  readonly platformsByDigest = new Map<string, readonly Platform[] | string>();
  private readonly platformFaults = new Map<string, Armed<PlatformFault>>();

  constructor(readonly config: TickConfig) {
    this.workloads = Object.fromEntries(config.topology.workloads.map((w) => [w.id, freshWorkload(w, config)]));
    this.nodes = new SimNodes(config.topology);
    for (const { repo, tag } of config.topology.images) this.publish(repo, simDigest(`${repo}#1`), tag);
  }

  /** One workload of the topology; throws for an id it does not have (a defect of the test). */
  workload(id: string): SimWorkload {
    const workload = this.workloads[id];
    if (workload === undefined) throw new Error(`the simulated edge has no workload ${id}`);
    return workload;
  }

  /** The gate's id: the workload whose annotations hold the bookkeeping. */
  get gateId(): string {
    return this.config.topology.gate.id;
  }

  // --- world events ---------------------------------------------------------

  /** Move `repo:tag` (the config's tag by default) to a new digest, as a push would. */
  publish(repo: string, digest: string, tag: string = this.config.imageTag): void {
    this.registry.set(`${repo}:${tag}`, digest);
    this.publishedDigests.add(`${repo}@${digest}`);
  }

  /** A published build crash-loops: every workload running it has no available pod while it does. */
  breakBuild(digest: string): void {
    this.brokenDigests.add(digest);
  }

  /** Whether a workload runs a crash-looping build in any container. */
  runsBrokenBuild(id: string): boolean {
    return Object.values(this.workload(id).images).some((image) =>
      this.brokenDigests.has(image.slice(image.indexOf('@') + 1)),
    );
  }

  /**
   * `oras push` of a fleet halt document under `repo:tag` (docs/behaviour.md
   * §3.4b), and — `signed` — `cosign sign` of its digest with the trusted key.
   * Returns the artifact's manifest digest.
   */
  publishHalt(document: string, options: { signed: boolean; repo: string; tag: string }): string {
    const digest = simDigest(`fleet halt ${document}`);
    this.haltDocuments.set(digest, document);
    this.registry.set(`${options.repo}:${options.tag}`, digest);
    if (options.signed) this.sign(options.repo, digest);
    return digest;
  }

  /** A tag is deleted: its HEAD answers 404 (how a fleet halt is lifted). */
  deleteTag(repo: string, tag: string): void {
    this.registry.delete(`${repo}:${tag}`);
  }

  /** Arm a fault for the next `times` reads of a fleet halt's document. */
  injectHaltDocumentFault(fault: HaltDocumentFault, times = 1): void {
    this.haltDocumentFaults.splice(0, this.haltDocumentFaults.length, { fault, remaining: times });
  }

  /** Takes the armed fault for a halt document read, if any. */
  takeHaltDocumentFault(): HaltDocumentFault | undefined {
    const armed = this.haltDocumentFaults[0];
    if (armed === undefined) return undefined;
    armed.remaining -= 1;
    if (armed.remaining <= 0) this.haltDocumentFaults.pop();
    return armed.fault;
  }

  /** The fault the next halt document read will meet, without taking it. */
  armedHaltDocumentFault(): HaltDocumentFault | undefined {
    return this.haltDocumentFaults[0]?.fault;
  }

  /** Move the tag to a build that provides `platforms` (a string: a manifest that cannot be read). */
  publishFor(repo: string, digest: string, platforms: readonly Platform[] | string): void {
    this.platformsByDigest.set(digest, platforms);
    this.publish(repo, digest);
  }

  /** What the registry's manifest of `digest` says it provides (PLATFORM_CHECK). */
  platformsOf(digest: string): readonly Platform[] | string {
    return this.platformsByDigest.get(digest) ?? SIM_PLATFORMS;
  }

  /** Arm a fault for the next `times` platform reads of one repo. */
  injectPlatformFault(repo: string, fault: PlatformFault, times = 1): void {
    this.platformFaults.set(repo, { fault, remaining: times });
  }

  /** Takes the armed fault for a repo's platform read, if any. */
  takePlatformFault(repo: string): PlatformFault | undefined {
    return take(this.platformFaults, repo);
  }

  /** The link is slow for `digest`: a pull of it takes `ms` on every node (PREPULL's `slow-link`). */
  slowLink(digest: string, ms: number): void {
    this.nodes.pullMs.set(digest, ms);
  }

  /** Whether every node of the workload holds every image its pod spec names now: new pods wait for a pull otherwise. */
  imagesPulled(id: string): boolean {
    const images = Object.values(this.workload(id).images);
    return this.nodes.nodesOf(id).every((node) => images.every((ref) => this.nodes.present(node, ref, this.clockMs)));
  }

  /** A trusted key signs `repo@digest` (cosign sign). */
  sign(repo: string, digest: string): void {
    this.signedDigests.add(`${repo}@${digest}`);
  }

  /** Arm a fault for the next `times` signature checks of one repo. */
  injectSignatureFault(repo: string, fault: SignatureFault, times = 1): void {
    this.signatureFaults.set(repo, { fault, remaining: times });
  }

  /** The fault the next signature check of a repo will meet, without taking it. */
  armedSignatureFault(repo: string): SignatureFault | undefined {
    return this.signatureFaults.get(repo)?.fault;
  }

  /** Takes the armed fault for a repo's signature check, if any. */
  takeSignatureFault(repo: string): SignatureFault | undefined {
    return take(this.signatureFaults, repo);
  }

  /** Change how a workload's rollouts go from now on; `settles` or `flaps` also finishes a stalled rollout. */
  setBehaviour(id: string, behaviour: RolloutBehaviour): void {
    const workload = this.workload(id);
    workload.behaviour = behaviour;
    // A workload that starts settling finishes the rollout it was stuck in.
    if (behaviour === 'settles' || behaviour === 'flaps') workload.rolloutPending = false;
  }

  /**
   * Arm a fault for the next `times` calls of a cluster port operation
   * (Infinity: until cleared); with `key`, only for bookkeeping patches whose
   * changes, spelled `key=value` / `key-`, starts with it.
   */
  injectClusterFault(op: ClusterOp, fault: ClusterFault, times = 1, key?: string): void {
    this.armClusterFault(key === undefined ? { op } : { op, key }, fault, times);
  }

  /** Arm a fault for a {@link FaultTarget}: an operation, a patch making one change, or the nth call of a read. */
  armClusterFault(target: FaultTarget, fault: ClusterFault, times = 1): void {
    this.clusterFaults.set(slotOf(target), { target, fault, remaining: times });
  }

  /** Arm a fault for the next `times` resolutions of one repo (Infinity: until cleared). */
  injectRegistryFault(repo: string, fault: RegistryFault, times = 1): void {
    this.registryFaults.set(repo, { fault, remaining: times });
  }

  /** Disarm every fault. */
  clearFaults(): void {
    this.clusterFaults.clear();
    this.registryFaults.clear();
    this.signatureFaults.clear();
    this.haltDocumentFaults.splice(0);
    this.platformFaults.clear();
  }

  /** A human (or a monitoring system) edits the bookkeeping. */
  setAnnotation(key: string, value: string | undefined): void {
    if (value === undefined) delete this.annotations[key];
    else this.annotations[key] = value;
  }

  /**
   * `helm upgrade` re-renders the chart: every container of the workload is
   * back on repo:tag, owned by helm — undoing any pin (RECONCILE_LIVE, I23). A spec
   * change, so a rollout like any other.
   */
  helmRerender(id: string): void {
    const w = this.workload(id);
    const { containers } = workloadOf(this.config.topology, id);
    const changed = containers.some(
      ({ container, image }) => w.images[container] !== renderedImage(this.config, image),
    );
    for (const { container, image } of containers) {
      w.images[container] = renderedImage(this.config, image);
      w.imageOwners[container] = 'helm';
    }
    if (changed) w.generation += 1;
  }

  /** Someone sets one container's image by hand (`kubectl set image`). */
  setLiveImage(id: string, container: string, image: string, owner = 'kubectl-set'): void {
    const w = this.workload(id);
    if (w.images[container] === image) return;
    w.images[container] = image;
    w.imageOwners[container] = owner;
    w.generation += 1;
  }

  /** The gate is deleted: every read of it is NotFound (I2), its annotations are gone. */
  deleteGate(): void {
    this.workload(this.gateId).exists = false;
    this.annotations = {};
  }

  /** `helm upgrade` re-creating the gate: repo:tag again, no annotations. */
  recreateGate(): void {
    this.workloads[this.gateId] = freshWorkload(this.config.topology.gate, this.config);
    this.annotations = {};
  }

  /** A deep copy with the same state, armed faults and clock, and an empty call log (I20 replays a tick on it). */
  clone(): SimWorld {
    const copy = new SimWorld(this.config);
    copy.clockMs = this.clockMs;
    copy.uid = this.uid;
    copy.readsThisTick = this.readsThisTick;
    copy.tickSettled = this.tickSettled;
    for (const [id, w] of Object.entries(this.workloads)) {
      copy.workloads[id] = { ...w, images: { ...w.images }, imageOwners: { ...w.imageOwners } };
    }
    copy.annotations = { ...this.annotations };
    copy.registry.clear();
    for (const [key, digest] of this.registry) copy.registry.set(key, digest);
    copy.rateLimitRemaining = this.rateLimitRemaining;
    for (const e of this.kubeEvents) copy.kubeEvents.push({ ...e });
    for (const digest of this.brokenDigests) copy.brokenDigests.add(digest);
    for (const [slot, armed] of this.clusterFaults) copy.clusterFaults.set(slot, { ...armed });
    for (const [repo, armed] of this.registryFaults) copy.registryFaults.set(repo, { ...armed });
    for (const signed of this.signedDigests) copy.signedDigests.add(signed);
    for (const published of this.publishedDigests) copy.publishedDigests.add(published);
    for (const repo of this.mirrorLagging) copy.mirrorLagging.add(repo);
    for (const repo of this.mirrorCorrupt) copy.mirrorCorrupt.add(repo);
    for (const [repo, armed] of this.signatureFaults) copy.signatureFaults.set(repo, { ...armed });
    for (const [digest, document] of this.haltDocuments) copy.haltDocuments.set(digest, document);
    for (const armed of this.haltDocumentFaults) copy.haltDocumentFaults.push({ ...armed });
    this.nodes.copyInto(copy.nodes);
    for (const [digest, platforms] of this.platformsByDigest) copy.platformsByDigest.set(digest, platforms);
    for (const [repo, armed] of this.platformFaults) copy.platformFaults.set(repo, { ...armed });
    return copy;
  }

  /** The fault armed for exactly this target (an operation, or a patch naming a key), without taking it. */
  armedClusterFault(op: ClusterOp, key?: string): ClusterFault | undefined {
    return this.clusterFaults.get(slotOf(key === undefined ? { op } : { op, key }))?.fault;
  }

  /** Every armed cluster fault with its target, in the order armed. */
  armedClusterFaults(): readonly { readonly target: FaultTarget; readonly fault: ClusterFault }[] {
    return [...this.clusterFaults.values()].map(({ target, fault }) => ({ target, fault }));
  }

  /** The fault the next resolution of a repo will meet, without taking it. */
  armedRegistryFault(repo: string): RegistryFault | undefined {
    return this.registryFaults.get(repo)?.fault;
  }

  // --- what the ports read ---------------------------------------------------

  /**
   * Takes the armed fault a call meets, if any: for a bookkeeping patch, a
   * fault on a change it makes comes before one on the whole operation; for
   * a read of the gate (`readIndex`, its place in the
   * tick), a fault on that read before one on the next read.
   */
  takeClusterFault(op: ClusterOp, changes?: BookkeepingChanges, readIndex?: number): ClusterFault | undefined {
    const armed = [...this.clusterFaults.values()].filter(({ target }) => target.op === op);
    const due =
      armed.find(
        ({ target }) => changes !== undefined && target.key !== undefined && changeMatches(changes, target.key),
      ) ??
      armed.find(
        ({ target }) =>
          target.readIndex !== undefined &&
          (this.tickSettled ? target.readIndex : (target.unsettledReadIndex ?? target.readIndex)) === readIndex,
      ) ??
      armed.find(({ target }) => target.key === undefined && target.readIndex === undefined);
    return due === undefined ? undefined : take(this.clusterFaults, slotOf(due.target));
  }

  /**
   * The index a read of the gate has in its tick: the
   * guard's read (with a settle window) is 0, and what it finds decides
   * whether a fault's `unsettledReadIndex` applies for the rest of the tick.
   */
  nextReadIndex(settleWithinMs: number): number {
    if (settleWithinMs > 0) {
      this.readsThisTick = 0;
      this.tickSettled = this.settlednessOf(this.gateId, 'top-of-tick')._tag === 'Settled';
    } else this.readsThisTick += 1;
    return this.readsThisTick;
  }

  /** Takes the armed fault for a repo's resolution, if any. */
  takeRegistryFault(repo: string): RegistryFault | undefined {
    return take(this.registryFaults, repo);
  }

  /** What kubectl's rules say of a workload now, at the top of a tick or during a rollout wait (flaps differ). */
  settlednessOf(id: string, phase: StatusPhase): Settledness {
    const w = this.workload(id);
    // New pods that wait for their image to be pulled are not available (docs/behaviour.md §3.5a).
    const status =
      this.runsBrokenBuild(id) || (w.rolloutPending && !this.imagesPulled(id))
        ? { updated: true, available: false }
        : statusOf(w, phase);
    const name = this.nameOf(id);
    if (w.kind === 'DaemonSet') {
      const view: DaemonSetRolloutView = {
        name,
        updateStrategy: 'RollingUpdate',
        generation: w.generation,
        observedGeneration: w.generation,
        desiredNumberScheduled: SIM_NODE_NAMES.length,
        updatedNumberScheduled: status.updated ? SIM_NODE_NAMES.length : 0,
        numberAvailable: status.available ? SIM_NODE_NAMES.length : 0,
      };
      return daemonSetSettledness(view);
    }
    const view: DeploymentRolloutView = {
      name,
      generation: w.generation,
      specReplicas: 1,
      observedGeneration: w.generation,
      replicas: 1,
      updatedReplicas: status.updated ? 1 : 0,
      availableReplicas: status.available ? 1 : 0,
      conditions: [],
    };
    return deploymentSettledness(view);
  }

  /** The workload's object name under the config. */
  nameOf(id: string): string {
    return workloadOf(this.config.topology, id).name;
  }

  /** The workload's kind as the API's resource names it: `deployment`, `daemonset`. */
  kindOf(id: string): string {
    return workloadOf(this.config.topology, id).kind.toLowerCase();
  }

  /** Append a call to {@link SimWorld.calls}, stamped with the clock. */
  log(call: Omit<SimCall, 'at'>): void {
    this.calls.push({ ...call, at: this.clockMs });
  }
}

const take = <K, F>(faults: Map<K, Armed<F>>, key: K): F | undefined => {
  const armed = faults.get(key);
  if (armed === undefined) return undefined;
  armed.remaining -= 1;
  if (armed.remaining <= 0) faults.delete(key);
  return armed.fault;
};

/** Whether new pods exist and whether they are available, by behaviour. */
const statusOf = (w: SimWorkload, phase: StatusPhase): { updated: boolean; available: boolean } => {
  switch (w.behaviour) {
    case 'settles':
      return { updated: true, available: true };
    case 'stalls':
      return w.rolloutPending ? { updated: false, available: true } : { updated: true, available: true };
    case 'flaps':
      return phase === 'top-of-tick' ? { updated: true, available: true } : { updated: true, available: false };
    case 'fallsApart':
      return phase === 'stability-watch' ? { updated: true, available: false } : { updated: true, available: true };
    case 'neverReady':
      return { updated: true, available: false };
  }
};
