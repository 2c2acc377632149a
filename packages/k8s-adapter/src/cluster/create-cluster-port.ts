import {
  type ClusterPort,
  type ContainerImage,
  describePortError,
  describeWorkload,
  formatDuration,
  type GateSnapshot,
  type LiveWorkload,
  notFound,
  type PortError,
  type RolloutError,
  type TickConfig,
  type WorkloadRef,
} from '@image-refresh/core';
import type { KubeConfig } from '@kubernetes/client-node';
import * as E from 'fp-ts/lib/Either.js';
import { pipe } from 'fp-ts/lib/function.js';
import * as TE from 'fp-ts/lib/TaskEither.js';
import { boundedCall } from '../bounds/bounded-call.js';
import { type AppsApi, createAppsApi } from './apps-api.js';
import {
  type ClusterPortOptions,
  DEFAULT_POLL_INTERVAL_MS,
  DEFAULT_PROGRESS_INTERVAL_MS,
} from './cluster-port-options.js';
import { type PollEnd, type PollSettings, pollUntilSettled } from './poll-until-settled.js';
import { watchStability } from './watch-stability.js';
import {
  type AnnotationChanges,
  FIELD_MANAGER,
  patchAnnotations,
  patchContainerImages,
  readWorkload,
} from './workload-api.js';
import { imageOwnersOf, type WorkloadSnapshot, workloadSnapshot } from './workload-snapshot.js';

// core's ClusterPort on the Kubernetes API (docs/behaviour.md §3), one instance per tick.
// The gate workload is read once per tick: readGate(settleWithinMs) GETs
// it (re-reading only while it is not settled, within the settle window) and
// keeps a plain snapshot; the bookkeeping reads are answered from that
// snapshot, and every write refreshes it from the object the PATCH returns.
// A steady tick — settled, nothing drifted — therefore costs exactly one
// request.

const sameWorkload = (a: WorkloadRef, b: WorkloadRef): boolean =>
  a.kind === b.kind && a.name === b.name && a.namespace === b.namespace;

/**
 * Core's `ClusterPort` on the Kubernetes API, for one tick (build a new one
 * per tick: it keeps that tick's snapshot of the gate workload).
 *
 * Promises: a steady tick costs one GET; every request is bounded by
 * `config.apiTimeoutMs`, settle and rollout waits by the settle window and
 * `timeoutMs` (polling, never a Watch: I17); annotations change by JSON merge
 * patch, images by one strategic merge patch per workload carrying all its
 * containers (I16), written as field manager `image-refresh` by default; a
 * container the workload does not have is refused, never added. Errors are
 * `PortError` values classified from the server's answer (404 NotFound,
 * 401 Unauthorized, 403 Forbidden, aborted Timeout, unreadable Malformed, else Transport),
 * with the bearer token redacted; nothing throws.
 *
 * @param kubeConfig - e.g. `loadClusterConfig(process.env)`'s.
 * @param config - the tick's parsed config: names, namespaces and bounds.
 * @param options - poll and progress intervals, a progress callback, the field manager.
 * @returns every operation of the port, `watchStability` (ROLLOUT_STABLE_FOR, docs/behaviour.md §3.6) included.
 */
