import { hasNothingToJudge, isNothingResolved } from '../../domain/resolutions.js';
import { hasNoStartJitter } from '../../domain/start-jitter.js';
import { isLiveReconcileOn } from '../../domain/switches.js';
import { observeGuards } from '../observe/guards.js';
import type { GuardArgs } from '../tick-assign.js';

// The resolve phase's named guards (docs/behaviour.md §3.3, §5), each one question to domain/.

export const resolveGuards = {
  /** §3.3 — START_JITTER=0s (the default), or this edge's delay is 0: no wait, no port call (issue 17). */
  hasNoStartJitter: ({ context }: GuardArgs) =>
    hasNoStartJitter(context.observe.jobsManagerUid, context.config.startJitterMs),
  /** §3.3 — nothing resolved (all pinned or all failed): nothing to compare or record. */
  isNothingResolved: ({ context }: GuardArgs) => isNothingResolved(context.resolve.resolutions),
  /** §3.3 — nothing resolved and no fleet halt to judge (FLEET_HALT_REF unset): the tick is over. */
  hasNothingToJudge: ({ context }: GuardArgs) => hasNothingToJudge(context.config, context.resolve.resolutions),
  /** RECONCILE_LIVE on, on a settled tick: compare live images with what was pinned (issue 7). */
  isLiveReconcileOn: ({ context }: GuardArgs) => isLiveReconcileOn(context.config, context.observe.decoupled.begun),
  // The live reconcile reads each workload as the decoupled pass does, skipping the same pinned ones.
  isRequestsProxyUnmanaged: observeGuards.isRequestsProxyUnmanaged,
  isResourceMonitorUnmanaged: observeGuards.isResourceMonitorUnmanaged,
};
