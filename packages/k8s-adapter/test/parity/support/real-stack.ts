import {
  runTick,
  type TickConfig,
  type TickOutcome,
  type TickPorts,
  type WorkloadKind,
  type WorkloadRef,
  workloadOf,
} from '@image-refresh/core';
import type { ClusterFault, ClusterOp, RolloutBehaviour } from '@image-refresh/core/sim';
import { KubeConfig } from '@kubernetes/client-node';
import { createClusterPort } from '../../../src/cluster/index.js';
import { createEventsPort } from '../../../src/events/index.js';
import { createRegistryPort } from '../../../src/registry/index.js';
import { annotationsOf, imagesOf } from '../../support/fake-api-chart.js';
import { seriesCount } from '../../support/fake-api-events.js';
import type { Fault, FaultMatch } from '../../support/fake-api-faults.js';
import type { RecordedRequest } from '../../support/fake-api-server.js';
import { renderedImage, startTopologyCluster, type TopologyCluster } from '../../support/fake-api-topology.js';
import { localOnlyFetch } from '../../support/registry-local-fetch.js';
import type { ParityRegistry } from './parity-registry.js';
import type { WorldCall } from './recording-world.js';
import { isProxyFault, type ProxyFault } from './registry-fault-proxy.js';
import { type Flapping, restAs, stageFlapping } from './world-controls.js';

// The simulator's world, staged on the real stack: the fake Kubernetes API
// server holding a fresh install of the config's topology (the chart's
// release, or any profile's: docs/profiles.md), and the real registry behind
// the fault proxy. Each world event a core scenario causes
// (recording-world.ts) is translated into what would cause it there — a
// manifest pushed, a status the Deployment controller would write, a fault
// armed on the API route the port operation uses — and a tick runs core's
// machine on the REAL adapters (createClusterPort, createRegistryPort and
// createEventsPort), fresh ones per tick as the CLI's wiring makes them for
// the CronJob's one tick.
//
// Every name — the gate, its bookkeeping prefix, the workloads, their
// containers and images — is the config's topology's, so a story told on
// any profile is staged on that profile's cluster, not the chart's.
//
// Digests: the simulator's are labels hashed (simDigest), the registry's are
// sha256 of pushed manifests, so they can never be equal. Every publish in
// the simulator pushes a fresh manifest here and remembers sim digest → real
// digest; `translate` rewrites a simulator value with that map, so outcomes,
// annotations and images are compared for exact equality, digest for digest.

/** Where a fault's requests go on the real API, and how to tell its request apart. */
interface FaultRoute {
  readonly match: FaultMatch;
  /** What the operation's PATCH body carries: proves the fault hit the intended write. */
  readonly carries: string;
}

/**
 * A simulator fault scope (`key=` sets it, `key-` removes it, else a key
 * prefix: sim-world.ts) as text of the JSON merge patch that makes that change.
 */
const patchBodyOf = (scope: string): string =>
  scope.endsWith('=')
    ? `"${scope.slice(0, -1)}":"`
    : scope.endsWith('-')
      ? `"${scope.slice(0, -1)}":null`
      : `"${scope}`;

/**
 * The faults that can be staged on the real API. The others are not
 * expressible and throw: the adapter answers the bookkeeping reads (the
 * streak, refresh-attempt, the recorded digests) from the one GET of the
 * tick, so only the guard's read of the gate can fail there
 * (docs/behaviour.md §5); setImages and waitForRollout of the gate share their route with
 * the writes and the guard's read. A bookkeeping patch fault is routed to the
 * first PATCH of the gate whose body makes the change its scope names.
 */
const faultRoute = (gate: WorkloadRef, op: ClusterOp, scope: string | undefined): FaultRoute | undefined => {
  if (op === 'readGate' && scope === undefined)
    return { match: { route: 'get', kind: gate.kind, name: gate.name }, carries: '' };
  if (op !== 'patchBookkeeping' || scope === undefined) return undefined;
  const carries = patchBodyOf(scope);
  return { match: { route: 'patch', kind: gate.kind, name: gate.name, bodyIncludes: carries }, carries };
};

/** The apiserver's plural resource name of a workload kind, as its messages spell it. */
const RESOURCE: Readonly<Record<WorkloadKind, string>> = { Deployment: 'deployments', DaemonSet: 'daemonsets' };

