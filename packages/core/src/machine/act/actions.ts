import { withDriftAside } from '../../domain/plan.js';
import { describePortError, type PortError, type RolloutError } from '../../domain/port-error.js';
import { changeAt, patched, withRolledOut } from '../../domain/reimage-run.js';
import {
  allNotStaged,
  replanAfterStaging,
  type StagingReport,
  type StagingResult,
  stagingAnnouncement,
  stagingReportsOf,
} from '../../domain/staging.js';
import { rolloutUntimed } from '../admit/window-messages.js';
import { tickAssign } from '../tick-assign.js';
import { said, type TickContext } from '../tick-context.js';
import { planInputsOf } from '../tick-wide/plan-inputs.js';
import { stagingRequest } from './inputs.js';
import * as say from './messages.js';

// The act phase's named actions (docs/behaviour.md §3.5, §3.6): the attempt,
// the drift set aside, each patch and rollout, how a re-image failed (for the
// way back), and the lines it says.

const currentChange = (context: TickContext) => changeAt(context.admit.plan.changes, context.act.index);

/** docs/behaviour.md §3.5a: what staging said, the plan made again without what was not staged, each said. */
const stagingJudged = (context: TickContext, reports: readonly StagingReport[]) => {
  const { admit } = context;
  const { holds, plan } = replanAfterStaging(planInputsOf(context), admit.plan, reports);
  return {
    admit: { ...admit, holds, plan },
    events: said(context, ...reports.map(say.announceStaging)),
  };
};

export const actActions = {
  /** The clock could not time a counted rollout: said; no later rollout of this tick is timed (the mark is lost). */
  warnRolloutUntimed: tickAssign(({ context }, params: { error: PortError }) => {
    const workload = context.admit.plan.changes[context.act.index]?.workload.id ?? '?';
    return {
      act: { ...context.act, rolloutMarkMs: undefined },
      events: said(context, rolloutUntimed(workload, params.error)),
    };
  }),
  /** A rollout counted: its duration since the last mark, kept for the record write (§3.4d). */
  noteRolloutDuration: tickAssign(({ context }, params: { nowMs: number }) => {
    const { act, admit } = context;
    const workload = admit.plan.changes[act.index]?.workload.id;
    if (workload === undefined || act.rolloutMarkMs === undefined) return {};
    return {
      act: {
        ...act,
        rolloutMarkMs: params.nowMs,
        rolloutMs: { ...act.rolloutMs, [workload]: params.nowMs - act.rolloutMarkMs },
      },
    };
  }),
  rememberAttempt: tickAssign(({ context }, params: { attempt: number }) => ({
    act: { ...context.act, attempt: params.attempt },
  })),
  warnAttemptUnreadable: tickAssign(({ context }, params: { error: PortError }) => ({
    events: said(context, say.attemptUnreadable(context.config, params.error)),
  })),
  announceFlapDetected: tickAssign(({ context }) => ({
    events: said(context, say.flapDetected(context.config, context.act.attempt, context.config.flapLockoutIsFinding)),
  })),
  reportFlapMarkFailed: tickAssign(({ context }, params: { error: PortError }) => ({
    events: said(context, say.flapMarkFailed(context.config, context.act.attempt, params.error)),
  })),
  announceReimaging: tickAssign(({ context }) => ({
    events: said(context, say.reimaging(context.config, context.act.attempt + 1)),
  })),
  reportAttemptWriteFailed: tickAssign(({ context }, params: { error: PortError }) => ({
    events: said(context, say.attemptWriteFailed(context.config, context.act.attempt + 1, params.error)),
  })),
  warnRegistryBudgetLow: tickAssign(({ context }) => ({
    events: said(context, say.registryBudgetLow(context.resolve.budget)),
  })),
  /** Hold the drift back for a later tick; first observations (which pull nothing) still get recorded. */
  setDriftAside: tickAssign(({ context }) => ({
    admit: { ...context.admit, plan: withDriftAside(context.admit.plan) },
  })),
  announceSetImage: tickAssign(({ context }) => ({ events: said(context, say.setImage(currentChange(context))) })),
  noteImagesSet: tickAssign(({ context }) => ({
    act: { ...context.act, reimages: [...context.act.reimages, patched(currentChange(context))] },
  })),
  reportSetImageFailed: tickAssign(({ context }, params: { error: PortError }) => ({
    act: { ...context.act, failure: { _tag: 'PatchRefused', change: currentChange(context), error: params.error } },
    events: said(context, say.setImageFailed(currentChange(context), params.error)),
  })),
  announceAlreadyOnTarget: tickAssign(({ context }) => ({
    events: said(context, say.alreadyOnTarget(currentChange(context))),
  })),
  /** The rollout waited for completed: noted and said. */
  noteRolloutComplete: tickAssign(({ context }) => ({
    act: { ...context.act, reimages: withRolledOut(context.act.reimages, currentChange(context).workload.id) },
    events: said(context, say.rolloutComplete(currentChange(context))),
  })),
  reportRolloutFailed: tickAssign(({ context }, params: { error: RolloutError }) => ({
    act: { ...context.act, failure: { _tag: 'RolloutFailed', error: params.error, inWindow: false } },
    events: said(context, say.rolloutFailed(context.config, currentChange(context), params.error)),
  })),
  announceStabilityWatch: tickAssign(({ context }) => ({
    events: said(context, say.watchingStability(context.config, currentChange(context))),
  })),
  /** Fell apart inside ROLLOUT_STABLE_FOR: a failed rollout (docs/behaviour.md §3.6). */
  reportFellApart: tickAssign(({ context }, params: { error: RolloutError }) => ({
    act: { ...context.act, failure: { _tag: 'RolloutFailed', error: params.error, inWindow: true } },
    events: said(context, say.fellApart(context.config, currentChange(context), params.error)),
  })),
  advanceToNextWorkload: tickAssign(({ context }) => ({ act: { ...context.act, index: context.act.index + 1 } })),
  announceReimageComplete: tickAssign(({ context }) => ({ events: said(context, say.reimageComplete()) })),
  announceStagingStarts: tickAssign(({ context }) => ({
    events: said(context, say.staging(stagingAnnouncement(stagingRequest({ context }).request))),
  })),
  /** The RefreshStaging Event could not be recorded: a WARN, and staging goes on (I18b). */
  warnStagingEventNotRecorded: tickAssign(({ context }, params: { error: PortError }) => ({
    events: said(context, say.stagingEventNotRecorded(describePortError(params.error))),
  })),
  judgeStaging: tickAssign(({ context }, params: { results: readonly StagingResult[] }) =>
    stagingJudged(
      context,
      stagingReportsOf(stagingRequest({ context }).request.targets, (index) => params.results[index]),
    ),
  ),
  /** The staging call failed as a whole: nothing is staged, so nothing is switched (fail closed). */
  holdUnstaged: tickAssign(({ context }, params: { error: PortError }) =>
    stagingJudged(context, allNotStaged(stagingRequest({ context }).request.targets, describePortError(params.error))),
  ),
};
