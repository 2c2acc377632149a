import * as O from 'fp-ts/lib/Option.js';
import { maintenanceWindowOf } from '../../config/maintenance-window-config.js';
import { changedDigests } from '../../domain/admission.js';
import { counterValue } from '../../domain/counter.js';
import { isFlapLockedOut } from '../../domain/flap.js';
import { withoutHaltPins } from '../../domain/fleet-halt-admission.js';
import { windowStateAt } from '../../domain/maintenance-window.js';
import type { PortError } from '../../domain/port-error.js';
import { type StagingReport, type StagingResult, stagingReportsOf, stagingRequestOf } from '../../domain/staging.js';
import { planTick } from '../../domain/tick-plan.js';
import {
  holdsReimages,
  judgeWindowRoom,
  onlyPinBacks,
  type WindowJudgement,
  waitsForAWindow,
  windowedDigests,
  windowedWorkloads,
  withoutWindowHolds,
  withWindowHolds,
} from '../../domain/window-room.js';
import { announceStaging } from '../act/messages.js';
import { type GuardArgs, tickAssign } from '../tick-assign.js';
import { type InputArgs, said, type TickContext } from '../tick-context.js';
import { planInputsOf } from '../tick-wide/plan-inputs.js';
import { windowClockUnavailable, windowLines } from './window-messages.js';

// MAINTENANCE_WINDOW's guards and actions (docs/behaviour.md §3.4d). Twice in
// a tick: among the admission checks (after the soak, before the signature
// check), outside every window the changed digests are held before any
// signature or manifest is asked about; after the plan, inside one, the plan
// starts only with room left for its expected duration. A fleet halt's
// pin-back is never held (§3.4b).

/**
 * The plan as if the window had let it start: every hold but the window's,
 * live re-pins as configured. What the window judges and sizes, and what
 * staging ahead stages.
 */
const wouldBePlan = (context: TickContext) =>
  planTick({ ...planInputsOf(context), holds: withoutWindowHolds(context.admit.holds), windowHolds: false });

/** The would-be plan's workloads the window may hold: all but a halt's pin-backs. */
const windowedWorkloadsOf = (context: TickContext) =>
  windowedWorkloads(context.config.topology, wouldBePlan(context), context.admit.haltPins);

/**
 * The window's judgement kept; what it holds held — every digest a windowed
 * change moves — and the plan made again with only the halt's pin-backs left
 * to re-image (the backstop: nothing held reaches a pod). Said, unless the
 * admission check said the same already.
 */
const windowJudged = (context: TickContext, judgement: WindowJudgement) => {
  const { config, admit, resolve } = context;
  const wouldBe = wouldBePlan(context);
  const sized = wouldBe.changes.map((change) => change.workload.id);
  const saidAlready = admit.window?._tag === judgement._tag;
  const lines = saidAlready ? [] : windowLines(config, judgement, sized, resolve.bookkeeping);
  if (!holdsReimages(judgement)) {
    return {
      admit: { ...admit, window: judgement, windowRoomJudged: true },
      act: { ...context.act, rolloutMarkMs: judgement._tag === 'Room' ? judgement.nowMs : undefined },
      events: said(context, ...lines),
    };
  }
  // The admission check's holds give way to this judgement's reason (outside may turn out to be never fits).
  const holds = withWindowHolds(
    withoutWindowHolds(admit.holds),
    windowedDigests(config.topology, wouldBe, admit.haltPins),
    judgement,
  );
  const judged = { ...context, admit: { ...admit, holds, window: judgement, windowRoomJudged: true } };
  return {
    admit: { ...judged.admit, plan: onlyPinBacks(config.topology, planTick(planInputsOf(judged)), admit.haltPins) },
    act: { ...context.act, rolloutMarkMs: undefined },
    events: said(context, ...lines),
  };
};

/** PREPULL_OUTSIDE_WINDOW=on: the staging call for the plan the window holds, as if it had let it start. */
export const stagingAhead = ({ context }: InputArgs) => {
  const { config, admit } = context;
  const plan = wouldBePlan(context);
  // A halt's pin-back is not held, so not staged ahead either: it is staged as it goes.
  const held = new Set(windowedWorkloads(config.topology, plan, admit.haltPins));
  const prepull = config.staging?.prepull ?? { timeoutMs: 0, parallel: 1 };
  return {
    request: stagingRequestOf({ ...plan, changes: plan.changes.filter((c) => held.has(c.workload.id)) }, prepull),
  };
};

/** What staging ahead said of each workload, worded as staging says it; nothing is held or switched by it. */
const stagedAheadLines = (context: TickContext, reports: readonly StagingReport[]) => ({
  admit: { ...context.admit, stagedAhead: true },
  events: said(context, ...reports.map(announceStaging)),
});

/** The flap back-off would stop this plan anyway (§3.5): no staging ahead of a window it will not use. */
const isFlapLockedOutNow = ({ config, resolve }: TickContext): boolean =>
  resolve.bookkeeping[config.topology.keys.flapDetected] !== undefined ||
  isFlapLockedOut(
    counterValue(O.fromNullable(resolve.bookkeeping[config.topology.keys.refreshAttempt])),
    config.maxRefreshAttempts,
  );