/** What the API server (or the network) answers for each of the simulator's fault classes, about the gate. */
const apiFaultsOn = (gate: WorkloadRef): Readonly<Record<ClusterFault, Fault>> => {
  const resource = RESOURCE[gate.kind];
  return {
    NotFound: { kind: 'status', code: 404, message: `${resource}.apps "${gate.name}" not found` },
    // client-node drops a 401's body: the port says `Unauthorized` whatever the server wrote.
    Unauthorized: { kind: 'status', code: 401, message: 'Unauthorized' },
    Forbidden: {
      kind: 'status',
      code: 403,
      message: `${resource}.apps "${gate.name}" is forbidden: User "system:serviceaccount:${gate.namespace}:image-refresh" cannot get resource "${resource}" in API group "apps" in the namespace "${gate.namespace}"`,
    },
    // The apiserver's own request timeout.
    Timeout: { kind: 'status', code: 504, message: 'the server was unable to return a response in the time allotted' },
    // A dropped connection: no HTTP answer at all.
    Transport: { kind: 'reset' },
    Malformed: { kind: 'malformed' },
    Hang: { kind: 'hang' },
  };
};

interface ArmedApiFault {
  /** The simulator's target: `op`, or `op scope`. */
  readonly op: string;
  readonly fault: ClusterFault;
  readonly route: FaultRoute;
}

export interface RealTick {
  readonly outcome: TickOutcome;
  /** Every request the fake API server received during the tick. */
  readonly apiRequests: readonly RecordedRequest[];
  /** Every request that reached the registry proxy during the tick, as `METHOD path auth`. */
  readonly registryRequests: readonly string[];
  /** The scopes of each token request of the tick. */
  readonly tokenRequests: readonly (readonly string[])[];
  /** The staged faults this tick met, as `op fault` / `registry repo fault`, in the order met. */
  readonly faultsMet: readonly string[];
  readonly elapsedMs: number;
}

export interface RealState {
  /** The tick's bookkeeping on the gate (the annotations under the profile's prefix). */
  readonly annotations: Readonly<Record<string, string>>;
  /** Container images of every workload of the topology, by workload id. */
  readonly images: Readonly<Record<string, Readonly<Record<string, string>>>>;
}

export interface RealStackOptions {
  /** The tick's config; its topology is the cluster the stack seeds. */
  readonly config: TickConfig;
  readonly registry: ParityRegistry;
  /** How often the cluster port re-reads an unsettled workload. */
  readonly pollIntervalMs: number;
  /** How long each step of the fake Deployment controller takes. */
  readonly stepMs: number;
}

export class RealStack {
  /** Simulator digest → the registry's digest of the manifest pushed for it. */
  private readonly digests = new Map<string, string>();
  /** Workloads that flap, in the simulator's meaning (world-controls.ts). */
  private readonly flapping: Flapping;
  private readonly apiFaults: ArmedApiFault[] = [];
  private readonly registryFaults = new Map<string, { fault: ProxyFault; remaining: number }>();
  private readonly kubeConfig = new KubeConfig();
  /** Simulator digests of crash-looping builds (SimWorld.breakBuild). */
  private readonly broken = new Set<string>();
  private readonly stopBrokenBuilds: () => void;
  /** What the API server answers for each fault class: about the gate, the object those routes name. */
  private readonly apiFaultAnswers: Readonly<Record<ClusterFault, Fault>>;

  private constructor(
    readonly cluster: TopologyCluster,
    private readonly options: RealStackOptions,
  ) {
    this.kubeConfig.loadFromFile(cluster.kubeconfig.path);
    this.flapping = stageFlapping(cluster, options.config.topology);
    this.stopBrokenBuilds = this.stageBrokenBuilds();
    this.apiFaultAnswers = apiFaultsOn(this.gate);
  }

  /** The workload that gates the tick and holds its bookkeeping (docs/behaviour.md §3.2). */
  private get gate(): WorkloadRef {
    return this.refOf(this.config.topology.gate.id);
  }

  /** Where a workload of the topology lives. */
  private refOf(id: string): WorkloadRef {
    const { kind, name, namespace } = workloadOf(this.config.topology, id);
    return { id, kind, name, namespace };
  }

