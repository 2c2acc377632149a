import type { Reimage } from '../../domain/reimage-run.js';
import { NO_REVERT, type RevertDecision } from '../../domain/revert.js';

/** What the way back decides and does (ON_ROLLOUT_FAILURE=revert; docs/behaviour.md §3.6). */
export interface WayBackContext {
  /** The rollback, decided once the re-image failed: none, impossible (no record), or its plan. */
  readonly decision: RevertDecision;
  /** Set once a rollback began: the outcome then reports its reverts. */
  readonly begun: boolean;
  /** Index into the rollback's changes of the workload being rolled back. */
  readonly index: number;
  /** Workloads the rollback patched, with whether their rollout completed. */
  readonly reverts: readonly Reimage[];
}

export const NO_WAY_BACK: WayBackContext = { decision: NO_REVERT, begun: false, index: 0, reverts: [] };
