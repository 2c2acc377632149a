import type { TaskEither } from 'fp-ts/lib/TaskEither.js';
import type { BookkeepingChanges } from '../domain/bookkeeping.js';
import type { PortError, RolloutError } from '../domain/port-error.js';

export type { RolloutError } from '../domain/port-error.js';

import type { ContainerImage, LiveWorkload, WorkloadRef } from '../domain/workloads.js';

// What a tick needs from the cluster, as logical operations. Each may fail on
// its own (the simulator injects faults per operation), and each result is a
// plain snapshot value: the Kubernetes adapter serves every read below from one
// GET of the gate workload per tick, so a steady tick costs one request.
//
// "Absent" is `Right(none)`, "could not read" is `Left(error)`: the two can
// never be confused, which is the bug class behind #626 and #1964.

/** The gate workload as one read shows it: a live workload and its bookkeeping annotations. */
export interface GateSnapshot extends LiveWorkload {
  /** Every annotation of the gate; image-refresh reads only its own keys (the topology's). */
  readonly annotations: Readonly<Record<string, string>>;
  /** metadata.uid: unique per install where every edge shares the names; START_JITTER derives from it (§3.3). */
  readonly uid?: string;
}

/**
 * What a tick needs from the cluster, as logical operations on the gate's
 * annotations (its bookkeeping, docs/profiles.md) and on the workloads of
 * the topology. Every operation returns a `TaskEither`: `Left` is "could not"
 * (a {@link PortError} naming the server's own words), `Right` the answer, and
 * absent is `Right(none)` — so "absent" and "failed" can never be confused
 * (#626, #1964). A read is fail-closed in the tick: a `Left` from a
 * bookkeeping read never counts as 0 (I4, I11).
 *
 * Implementations should bound each call (the tick also bounds it, I17),
 * should not throw (a throw is taken as a failed call), and must not retry a
 * write on their own: the tick decides what a failed write means.
 */
export interface ClusterPort {
  /**
   * The gate workload (the topology's `gate`) as it is now: settledness,
   * annotations (the bookkeeping), container images and who set them. With
   * `settleWithinMs` above 0 it is the settled guard's question
   * (docs/behaviour.md §3.2): an unsettled gate is re-read until it settles
   * or that window closes.
   * With 0 it is a bookkeeping read: the adapter may answer from this tick's
   * last read or write of the object. `Left` only when it cannot be read
   * (NotFound, Forbidden, API or transport error, #571); the tick never takes
   * a failed read for absent annotations (I4, I11).
   */
  readonly readGate: (settleWithinMs: number) => TaskEither<PortError, GateSnapshot>;

  /**
   * Change the bookkeeping annotations of the gate in one
   * write: each key of `changes` is set to its value, or removed where the
   * value is `null`. The tick decides every change and what its failure
   * means (I3, I6, I9, I10, I12); an implementation writes exactly these keys
   * and no others, and an empty `changes` may be a no-op.
   */
  readonly patchBookkeeping: (changes: BookkeepingChanges) => TaskEither<PortError, void>;

  /**
   * A workload as it runs now: settledness (within the settle window),
   * container images and who set them. For the gate the adapter answers
   * from the tick's one read. `settleWithinMs` overrides the window: 0 is
   * one read, settled or not (the ownership check needs the images only).
   */
  readonly observeWorkload: (workload: WorkloadRef, settleWithinMs?: number) => TaskEither<PortError, LiveWorkload>;

  /**
   * One patch per workload carrying all of its containers (I16: one rollout).
   * `changed` says whether any container was on another image before; when
   * none was, the port sends nothing and answers `{ changed: false }`, as
   * `kubectl set image` does (docs/behaviour.md §3.6): the tick then says the
   * workload already runs the target and does not count it as a re-image.
   */
  readonly setImages: (
    workload: WorkloadRef,
    images: readonly ContainerImage[],
  ) => TaskEither<PortError, { readonly changed: boolean }>;
  /** Wait until the workload is settled, for at most `timeoutMs` (ROLLOUT_TIMEOUT). */
  readonly waitForRollout: (workload: WorkloadRef, timeoutMs: number) => TaskEither<RolloutError, void>;
  /**
   * ROLLOUT_STABLE_FOR (docs/behaviour.md §3.6): after its rollout completed, watch the
   * workload for `stableForMs` and answer `Right` only if it stayed complete
   * all along — available = updated = desired, the same generation observed,
   * no ProgressDeadlineExceeded. Falling apart inside the window is
   * `RolloutFailed` (its message says how), a read that fails is the
   * {@link PortError}. The tick reads no clock (I20): the window is this
   * call's. Bounded by `stableForMs` plus one request, abortable like
   * {@link ClusterPort.waitForRollout}. Optional, so a port written before it
   * still compiles: called only with ROLLOUT_STABLE_FOR above 0, and a port
   * without it then fails that rollout (fail closed), saying why.
   */
  readonly watchStability?: (workload: WorkloadRef, stableForMs: number) => TaskEither<RolloutError, void>;
}