  /**
   * The simulator's crash-looping build (SimWorld.breakBuild): a pod spec naming one is
   * rolled by the fake controller as `stalls` (updated, never available — the
   * simulator's status of a workload running it), any other as `settles`. The
   * behaviour is set on the spec change's own MODIFIED event, which the store
   * sends before it schedules the controller's steps.
   */
  private stageBrokenBuilds(): () => void {
    const { store } = this.cluster.server;
    const watch = (kind: 'Deployment' | 'DaemonSet', namespace: string) =>
      store.watch(kind, namespace, undefined, (event) => {
        if (this.broken.size === 0) return;
        const bad = [...this.broken].map((d) => `@${this.digests.get(d) ?? d}`);
        const crashes = Object.values(imagesOf(event.object)).some((image) => bad.some((b) => image.endsWith(b)));
        const name = (event.object.metadata as { name: string }).name;
        store.setBehaviour(kind, namespace, name, crashes ? 'stalls' : 'settles');
      });
    const stops = this.workloadPlaces().map(({ kind, namespace }) => watch(kind, namespace));
    return () => {
      for (const stop of stops) stop();
    };
  }

  /** Each (kind, namespace) the topology's workloads live in, once: what a watch is opened on. */
  private workloadPlaces(): { kind: WorkloadKind; namespace: string }[] {
    const places = new Map(
      this.config.topology.workloads.map(({ kind, namespace }) => [`${kind}/${namespace}`, { kind, namespace }]),
    );
    return [...places.values()];
  }

  /**
   * The topology's fresh install, and build 1 of every image pushed under the
   * tag it follows — the simulator's starting world. `firstBuilds`: the
   * simulator's digest of build 1, by repo.
   */
  static async start(options: RealStackOptions, firstBuilds: ReadonlyMap<string, string>): Promise<RealStack> {
    const stack = new RealStack(await startTopologyCluster(options.config, { stepMs: options.stepMs }), options);
    try {
      for (const { repo, tag } of options.config.topology.images) {
        const simulated = firstBuilds.get(repo);
        if (simulated === undefined) throw new Error(`the simulator published no first build of ${repo}`);
        await stack.publish(repo, simulated, tag);
      }
      return stack;
    } catch (error) {
      await stack.close();
      throw error;
    }
  }

  get config(): TickConfig {
    return this.options.config;
  }

