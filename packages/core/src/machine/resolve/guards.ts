import { hasNothingToJudge, isNothingResolved } from '../../domain/resolutions.js';
import { hasNoStartJitter } from '../../domain/start-jitter.js';
import { isLiveReconcileOn } from '../../domain/switches.js';
import { nextLive } from '../../domain/tick-plan.js';
import type { GuardArgs } from '../tick-assign.js';

// The resolve phase's named guards (docs/behaviour.md §3.3, §5), each one question to domain/.

export const resolveGuards = {
  /** §3.3 — some image went unanswered this tick (a 429 aside): the streak counts one (I46). */
  hasRegistrySilenceToCount: ({ context }: GuardArgs) => context.resolve.silence._tag === 'Silent',
  /** §3.3 — every image asked for answered and the gate holds a streak: it is over (I46). */
  hasResolveFailureStreakToClear: ({ context }: GuardArgs) => context.resolve.silence._tag === 'Answering',
  /** §3.3 — START_JITTER=0s (the default), or this edge's delay is 0: no wait, no port call. */
  hasNoStartJitter: ({ context }: GuardArgs) => hasNoStartJitter(context.observe.gateUid, context.config.startJitterMs),
  /** §3.3 — nothing resolved (all pinned or all failed): nothing to compare or record. */
  isNothingResolved: ({ context }: GuardArgs) => isNothingResolved(context.resolve.resolutions),
  /** §3.3 — nothing resolved and no fleet halt to judge (FLEET_HALT_REF unset): the tick is over. */
  hasNothingToJudge: ({ context }: GuardArgs) => hasNothingToJudge(context.config, context.resolve.resolutions),
  /** RECONCILE_LIVE on, on a settled tick: compare live images with what was pinned. */
  isLiveReconcileOn: ({ context }: GuardArgs) => isLiveReconcileOn(context.config, context.observe.decoupled.begun),
  /** RECONCILE_LIVE: the gate, or another workload with something to follow, is still to be read. */
  hasLiveWorkloadToObserve: ({ context }: GuardArgs) =>
    nextLive(context.config.topology, context.resolve.live) !== undefined,
};
