import {
  describePortError,
  describeWorkload,
  formatDuration,
  type PortError,
  type StagingFailure,
  type StagingPort,
  type StagingRequest,
  type StagingResult,
  type StagingTarget,
  type TickConfig,
} from '@image-refresh/core';
import type { KubeConfig } from '@kubernetes/client-node';
import * as E from 'fp-ts/lib/Either.js';
import { boundedCall, untilAborted } from '../bounds/bounded-call.js';
import { type AppsApi, createAppsApi } from '../cluster/apps-api.js';
import { DEFAULT_POLL_INTERVAL_MS, DEFAULT_PROGRESS_INTERVAL_MS } from '../cluster/cluster-port-options.js';
import { type CoreApi, callCore, createCoreApi } from './core-api.js';
import { MANAGED_BY, STAGING_FOR, stagingPod, stagingPodName } from './staging-pod.js';
import { stagingStateOf } from './staging-state.js';
import { nodesOf, readPlacement, type WorkloadPlacement } from './workload-nodes.js';

// PREPULL (docs/behaviour.md §3.5a) on the Kubernetes API: for each workload
// of the tick's plan, the nodes its pods run on now; on each, PREPULL_PARALLEL
// at a time, a staging pod (staging-pod.ts) polled with one bounded GET every
// 2 s — no watch: client-node 1.4.0's has no effective timeout — until its
// containers have left the pulling state (staging-state.ts), and deleted.
// PREPULL_TIMEOUT is the whole call's deadline. Pods a killed tick left are
// found by label in both namespaces: the one this tick would make itself (same
// workload, node and images: the same name) is reused, any other removed.
// Every pod of the call is deleted before it answers — interrupted too: the
// deletions are writes, which a SIGTERM lets finish within their bound.

/** What a caller may tune on `createStagingPort`; every field is optional. */
export interface StagingPortOptions {
  /** How often a staging pod is read while it pulls (default 2 s). */
  readonly pollIntervalMs?: number;
  /** How often `onProgress` is told what staging waits for (default 30 s). */
  readonly progressIntervalMs?: number;
  /** Told, at least every `progressIntervalMs`, what each node still pulls; and a staging pod that could not be deleted. */
  readonly onProgress?: (line: string) => void;
  /** The tick's signal: aborting it aborts every request in flight, deletions included (the tick is over). */
  readonly signal?: AbortSignal;
  /** The tick's interruption (SIGTERM): ends every wait and read at once; the deletions still run. */
  readonly abortReads?: AbortSignal;
}

type NodeResult = { readonly _tag: 'Staged' } | { readonly _tag: 'Failed'; readonly reason: string };

interface PodKey {
  readonly namespace: string;
  readonly name: string;
}

const keyOf = (pod: PodKey): string => `${pod.namespace}/${pod.name}`;

const isTransient = (e: PortError): boolean => e._tag === 'Timeout' || e._tag === 'Transport';

/** One staging call: its deadline, the pods it made or found, and their deletion. */
class StagingRun {
  private readonly deadline: number;
  /** Every staging pod this call made or found, by `namespace/name`, until deleted. */
  private readonly pods = new Map<string, PodKey>();
  /** Pods a killed tick left, by `namespace/name`: reused when this tick would make the same one. */
  private readonly leftovers = new Set<string>();
  /** What each node in flight waits for, for the progress line. */
  private readonly inFlight = new Map<string, string>();
  private readonly started = Date.now();

  constructor(
    private readonly apps: AppsApi,
    private readonly core: CoreApi,
    private readonly request: StagingRequest,
    private readonly options: StagingPortOptions,
    private readonly namespaces: readonly string[],
  ) {
    this.deadline = this.started + request.timeoutMs;
  }

  private get passedBeforeItsTurn(): string {
    return `PREPULL_TIMEOUT=${formatDuration(this.request.timeoutMs)} passed before its turn`;
  }

  private get interrupted(): boolean {
    return this.options.signal?.aborted === true || this.options.abortReads?.aborted === true;
  }

  /** Sleeps `ms`, or less when the tick ends or is interrupted. */
  private sleep(ms: number): Promise<void> {
    return boundedCall({ timeoutMs: ms, parents: [this.options.signal, this.options.abortReads] }, untilAborted);
  }