  /** A simulator value with every simulator digest replaced by the registry's digest for the same build. */
  translate<T>(value: T): T {
    if (typeof value === 'string') {
      return value.replace(/sha256:[0-9a-f]{64}/g, (digest) => this.digests.get(digest) ?? digest) as T;
    }
    if (Array.isArray(value)) return value.map((v: unknown) => this.translate(v)) as T;
    if (typeof value === 'object' && value !== null) {
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, this.translate(v)])) as T;
    }
    return value;
  }

  /** Cause on the real stack what `call` caused in the simulator. */
  async apply(call: WorldCall): Promise<void> {
    switch (call.method) {
      case 'publish': {
        const [repo, digest, tag] = call.args;
        await this.publish(repo, digest, tag ?? this.config.imageTag);
        return;
      }
      case 'setBehaviour':
        this.setBehaviour(...call.args);
        return;
      case 'setAnnotation': {
        const [key, value] = call.args;
        // A human with `kubectl annotate` on the gate: a merge patch under kubectl's field manager.
        const { kind, namespace, name } = this.gate;
        this.cluster.server.store.patch(
          kind,
          namespace,
          name,
          'merge',
          { metadata: { annotations: { [key]: value ?? null } } },
          'kubectl-annotate',
        );
        return;
      }
      case 'helmRerender': {
        // `helm upgrade`: each container's image at the tag it follows, as
        // the topology maps them, written under helm's field manager — then
        // at rest, as the simulator's world is once the tick looks.
        const [id] = call.args;
        const images = workloadOf(this.config.topology, id).containers.map(({ container, image }) => ({
          name: container,
          image: renderedImage(this.config, image),
        }));
        this.patchContainers(this.refOf(id), images, 'helm');
        return;
      }
      case 'setLiveImage': {
        // `kubectl set image` by a human, on one container.
        const [id, container, image, owner = 'kubectl-set'] = call.args;
        this.patchContainers(this.refOf(id), [{ name: container, image: this.translate(image) }], owner);
        return;
      }
      case 'injectClusterFault': {
        const [op, fault, times = 1, scope] = call.args;
        const route = faultRoute(this.gate, op, scope);
        if (route === undefined) {
          throw new Error(`a fault on ${op} ${scope ?? ''} is not expressible on the real API (see faultRoute)`);
        }
        // The simulator counts port calls, the fake server counts requests, and
        // one call can be several requests (an unsettled guard polls): only a
        // single fault, on the operation's first request, means the same on both.
        if (times !== 1) throw new Error(`a fault armed for ${times} calls of ${op} is not expressible as requests`);
        this.cluster.server.inject(route.match, this.apiFaultAnswers[fault], 1);
        this.apiFaults.push({ op: scope === undefined ? op : `${op} ${scope}`, fault, route });
        return;
      }
      case 'breakBuild': {
        const [digest] = call.args;
        this.broken.add(digest);
        return;
      }
      case 'injectRegistryFault': {
        const [repo, fault, times = 1] = call.args;
        if (!isProxyFault(fault)) throw new Error(`registry fault ${fault} is not staged by the fault proxy`);
        // The simulator resolves each repo once per tick, the adapter may send
        // it two requests (anonymous probe, then with a token): the fault holds
        // for every request of the tick, for `times` ticks that resolve it.
        this.registryFaults.set(repo, { fault, remaining: times });
        this.options.registry.proxy.arm(repo, fault);
        return;
      }
    }
  }

  /** A strategic merge of container images under a field manager, left at rest like the simulator's. */
  private patchContainers(
    ref: WorkloadRef,
    containers: readonly { name: string; image: string }[],
    manager: string,
  ): void {
    const { store } = this.cluster.server;
    store.patch(
      ref.kind,
      ref.namespace,
      ref.name,
      'strategic',
      { spec: { template: { spec: { containers: containers.map((c) => ({ ...c })) } } } },
      manager,
    );
    restAs(this.cluster, ref, 'settles');
  }

  /** One tick of core's machine on the real adapters (fresh ones unless given); what it did and what it cost. */
  async tick(ports: TickPorts = this.ports()): Promise<RealTick> {
    const { server } = this.cluster;
    const { proxy, tokens } = this.options.registry;
    const from = {
      api: server.requests.length,
      registry: proxy.seen.length,
      tokens: tokens.scopeRequests.length,
      faulted: proxy.faulted.length,
    };
    const started = Date.now();
    const outcome = await runTick(this.config, ports);
    const elapsedMs = Date.now() - started;
    const apiRequests = server.requests.slice(from.api);
    const faultsMet = [...this.apiFaultsMet(apiRequests), ...this.registryFaultsMet(proxy.faulted.slice(from.faulted))];
    // The simulator's flapping workload is Ready again once the failed wait is over.
    this.flapping.readyAgain();
    return {
      outcome,
      apiRequests,
      registryRequests: proxy.seen
        .slice(from.registry)
        .map((r) => `${r.method} ${r.url} ${r.authorization === undefined ? 'anonymous' : 'token'}`),
      tokenRequests: tokens.scopeRequests.slice(from.tokens),
      faultsMet,
      elapsedMs,
    };
  }

  /** The tick's bookkeeping and every workload's images, as the API server holds them now. */
  state(): RealState {
    // Only the tick's own annotations, under the profile's prefix
    // (docs/profiles.md): the fake seeds the Deployment controller's revision
    // annotation, which the simulator does not model.
    const prefix = `${this.config.topology.profile.annotationPrefix}/`;
    const annotations = Object.fromEntries(
      Object.entries(annotationsOf(this.cluster.workload(this.gate.id))).filter(([key]) => key.startsWith(prefix)),
    );
    return {
      annotations,
      images: Object.fromEntries(
        this.config.topology.workloads.map(({ id }) => [id, imagesOf(this.cluster.workload(id))]),
      ),
    };
  }

  /**
   * The Kubernetes Events recorded so far, one line per reason as `type reason
   * ×count` like the simulator's: the port may split one reason over several
   * Events (one per note shape, events/event-name.ts), so their counts
   * (series.count, or 1 before a repeat) are added up.
   */
  kubeEvents(): string[] {
    const byReason = new Map<string, number>();
    for (const e of this.cluster.server.events.all()) {
      const key = `${String(e.type)} ${String(e.reason)}`;
      const count = seriesCount(e);
      byReason.set(key, (byReason.get(key) ?? 0) + count);
    }
    return [...byReason].map(([key, count]) => `${key} ×${count}`).sort();
  }

  /** Fresh ports, as the CronJob builds them for its one tick (wiring/connect.ts). */
  ports(): TickPorts {
    return {
      cluster: createClusterPort(this.kubeConfig, this.config, {
        pollIntervalMs: this.options.pollIntervalMs,
        progressIntervalMs: 60_000,
      }),
      events: createEventsPort(this.kubeConfig, this.config, { reportingInstance: 'parity' }),
      registry: createRegistryPort({
        baseUrl: this.config.registryUrl,
        authUrl: this.config.authUrl,
        timeoutMs: this.config.registryTimeoutMs,
        fetch: localOnlyFetch,
      }),
    };
  }

  async close(): Promise<void> {
    this.flapping.stop();
    this.stopBrokenBuilds();
    for (const repo of this.registryFaults.keys()) this.options.registry.proxy.disarm(repo);
    await this.cluster.close();
  }

  private async publish(repo: string, simulated: string, tag: string): Promise<void> {
    if (this.digests.has(simulated)) {
      throw new Error(`${simulated} was published before: moving a tag back to an old build is not modelled`);
    }
    this.digests.set(simulated, await this.options.registry.push(repo, tag));
  }

  /**
   * The simulator's rollout behaviours, staged with the fake controller:
   * - settles: the controller completes rollouts, and one in flight finishes now;
   * - stalls: the next rollout never completes (the fake's stalls);
   * - neverReady: unsettled right away — a new pod Runs, never Ready, the old
   *   one kept (the fake's neverReady resting status);
   * - flaps: see stageFlapping — not the fake's own `flaps`, which tells
   *   another story.
   */
  private setBehaviour(id: string, behaviour: RolloutBehaviour): void {
    const ref = this.refOf(id);
    const { store } = this.cluster.server;
    this.flapping.delete(ref);
    switch (behaviour) {
      case 'settles':
        store.setBehaviour(ref.kind, ref.namespace, ref.name, 'settles');
        restAs(this.cluster, ref, 'settles');
        return;
      case 'stalls':
        store.setBehaviour(ref.kind, ref.namespace, ref.name, 'stalls');
        return;
      case 'neverReady':
        store.setBehaviour(ref.kind, ref.namespace, ref.name, 'neverReady');
        restAs(this.cluster, ref, 'neverReady');
        return;
      case 'flaps':
        this.flapping.add(ref);
        return;
    }
  }

  /** The API faults met this tick, each checked to have hit the request of its own operation. */
  private apiFaultsMet(requests: readonly RecordedRequest[]): string[] {
    const met: string[] = [];
    for (const request of requests) {
      if (request.fault === undefined) continue;
      const index = this.apiFaults.findIndex(
        (f) =>
          f.route.match.route === request.route &&
          f.route.match.name === request.name &&
          request.body.includes(f.route.match.bodyIncludes ?? ''),
      );
      const armed = this.apiFaults[index];
      if (armed === undefined) throw new Error(`a fault nobody armed met ${request.method} ${request.path}`);
      this.apiFaults.splice(index, 1);
      const onItsOwnRequest = request.route !== 'patch' || request.body.includes(armed.route.carries);
      met.push(onItsOwnRequest ? `${armed.op} ${armed.fault}` : `${armed.op} ${armed.fault} met another write`);
    }
    return met;
  }

  /** The registry faults met this tick; a fault is used up by the tick that resolved its repo. */
  private registryFaultsMet(faulted: readonly string[]): string[] {
    const met: string[] = [];
    for (const [repo, armed] of this.registryFaults) {
      if (!faulted.includes(`${repo} ${armed.fault}`)) continue;
      met.push(`registry ${repo} ${armed.fault}`);
      armed.remaining -= 1;
      if (armed.remaining <= 0) {
        this.registryFaults.delete(repo);
        this.options.registry.proxy.disarm(repo);
      }
    }
    return met;
  }
}