export const windowGuards = {
  /**
   * PREPULL_OUTSIDE_WINDOW=on: the window holds a plan until a window that
   * will come (not a clock unread, not a plan no window holds), and it has
   * not been staged ahead this tick.
   */
  isStagingAheadOfWindow: ({ context }: GuardArgs) =>
    context.config.maintenanceWindow?.stageOutside === true &&
    waitsForAWindow(context.admit.window) &&
    !context.admit.stagedAhead &&
    // The pull budget and the flap back-off hold it back as they would the plan (I7b, §3.5).
    !context.resolve.budget.low &&
    !isFlapLockedOutNow(context) &&
    stagingAhead({ context }).request.targets.length > 0,
  /**
   * MAINTENANCE_WINDOW set: the window check is entered (unset, the default:
   * any time, no clock read). With PREPULL_OUTSIDE_WINDOW=on the window is
   * judged after the plan only: a digest staged ahead must have passed the
   * signature and platform checks first (fail closed: no node pulls what
   * could not be verified).
   */
  isMaintenanceWindowOn: ({ context }: GuardArgs) =>
    maintenanceWindowOf(context.config) !== undefined && context.config.maintenanceWindow?.stageOutside !== true,
  /** A changed digest left by the earlier checks (a halt's pin aside): the clock is read (a steady tick reads none). */
  hasDigestsToWindow: ({ context }: GuardArgs) => context.admit.windowed.length > 0,
  /**
   * After the plan: a window is set, the plan re-images something the window
   * may hold, and no earlier judgement already held it.
   */
  needsWindowRoom: ({ context }: GuardArgs) =>
    maintenanceWindowOf(context.config) !== undefined &&
    !context.admit.windowRoomJudged &&
    context.admit.window?._tag !== 'Unread' &&
    windowedWorkloadsOf(context).length > 0,
};

export const windowActions = {
  /** The changed digests no earlier check held back, a halt's pins aside: what the window judges. */
  findDigestsToWindow: tickAssign(({ context: { resolve, admit } }) => ({
    admit: {
      ...admit,
      windowed: withoutHaltPins(changedDigests(admit.answers, resolve.recorded, admit.holds), admit.haltPins),
    },
  })),
  /** Among the admission checks: outside every window, each changed digest is held until the next opens. */
  judgeWindowAtAdmission: tickAssign(({ context }, params: { nowMs: number }) => {
    const { config, admit, resolve } = context;
    const window = maintenanceWindowOf(config);
    const state = window === undefined ? undefined : windowStateAt(window.windows, params.nowMs);
    // Inside a window: the plan's room is judged after the plan, at a clock read of its own.
    if (state?._tag !== 'Closed') return {};
    const judgement: WindowJudgement = { _tag: 'Closed', nowMs: params.nowMs, opensMs: state.opensMs };
    return {
      admit: {
        ...admit,
        window: judgement,
        holds: withWindowHolds(admit.holds, admit.windowed, judgement),
      },
      events: said(context, ...windowLines(config, judgement, [], resolve.bookkeeping)),
    };
  }),
  /** The clock unread among the admission checks: every changed digest held (fail closed). */
  holdDigestsForUnreadWindow: tickAssign(({ context }, params: { error: PortError }) => {
    const judgement: WindowJudgement = { _tag: 'Unread' };
    return {
      admit: {
        ...context.admit,
        window: judgement,
        holds: withWindowHolds(context.admit.holds, context.admit.windowed, judgement),
      },
      events: said(context, windowClockUnavailable(params.error)),
    };
  }),
  /** Staged ahead of the window: said per workload; the plan stays held, no attempt spent (§3.4d). */
  judgeStagedAhead: tickAssign(({ context }, params: { results: readonly StagingResult[] }) =>
    stagedAheadLines(
      context,
      stagingReportsOf(stagingAhead({ context }).request.targets, (index) => params.results[index]),
    ),
  ),
  /** The staging call failed as a whole: said; the plan waits as it would have anyway. */
  stagingAheadFailed: tickAssign(({ context }, params: { error: PortError }) =>
    stagedAheadLines(
      context,
      stagingReportsOf(stagingAhead({ context }).request.targets, () => ({
        _tag: 'NotStaged',
        failures: [{ reason: `the staging call failed: ${params.error.message}` }],
        staged: [],
      })),
    ),
  ),
  rememberWindowClock: tickAssign(({ context }, params: { nowMs: number }) => ({
    admit: { ...context.admit, windowNowMs: params.nowMs },
  })),
  /** After the plan: inside the window with room, it starts; otherwise it is held, and said why. */
  judgeWindowRoom: tickAssign(({ context }) => {
    const window = maintenanceWindowOf(context.config);
    const nowMs = context.admit.windowNowMs;
    // Both are there by the guards that lead here; fail closed if not.
    if (window === undefined || nowMs === undefined) return windowJudged(context, { _tag: 'Unread' });
    // Sized by every workload the plan re-images, a halt's pin-back included: it runs in the same plan.
    const sized = wouldBePlan(context).changes.map((change) => change.workload.id);
    return windowJudged(context, judgeWindowRoom(context.config, window, nowMs, sized, context.resolve.bookkeeping));
  }),
  /** The clock unread after the plan: the plan is held (fail closed), and said. */
  holdPlanForUnreadWindow: tickAssign(({ context }, params: { error: PortError }) => {
    const held = windowJudged(context, { _tag: 'Unread' });
    return { ...held, events: [...held.events, windowClockUnavailable(params.error)] };
  }),
};
