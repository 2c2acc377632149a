// What a caller may tune on the cluster port. The bounds themselves — the
// request bound, the settle window, ROLLOUT_TIMEOUT — come from TickConfig,
// the one place an operator sets them.

/** What a caller may tune on `createClusterPort`; every field is optional. */
export interface ClusterPortOptions {
  /** How often an unsettled workload is re-read while waiting (default 2 s; client-node's Watch has no timeout, so we poll every 2–5 s). */
  readonly pollIntervalMs?: number;
  /** How often `onProgress` is called while waiting (default 30 s). */
  readonly progressIntervalMs?: number;
  /**
   * Told, at least every `progressIntervalMs` while a wait lasts, what it is
   * waiting for: `waiting for deployment/x: 0 of 1 updated replicas are available (1m30s of 10m)`.
   */
  readonly onProgress?: (line: string) => void;
  /** The field manager of every write (default `image-refresh`). */
  readonly fieldManager?: string;
  /**
   * Send every write as a server-side dry run (dryRun=All, `tick --dry-run`):
   * the API server checks it as it would the real one — RBAC, admission, a
   * missing object — and persists nothing (docs/behaviour.md §3, dry run).
   */
  readonly dryRun?: boolean;
  /**
   * The tick's signal: aborting it aborts every request in flight
   * and ends a settle or rollout wait at once, so nothing outlives the tick.
   */
  readonly signal?: AbortSignal;
  /**
   * The tick's interruption (SIGTERM; docs/behaviour.md §3, Signals): aborting
   * it ends every read and wait at once; a write already sent is awaited within
   * its bound.
   */
  readonly abortReads?: AbortSignal;
}

export const DEFAULT_POLL_INTERVAL_MS = 2_000;
export const DEFAULT_PROGRESS_INTERVAL_MS = 30_000;
