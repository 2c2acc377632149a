import type { TickConfig } from '../config/tick-config.js';
import type { PortBounds } from './port-bounds.js';

// The way back's share of a tick's worst case (docs/behaviour.md §3.6; §3,
// Bounds): the waits of ROLLOUT_STABLE_FOR and ON_ROLLOUT_FAILURE=revert count
// in the tick's bounds (I17) like every other wait. Both off (the defaults), it
// is 0: the sum is the script-compatible tick's.

/** Events only a rollback tick records: RefreshRolledBack, RefreshRollbackFailed, RefreshQuarantined. */
export const WAY_BACK_EVENTS = 3;

/**
 * For every re-imaged workload the stability window after its rollout; under
 * revert, for every one of them a rollback patch and its rollout wait, the
 * quarantine write and the way back's Events.
 */
export const wayBackWorstCaseMs = (config: TickConfig, bounds: PortBounds, workloads: number): number =>
  (config.rolloutStableForMs > 0 ? workloads * bounds.stabilityMs : 0) +
  (config.onRolloutFailure === 'revert'
    ? workloads * (bounds.apiMs + bounds.rolloutMs) + bounds.apiMs + WAY_BACK_EVENTS * bounds.apiMs
    : 0);