  /** Staging pods a killed tick left in the namespaces, to reuse or remove. A list that fails is said, and staging goes on. */
  async findLeftovers(): Promise<void> {
    for (const namespace of this.namespaces) {
      const listed = await callCore(this.core, `LIST staging pods in ${namespace}`, 'read', (api, options) =>
        api.listNamespacedPod(
          { namespace, labelSelector: `${MANAGED_BY.key}=${MANAGED_BY.value},${STAGING_FOR}` },
          options,
        ),
      )();
      if (E.isLeft(listed)) {
        this.options.onProgress?.(
          `WARN: could not list staging pods left by an earlier tick (${describePortError(listed.left)})`,
        );
        continue;
      }
      for (const pod of listed.right.items) {
        const name = (pod as { metadata?: { name?: unknown } } | null)?.metadata?.name;
        if (typeof name !== 'string' || name === '') continue;
        const key = { namespace, name };
        this.leftovers.add(keyOf(key));
        this.pods.set(keyOf(key), key);
      }
    }
  }

  /** Delete one staging pod; a failure is said only by the clean-up's own try (`warn`), which retries it. */
  private async deletePod(pod: PodKey, warn = true): Promise<void> {
    if (!this.pods.has(keyOf(pod))) return;
    const deleted = await callCore(this.core, `DELETE pod/${pod.name} in ${pod.namespace}`, 'write', (api, options) =>
      api.deleteNamespacedPod({ name: pod.name, namespace: pod.namespace, gracePeriodSeconds: 0 }, options),
    )();
    if (E.isRight(deleted) || deleted.left._tag === 'NotFound') {
      this.pods.delete(keyOf(pod));
      return;
    }
    if (warn)
      this.options.onProgress?.(
        `WARN: could not delete staging pod ${pod.name} in ${pod.namespace} (${describePortError(deleted.left)}); the next tick that stages removes it`,
      );
  }

  /** Delete every staging pod of the call still there, all at once (one request bound). */
  async cleanUp(): Promise<void> {
    await Promise.all([...this.pods.values()].map((pod) => this.deletePod(pod)));
  }

  private async stageOnNode(target: StagingTarget, placement: WorkloadPlacement, node: string): Promise<NodeResult> {
    const { workload, images } = target;
    // No pod is started once the deadline has passed: the call's bound holds (core's stagingMs).
    if (Date.now() >= this.deadline) return { _tag: 'Failed', reason: this.passedBeforeItsTurn };
    const pod = { namespace: workload.namespace, name: stagingPodName(workload, node, images) };
    if (!this.leftovers.has(keyOf(pod))) {
      this.pods.set(keyOf(pod), pod);
      const body = stagingPod({
        ref: workload,
        node,
        images,
        facts: placement.facts,
        // The kubelet ends it by itself a minute after the deadline, should the tick be killed before it deletes it.
        activeDeadlineSeconds: Math.ceil(this.request.timeoutMs / 1_000) + 60,
      });
      const created = await callCore(this.core, `CREATE pod/${pod.name} in ${pod.namespace}`, 'write', (api, options) =>
        api.createNamespacedPod({ namespace: pod.namespace, body }, options),
      )();
      // 409: the very pod of an earlier tick (same name, same images and node): its pull goes on.
      if (E.isLeft(created) && created.left.status !== 409) {
        return { _tag: 'Failed', reason: `could not create a staging pod: ${describePortError(created.left)}` };
      }
    }
    /** What the pod said last, and the read that failed after it (a blip of the apiserver is retried). */
    let last = 'ContainerCreating';
    let lastError: PortError | undefined;
    const where = `${node} for ${describeWorkload(workload)}`;
    try {
      for (;;) {
        if (this.interrupted) return { _tag: 'Failed', reason: `interrupted while it pulled (${last})` };
        this.inFlight.set(where, last);
        const read = await callCore(this.core, `GET pod/${pod.name} in ${pod.namespace}`, 'read', (api, options) =>
          api.readNamespacedPod({ name: pod.name, namespace: pod.namespace }, options),
        )();
        if (E.isLeft(read)) {
          if (read.left._tag === 'NotFound')
            return { _tag: 'Failed', reason: 'the staging pod was deleted before it reported' };
          if (!isTransient(read.left)) return { _tag: 'Failed', reason: describePortError(read.left) };
          lastError = read.left;
        } else {
          lastError = undefined;
          const state = stagingStateOf(read.right);
          if (state._tag === 'Staged') {
            // Deleted as soon as it has done its job; should that fail, the clean-up tries again.
            await this.deletePod(pod, false);
            return state;
          }
          if (state._tag === 'Failed') return state;
          last = state.reason;
        }
        const left = this.deadline - Date.now();
        if (left <= 0) {
          return {
            _tag: 'Failed',
            reason: `still pulling when PREPULL_TIMEOUT=${formatDuration(this.request.timeoutMs)} passed (${last}${lastError === undefined ? '' : `; the last read failed: ${describePortError(lastError)}`})`,
          };
        }
        await this.sleep(Math.min(this.options.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS, left));
      }
    } finally {
      this.inFlight.delete(where);
    }
  }