export const createClusterPort = (
  kubeConfig: KubeConfig,
  config: TickConfig,
  options: ClusterPortOptions = {},
): Required<ClusterPort> => {
  const { id, kind, name, namespace } = config.topology.gate;
  const gate: WorkloadRef = { id, kind, name, namespace };
  const write = { fieldManager: options.fieldManager ?? FIELD_MANAGER, dryRun: options.dryRun === true };
  const pollIntervalMs = options.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS;
  const progressEveryMs = options.progressIntervalMs ?? DEFAULT_PROGRESS_INTERVAL_MS;
  const apps: E.Either<PortError, AppsApi> = createAppsApi(kubeConfig, config.apiTimeoutMs, {
    all: options.signal,
    reads: options.abortReads,
  });
  // A wait ends at the tick's end and at its interruption; each read inside it
  // carries its own request bound as well (bounded-client.ts).
  const waitSignals = [options.signal, options.abortReads];
  let snapshot: WorkloadSnapshot | undefined;

  const withApps = <A>(use: (api: AppsApi) => TE.TaskEither<PortError, A>): TE.TaskEither<PortError, A> =>
    pipe(TE.fromEither(apps), TE.chain(use));

  const remember = (ref: WorkloadRef, read: WorkloadSnapshot): void => {
    if (sameWorkload(ref, gate)) snapshot = read;
  };

  const read = (ref: WorkloadRef): TE.TaskEither<PortError, WorkloadSnapshot> =>
    pipe(
      withApps((api) => readWorkload(api, ref)),
      TE.tap((s) => TE.fromIO(() => remember(ref, s))),
    );

  /** The tick's snapshot of the gate; one GET if nothing has read it yet. */
  const current = (): TE.TaskEither<PortError, WorkloadSnapshot> =>
    snapshot === undefined ? read(gate) : TE.right(snapshot);

  /**
   * A write's answer is the object after the write: it becomes the snapshot.
   * An answer that does not check out only drops the snapshot (the next read
   * GETs it again) — the write itself succeeded and is not failed for it.
   */
  const refreshFrom = (ref: WorkloadRef) => (object: unknown) => () => {
    if (!sameWorkload(ref, gate)) return;
    const checked = workloadSnapshot(ref, object);
    snapshot = E.isRight(checked) ? checked.right : undefined;
  };

  const annotate = (changes: AnnotationChanges): TE.TaskEither<PortError, void> =>
    pipe(
      withApps((api) => patchAnnotations(api, gate, changes, write)),
      TE.chainIOK(refreshFrom(gate)),
    );

  const poll = (ref: WorkloadRef, settings: Omit<PollSettings, 'intervalMs' | 'progressEveryMs' | 'onProgress'>) =>
    pipe(
      apps,
      E.match(
        (error): Promise<PollEnd> => Promise.resolve({ _tag: 'Unreadable', error }),
        () =>
          boundedCall({ parents: waitSignals }, (signal) =>
            pollUntilSettled(ref, () => read(ref)(), {
              ...settings,
              intervalMs: pollIntervalMs,
              progressEveryMs,
              onProgress: options.onProgress,
              signal,
            }),
          ),
      ),
    );

  /**
   * The gate: with a settle window, the guard's read —
   * GET it, re-reading while it is not settled, within the window; without
   * one, a bookkeeping read answered from this tick's snapshot (one GET if
   * nothing has read it yet, or a write's answer did not check out).
   */
  const readGate =
    (settleWithinMs: number): TE.TaskEither<PortError, GateSnapshot> =>
    async () => {
      if (settleWithinMs <= 0) return pipe(await current()(), E.map(gateOf));
      const end = await poll(gate, { windowMs: settleWithinMs, firstErrorIsFinal: true });
      return end._tag === 'Unreadable' ? E.left(end.error) : E.right(gateOf(end.snapshot));
    };

  const live = (s: WorkloadSnapshot): LiveWorkload => ({
    settledness: s.settledness,
    images: s.images,
    imageOwners: imageOwnersOf(s),
  });

  const gateOf = (s: WorkloadSnapshot): GateSnapshot => ({
    ...live(s),
    annotations: s.annotations,
    uid: s.uid,
  });

  /**
   * A workload as it runs now. The gate comes from the tick's
   * one read; another workload is read, and re-read through the settle window
   * while it is not settled — the same question the settled guard asks.
   */
  const observeWorkload =
    (ref: WorkloadRef, settleWithinMs = config.settleTimeoutMs): TE.TaskEither<PortError, LiveWorkload> =>
    async () => {
      if (sameWorkload(ref, gate)) return pipe(await current()(), E.map(live));
      // No window: one GET, settled or not (the ownership check needs the images only).
      if (settleWithinMs <= 0) return pipe(await read(ref)(), E.map(live));
      const end = await poll(ref, { windowMs: settleWithinMs, firstErrorIsFinal: true });
      return end._tag === 'Unreadable' ? E.left(end.error) : E.right(live(end.snapshot));
    };

  /** Refuses to add a container: a strategic merge of an unknown name would append one to the pod. */
  const checkContainers = (ref: WorkloadRef, images: readonly ContainerImage[]) => (s: WorkloadSnapshot) => {
    const missing = images.map((i) => i.container).filter((c) => !Object.hasOwn(s.images, c));
    return missing.length === 0
      ? E.right(s)
      : E.left(
          notFound(
            `${describeWorkload(ref)} in ${ref.namespace} has no container ${missing.map((c) => `"${c}"`).join(', ')} (it has ${Object.keys(s.images).join(', ')}); refusing to add one`,
          ),
        );
  };

  const setImages = (
    ref: WorkloadRef,
    images: readonly ContainerImage[],
  ): TE.TaskEither<PortError, { readonly changed: boolean }> =>
    images.length === 0
      ? TE.right({ changed: false })
      : pipe(
          sameWorkload(ref, gate) ? current() : read(ref),
          TE.chainEitherK(checkContainers(ref, images)),
          // The workload as read before the patch says whether the patch moves anything; one that
          // moves nothing is not sent, as `kubectl set image` sends nothing then (docs/behaviour.md
          // §3.6). One that moves anything carries every container named: the unchanged ones are
          // no-ops of the same strategic merge, and the patch states the whole target (I16).
          TE.chain(
            (before): TE.TaskEither<PortError, { readonly changed: boolean }> =>
              images.every((i) => before.images[i.container] === i.image)
                ? TE.right({ changed: false })
                : pipe(
                    withApps((api) => patchContainerImages(api, ref, images, write)),
                    TE.chainIOK(refreshFrom(ref)),
                    TE.map(() => ({ changed: true })),
                  ),
          ),
        );

  const waitForRollout =
    (ref: WorkloadRef, timeoutMs: number): TE.TaskEither<RolloutError, void> =>
    async () => {
      const end = await poll(ref, { windowMs: timeoutMs, firstErrorIsFinal: false });
      switch (end._tag) {
        case 'Unreadable':
          return E.left(end.error);
        case 'Decided':
          return end.snapshot.settledness._tag === 'Failed'
            ? E.left({ _tag: 'RolloutFailed', message: end.snapshot.settledness.reason })
            : E.right(undefined);
        case 'WindowClosed': {
          const { settledness } = end.snapshot;
          const reason = settledness._tag === 'Waiting' ? settledness.reason : settledness._tag;
          const after =
            end.lastError === undefined ? '' : `; the last read failed: ${describePortError(end.lastError)}`;
          return E.left({
            _tag: 'RolloutTimedOut',
            message: `${describeWorkload(ref)} did not finish rolling out within ${formatDuration(timeoutMs)}: ${reason}${after}`,
          });
        }
      }
    };

  /** ROLLOUT_STABLE_FOR (§3.6): every poll must still see it complete, until the window closes. */
  const watchStabilityOf =
    (ref: WorkloadRef, stableForMs: number): TE.TaskEither<RolloutError, void> =>
    () =>
      pipe(
        apps,
        E.match(
          (error): Promise<E.Either<RolloutError, void>> => Promise.resolve(E.left(error)),
          () =>
            boundedCall({ parents: waitSignals }, (signal) =>
              watchStability(ref, () => read(ref)(), { windowMs: stableForMs, intervalMs: pollIntervalMs, signal }),
            ),
        ),
      );

  return {
    readGate,
    // One JSON merge patch of exactly the changes core decided; nothing to change is no request.
    patchBookkeeping: (changes) => (Object.keys(changes).length === 0 ? TE.right(undefined) : annotate(changes)),
    observeWorkload,
    setImages,
    waitForRollout,
    watchStability: watchStabilityOf,
  };
};
