import { NO_FAILURE, type Reimage, type ReimageFailure } from '../../domain/reimage-run.js';

/** What the act phase does (docs/behaviour.md §3.5, §3.6): the attempt, where the re-image is, what it patched. */
export interface ActContext {
  /** refresh-attempt as read this tick (absent or garbage = 0). */
  readonly attempt: number;
  /** Index into the plan's changes of the workload being re-imaged. */
  readonly index: number;
  /** Workloads the tick patched, with whether their rollout completed. */
  readonly reimages: readonly Reimage[];
  /** How the re-image failed, for the way back. */
  readonly failure: ReimageFailure;
  /**
   * MAINTENANCE_WINDOW (docs/behaviour.md §3.4d): when the last rollout of
   * this plan was counted (the window's clock for the first); undefined
   * when the tick times no rollout.
   */
  readonly rolloutMarkMs: number | undefined;
  /** Each counted rollout's duration, by workload id, recorded with the digests. */
  readonly rolloutMs: Readonly<Record<string, number>>;
  /** PUSHGATEWAY_URL set: the clock the record write's times are taken at (docs/fleet-promotion.md); undefined until read. */
  readonly recordedAtMs: number | undefined;
}

export const ACTED_ON_NOTHING: ActContext = {
  attempt: 0,
  index: 0,
  reimages: [],
  failure: NO_FAILURE,
  rolloutMarkMs: undefined,
  rolloutMs: {},
  recordedAtMs: undefined,
};
