import type { Either } from 'fp-ts/lib/Either.js';
import { type Annotations, type RecordedDigests, recordedDigestsOf } from '../../domain/bookkeeping.js';
import { decoupledScopeOf } from '../../domain/decoupled-pass.js';
import { mirrorQuestions, servedThroughMirror } from '../../domain/mirror.js';
import type { ImageResolution } from '../../domain/plan.js';
import type { PortError, RegistryError } from '../../domain/port-error.js';
import type { Resolution } from '../../domain/registry-answer.js';
import { registryBudgetOf } from '../../domain/registry-budget.js';
import { judgeRegistrySilence } from '../../domain/registry-silence.js';
import {
  acceptResolutions,
  failedHaltAnswer,
  failedPromotionAnswer,
  failedResolutions,
  haltAnswerOf,
  promotionAnswerOf,
} from '../../domain/resolutions.js';
import { startJitterDelayMs } from '../../domain/start-jitter.js';
import { nextLive, withLiveUnread, withLiveWorkload } from '../../domain/tick-plan.js';
import type { LiveWorkload, TopologyWorkload } from '../../domain/workloads.js';
import type { ResolveAnswers } from '../tick-actors.js';
import { tickAssign } from '../tick-assign.js';
import { said, type TickContext } from '../tick-context.js';
import * as say from './messages.js';

// The resolve phase's named actions (docs/behaviour.md §3.3, §5): the
// registry's answers accepted (and the pull budget judged from them once),
// the records, what runs now, and the lines it says.

/** The workload the live pass just read: its next one. */
const observed = (context: TickContext): TopologyWorkload => {
  const workload = nextLive(context.config.topology, context.resolve.live);
  if (workload === undefined) throw new RangeError('no workload was being observed live');
  return workload;
};

const resolved = (
  context: TickContext,
  resolutions: readonly ImageResolution[],
  haltAnswer: Either<RegistryError, Resolution> | undefined,
  promotionAnswer: Either<RegistryError, Resolution> | undefined,
) => ({
  resolve: {
    ...context.resolve,
    resolutions,
    budget: registryBudgetOf(context.config, resolutions),
    haltAnswer,
    promotionAnswer,
  },
  events: said(context, ...say.resolutionLines(context.config, resolutions)),
});

/** The resolutions once the mirror answered: an unserved digest's image unresolved, each miss said (§3.3). */
const servedThrough = (context: TickContext, answers: readonly (Either<RegistryError, Resolution> | undefined)[]) => {
  const resolutions = servedThroughMirror(context.resolve.resolutions, context.resolve.mirrorQuestions, answers);
  return {
    resolve: { ...context.resolve, resolutions, budget: registryBudgetOf(context.config, resolutions) },
    events: said(context, ...say.mirrorLines(context.config, resolutions)),
  };
};

export const resolveActions = {
  /** §3.3 — the changed digests the mirror is asked for, from the records the settled guard read. */
  findMirrorQuestions: tickAssign(({ context }) => ({
    resolve: {
      ...context.resolve,
      mirrorQuestions: mirrorQuestions(context.config, context.resolve.resolutions, context.observe.mirrorRecords),
    },
  })),
  acceptMirrorAnswers: tickAssign(({ context }, params: { answers: ResolveAnswers }) =>
    servedThrough(context, params.answers),
  ),
  /** The mirror's batch failed as a whole: every digest asked is unserved this tick (fail closed). */
  failMirrorAnswers: tickAssign(({ context }, params: { error: PortError }) =>
    servedThrough(
      context,
      context.resolve.mirrorQuestions.map(() => ({ _tag: 'Left' as const, left: params.error })),
    ),
  ),
  /** §3.3 — what this tick does with the resolve-failure streak, decided once (I46). */
  judgeRegistrySilence: tickAssign(({ context }) => ({
    resolve: {
      ...context.resolve,
      silence: judgeRegistrySilence(context.config, context.resolve.resolutions, context.observe.resolveFailureStreak),
    },
  })),
  announceRegistrySilence: tickAssign(({ context }) => ({
    events: said(context, ...say.registrySilence(context.config, context.resolve.silence)),
  })),
  announceRegistryAnswering: tickAssign(({ context }) => ({
    events: said(
      context,
      say.registryAnswering(
        context.config,
        context.resolve.silence._tag === 'Answering' ? context.resolve.silence.after : 0,
      ),
    ),
  })),
  reportResolveFailureStreakWriteFailed: tickAssign(({ context }, params: { error: PortError }) => ({
    events: said(
      context,
      say.resolveFailureStreakWriteFailed(
        context.config,
        context.resolve.silence._tag === 'Silent' ? context.resolve.silence.streak : 0,
        params.error,
      ),
    ),
  })),
  warnResolveFailureStreakClearFailed: tickAssign(({ context }, params: { error: PortError }) => ({
    events: said(context, say.resolveFailureStreakClearFailed(context.config, params.error)),
  })),
  announceStartJitter: tickAssign(({ context }) => ({
    events: said(
      context,
      say.startJitter(context.config, startJitterDelayMs(context.observe.gateUid, context.config.startJitterMs)),
    ),
  })),
  warnStartJitterFailed: tickAssign(({ context }, params: { error: PortError }) => ({
    events: said(context, say.startJitterFailed(params.error)),
  })),
  acceptResolutions: tickAssign(({ context }, params: { answers: ResolveAnswers }) => {
    const scope = decoupledScopeOf(context.observe.decoupled);
    return resolved(
      context,
      acceptResolutions(context.config, params.answers, scope),
      haltAnswerOf(context.config, params.answers, scope),
      promotionAnswerOf(context.config, params.answers, scope),
    );
  }),
  /** The port promises one answer per repo; a batch failing as a whole leaves every image (and the halt tag) unresolved. */
  failAllResolutions: tickAssign(({ context }, params: { error: PortError }) => {
    const scope = decoupledScopeOf(context.observe.decoupled);
    return resolved(
      context,
      failedResolutions(context.config, params.error, scope),
      failedHaltAnswer(context.config, params.error),
      failedPromotionAnswer(context.config, params.error),
    );
  }),
  rememberRecorded: tickAssign(({ context }, params: { annotations: Annotations }) => ({
    resolve: {
      ...context.resolve,
      recorded: recordedDigestsOf(context.config.topology, params.annotations),
      bookkeeping: params.annotations,
    },
    events: said(context, ...say.orphanedBookkeeping(context.config, params.annotations)),
  })),
  warnRecordedDigestsUnreadable: tickAssign(({ context }, params: { error: PortError }) => ({
    events: said(context, say.recordedDigestsUnreadable(context.config, params.error)),
  })),
  rememberPinMarkers: tickAssign(({ context }, params: { pins: RecordedDigests }) => ({
    resolve: { ...context.resolve, live: { ...context.resolve.live, pins: params.pins } },
  })),
  warnPinMarkersUnreadable: tickAssign(({ context }, params: { error: PortError }) => ({
    events: said(context, say.pinMarkersUnreadable(context.config, params.error)),
  })),
  rememberLiveWorkload: tickAssign(({ context }, params: { workload: LiveWorkload }) => ({
    resolve: {
      ...context.resolve,
      live: withLiveWorkload(context.resolve.live, observed(context).id, params.workload),
    },
  })),
  warnLiveUnreadable: tickAssign(({ context }, params: { error: PortError }) => ({
    resolve: { ...context.resolve, live: withLiveUnread(context.resolve.live) },
    events: said(context, say.liveUnreadable(observed(context), params.error)),
  })),
};
