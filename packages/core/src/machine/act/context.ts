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
}

export const ACTED_ON_NOTHING: ActContext = { attempt: 0, index: 0, reimages: [], failure: NO_FAILURE };
