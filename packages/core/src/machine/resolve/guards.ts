import { decoupledScopeOf } from '../../domain/decoupled-pass.js';
import { isPromotionGateOff } from '../../domain/promotion-admission.js';
import { judgeRegistrySilence } from '../../domain/registry-silence.js';
import { acceptResolutions, hasNothingToJudge, isNothingResolved } from '../../domain/resolutions.js';
import { hasNoStartJitter } from '../../domain/start-jitter.js';
import { followsUpstreamThroughMirror, isFleetHaltOff, isLiveReconcileOn } from '../../domain/switches.js';
import { nextLive } from '../../domain/tick-plan.js';
import type { ResolveAnswers } from '../tick-actors.js';
import type { GuardArgs } from '../tick-assign.js';

// The resolve phase's named guards (docs/behaviour.md §3.3, §5), each one question to domain/.

export const resolveGuards = {
  /** FLEET_HALT_REF set: the halt's phase is entered (unset, the default: routed past it, I35; fleet-routes.ts). */
  isFleetHaltOn: ({ context }: GuardArgs) => !isFleetHaltOff(context.config),
  /** FLEET_PROMOTION_REF set on an edge of ring ≥ 1: the promotion's phase is entered (unset, or a canary: routed past it). */
  isFleetPromotionOn: ({ context }: GuardArgs) => !isPromotionGateOff(context.config),
  /** §3.3 — MIRROR_MODE=follow-upstream: the registry's answers go to the mirror step first. */
  followsUpstreamThroughMirror: ({ context }: GuardArgs) => followsUpstreamThroughMirror(context.config),
  /** §3.3 — no digest changed since the gate's records: the mirror is asked nothing. */
  hasNoMirrorQuestions: ({ context }: GuardArgs) => context.resolve.mirrorQuestions.length === 0,
  /**
   * §3.3 — asked as the registry answers, before they are accepted: they
   * neither count a streak nor end one (the verdict judgeRegistrySilence will
   * not write), so the tick goes straight on (I46).
   */
  leavesResolveFailureStreakAlone: ({ context }: GuardArgs, params: { answers: ResolveAnswers }) =>
    judgeRegistrySilence(
      context.config,
      acceptResolutions(context.config, params.answers, decoupledScopeOf(context.observe.decoupled)),
      context.observe.resolveFailureStreak,
    )._tag === 'Unchanged',
  /** §3.3 — some image went unanswered this tick (a 429 aside): the streak counts one (I46). */
  hasRegistrySilenceToCount: ({ context }: GuardArgs) => context.resolve.silence._tag === 'Silent',
  /** §3.3 — every image asked for answered and the gate holds a streak: it is over (I46). */
  hasResolveFailureStreakToClear: ({ context }: GuardArgs) => context.resolve.silence._tag === 'Answering',
  /** decidingStartJitter: straight to the registry, nothing said. */
  hasNoStartJitter: ({ context }: GuardArgs) => hasNoStartJitter(context.observe.gateUid, context.config.startJitterMs),
  /** After the recorded digests' read: on to the fleet halt with no live pass; past the halt, the tick completes. */
  isNothingResolved: ({ context }: GuardArgs) => isNothingResolved(context.resolve.resolutions),
  /** readingRecordedDigests: on to complete at once. */
  hasNothingToJudge: ({ context }: GuardArgs) => hasNothingToJudge(context.config, context.resolve.resolutions),
  /** After the recorded digests' read: on to reconcilingLive before the fleet halt. */
  isLiveReconcileOn: ({ context }: GuardArgs) => isLiveReconcileOn(context.config, context.observe.decoupled.begun),
  /** RECONCILE_LIVE: the gate, or another workload with something to follow, is still to be read. */
  hasLiveWorkloadToObserve: ({ context }: GuardArgs) =>
    nextLive(context.config.topology, context.resolve.live) !== undefined,
};