  private async stageTarget(target: StagingTarget): Promise<StagingResult> {
    const notStaged = (reason: string): StagingResult => ({
      _tag: 'NotStaged',
      failures: [{ reason }],
      staged: [],
    });
    if (Date.now() >= this.deadline) return notStaged(this.passedBeforeItsTurn);
    const placement = await readPlacement(this.apps, target.workload)();
    if (E.isLeft(placement)) return notStaged(describePortError(placement.left));
    const nodes = await nodesOf(this.core, target.workload, placement.right.selector)();
    if (E.isLeft(nodes)) return notStaged(describePortError(nodes.left));
    const queue = [...nodes.right];
    const results = new Map<string, NodeResult>();
    const worker = async (): Promise<void> => {
      for (let node = queue.shift(); node !== undefined; node = queue.shift()) {
        results.set(node, await this.stageOnNode(target, placement.right, node));
      }
    };
    await Promise.all(Array.from({ length: Math.min(this.request.parallel, queue.length) }, worker));
    const failures: StagingFailure[] = nodes.right.flatMap((node) => {
      const result = results.get(node);
      return result?._tag === 'Failed' ? [{ node, reason: result.reason }] : [];
    });
    const staged = nodes.right.filter((node) => results.get(node)?._tag === 'Staged');
    return failures.length === 0 ? { _tag: 'Staged', nodes: staged } : { _tag: 'NotStaged', failures, staged };
  }

  /** Every target in order; a progress line at least every progressIntervalMs while nodes pull. */
  async all(): Promise<readonly StagingResult[]> {
    const { onProgress } = this.options;
    const ticker =
      onProgress === undefined
        ? undefined
        : setInterval(() => {
            const elapsed = formatDuration(Date.now() - this.started);
            for (const [where, reason] of this.inFlight) {
              onProgress(
                `staging on ${where}: ${reason} (${elapsed} of PREPULL_TIMEOUT=${formatDuration(this.request.timeoutMs)})`,
              );
            }
          }, this.options.progressIntervalMs ?? DEFAULT_PROGRESS_INTERVAL_MS);
    try {
      await this.findLeftovers();
      const results: StagingResult[] = [];
      for (const target of this.request.targets) results.push(await this.stageTarget(target));
      return results;
    } finally {
      if (ticker !== undefined) clearInterval(ticker);
    }
  }
}

/**
 * Core's `StagingPort` on the Kubernetes API (PREPULL=on), for one tick.
 *
 * Promises: every request is bounded by `config.apiTimeoutMs`; the whole call
 * by `request.timeoutMs` plus the request in flight at its deadline and the
 * deletions (one request bound, all at once); no staging pod it made or found
 * is left when it answers, interrupted or not, unless its deletion itself
 * failed (said through `onProgress`; the next staging tick removes it).
 * Needs pods create/get/list/delete in the release and node-agents namespaces
 * (the kustomize component `deploy/components/staging`). Nothing throws: a
 * node that fails is a `NotStaged` result naming it and why; a client that
 * cannot be built is a `Left`.
 *
 * @param kubeConfig - as for `createClusterPort`.
 * @param config - the tick's parsed config: bounds and its workloads' namespaces.
 * @param options - poll and progress intervals, a progress callback, the tick's signals.
 */
export const createStagingPort = (
  kubeConfig: KubeConfig,
  config: TickConfig,
  options: StagingPortOptions = {},
): StagingPort => ({
  stage: (request) => async () => {
    const signals = { all: options.signal, reads: options.abortReads };
    const apps = createAppsApi(kubeConfig, config.apiTimeoutMs, signals);
    if (E.isLeft(apps)) return apps;
    const core = createCoreApi(kubeConfig, config.apiTimeoutMs, signals);
    if (E.isLeft(core)) return core;
    const namespaces = [...new Set(config.topology.workloads.map((w) => w.namespace))];
    const run = new StagingRun(apps.right, core.right, request, options, namespaces);
    try {
      return E.right(await run.all());
    } finally {
      await run.cleanUp();
    }
  },
});
