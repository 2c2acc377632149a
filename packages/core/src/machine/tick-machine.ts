import type { Either } from 'fp-ts/lib/Either.js';
import * as E from 'fp-ts/lib/Either.js';
import * as O from 'fp-ts/lib/Option.js';
import { and, assign, fromPromise, setup } from 'xstate';
import { signatureModeOf } from '../config/signature-config.js';
import type { TickConfig } from '../config/tick-config.js';
import { answeredDigests, changedDigests, type Holds, heldImages, withHold } from '../domain/admission.js';
import {
  type Annotations,
  type BookkeepingChanges,
  flapMarked,
  flapStateRemoved,
  pinMarkersOf,
  quarantinedDigestsOf,
  quarantineSet,
  type RecordedDigests,
  recordChanges,
  recordedDigestsOf,
  refreshAttemptOf,
  refreshAttemptSet,
  skipStreakOf,
  skipStreakRemoved,
  skipStreakSet,
} from '../domain/bookkeeping.js';
import { counterValue, isRecorded } from '../domain/counter.js';
import { decideDigestAges, requiredDigestAgeMs, soakingHold, unjudgedHold } from '../domain/digest-age.js';
import { liveFindings } from '../domain/live-drift.js';
import { hasPendingDigests, withPendingCleared, withPendingClearedFor } from '../domain/pending-digest.js';
import {
  digestsToRecord,
  hasDrift,
  type ImageResolution,
  planRefresh,
  type RefreshPlan,
  type WorkloadChange,
} from '../domain/plan.js';
import { isPortError, type PortError, type RegistryError, transport } from '../domain/port-error.js';
import { quarantinedAnswers } from '../domain/quarantine.js';
import { hasBadDigest, movesAnything, type NoRevertTarget, planRevert, type RevertPlan } from '../domain/revert.js';
import type { Settledness } from '../domain/settledness.js';
import {
  type SignatureCheckReport,
  type SignatureSubject,
  signatureHolds,
  signatureResultOf,
  signatureSubjects,
} from '../domain/signature-admission.js';
import { startJitterDelayMs } from '../domain/start-jitter.js';
import {
  IMAGES,
  type ImageName,
  imageSpec,
  type LiveWorkload,
  type WorkloadId,
  type WorkloadRef,
  workloadRef,
} from '../domain/workloads.js';
import type { JobsManagerSnapshot, RolloutError } from '../ports/cluster-port.js';
import type { DigestRequest, Resolution } from '../ports/registry-port.js';
import type { SignatureTarget, SignatureVerdict } from '../ports/signature-port.js';
import * as sayAge from './digest-age-messages.js';
import * as say from './messages.js';
import * as back from './messages-way-back.js';
import { announceSignatureCheck } from './signature-messages.js';
import { initialContext, type TickContext } from './tick-context.js';
import { acceptResolutions, isRegistryBudgetLow, unpinnedRequests } from './tick-decisions.js';
import type { TickEvent } from './tick-event.js';
import type { AnnotationWrite, TickOutcome, TickResult, WriteKind } from './tick-outcome.js';
import { outcomeOf } from './tick-outcome-of.js';

// One tick of docs/behaviour.md §3 as a state machine. Every step is a state, every decision
// a named guard, every port call a named actor; the machine does no I/O and
// reads no clock. The actors below are typed placeholders: runTick never
// starts them — it folds the machine with xstate's pure step functions and
// runs the port call behind each invoked actor's name itself (drive-tick.ts);
// provideTickPorts binds them with `machine.provide({ actors })` for those who
// run the machine as an xstate actor.

export type ResolveAnswers = readonly Either<RegistryError, Resolution>[];
/** One answer per signature target, in request order (issue 15). */
export type SignatureAnswers = readonly Either<RegistryError, SignatureVerdict>[];
export type DigestsToRecord = Readonly<Partial<Record<ImageName, string>>>;

const unprovided = (name: string) => () => Promise.reject(new Error(`actor ${name} was not provided`));

export const tickActors = {
  /** Every read of the jobs-manager Deployment: the guard's (within the settle window) and the bookkeeping's. */
  readJobsManager: fromPromise<JobsManagerSnapshot, { settleWithinMs: number }>(unprovided('readJobsManager')),
  /** Every bookkeeping write: hands `write.annotations` to the port and answers the write it sent. */
  patchBookkeeping: fromPromise<AnnotationWrite, { write: AnnotationWrite }>(unprovided('patchBookkeeping')),
  resolveDigests: fromPromise<ResolveAnswers, { requests: readonly DigestRequest[] }>(unprovided('resolveDigests')),
  setImages: fromPromise<{ readonly changed: boolean }, { change: WorkloadChange }>(unprovided('setImages')),
  waitForRollout: fromPromise<void, { change: WorkloadChange; timeoutMs: number }>(unprovided('waitForRollout')),
  /** ROLLOUT_STABLE_FOR (issue 16): the completed workload must stay complete for the window. */
  watchStability: fromPromise<void, { change: WorkloadChange; stableForMs: number }>(unprovided('watchStability')),
  observeWorkload: fromPromise<LiveWorkload, { workload: WorkloadRef }>(unprovided('observeWorkload')),
  /** VERIFY_SIGNATURES ≠ off: one signature check per digest, in order (issue 15). */
  verifySignatures: fromPromise<SignatureAnswers, { targets: readonly SignatureTarget[] }>(
    unprovided('verifySignatures'),
  ),
  /** The wall clock, ms since the epoch (issue 17): time enters the machine here only (I20). */
  readClock: fromPromise<number, undefined>(unprovided('readClock')),
  /** START_JITTER's wait (issue 17); the port ends it early when the tick is interrupted. */
  waitStartJitter: fromPromise<void, { delayMs: number }>(unprovided('waitStartJitter')),
};

/** Port failures reach the machine as actor errors; anything else is a defect of the port, still a failure. */
export const portErrorOf = (event: { error: unknown }): PortError =>
  isPortError(event.error) ? event.error : transport(`unexpected failure: ${String(event.error)}`);

const rolloutErrorOf = (event: { error: unknown }): RolloutError => {
  const e = event.error as { _tag?: unknown; message?: unknown } | null;
  return typeof e === 'object' &&
    e !== null &&
    (e._tag === 'RolloutFailed' || e._tag === 'RolloutTimedOut') &&
    typeof e.message === 'string'
    ? { _tag: e._tag, message: e.message }
    : portErrorOf(event);
};

const withPortError = ({ event }: { event: { error: unknown } }) => ({ error: portErrorOf(event) });

const emit = (context: TickContext, ...events: readonly TickEvent[]): readonly TickEvent[] => [
  ...context.events,
  ...events,
];

const planOf = (context: TickContext): RefreshPlan => {
  if (context.plan._tag === 'None') throw new Error('the refresh plan is read before it was made');
  return context.plan.value;
};

const currentChange = (context: TickContext): WorkloadChange => {
  const change = planOf(context).changes[context.reimageIndex];
  if (change === undefined) throw new Error(`no workload change at index ${context.reimageIndex}`);
  return change;
};

/** ON_ROLLOUT_FAILURE=revert: the rollback of the workloads moved so far, the current one included (issue 16). */
const revertFor = (context: TickContext): Either<NoRevertTarget, RevertPlan> => {
  if (context.recorded._tag === 'None') throw new Error('a rollback is planned before the records were read');
  const { changes } = planOf(context);
  // A refused patch changed nothing of its own workload: what the tick moved before it goes back.
  return context.revertCause === 'patchRefused'
    ? planRevert(
        context.config,
        changes,
        context.reimageIndex - 1,
        context.recorded.value,
        null,
        quarantinesOf(context),
      )
    : planRevert(
        context.config,
        changes,
        context.reimageIndex,
        context.recorded.value,
        context.reimageIndex,
        quarantinesOf(context),
      );
};

const revertOf = (context: TickContext): RevertPlan => {
  if (context.revert._tag === 'None') throw new Error('the rollback is read before it was planned');
  return context.revert.value;
};

const currentRevert = (context: TickContext): WorkloadChange => {
  const change = revertOf(context).changes[context.revertIndex];
  if (change === undefined) throw new Error(`no rollback change at index ${context.revertIndex}`);
  return change;
};

/** The digest quarantined for each image, as the record read at the top of the tick says (I30). */
const quarantinesOf = (context: TickContext): RecordedDigests => quarantinedDigestsOf(context.bookkeeping);

/** §3.4a — this tick's changed or first-observed digests that are the very digest quarantined for their image (I30). */
const quarantinedOf = (context: TickContext) =>
  context.recorded._tag === 'None'
    ? []
    : quarantinedAnswers(
        answeredDigests(context.resolutions, context.recorded.value, context.holds),
        context.bookkeeping,
      );

const settlednessOf = (context: TickContext): Settledness =>
  O.getOrElse((): Settledness => ({ _tag: 'Waiting', reason: 'not observed' }))(context.settledness);

/**
 * The annotations the record write sets: first observations, drift on the
 * success path, and pin markers — and removes: the pending record of a
 * digest it records (issue 17; none with the defaults).
 */
const recordAnnotations = (context: TickContext): BookkeepingChanges => {
  const plan = planOf(context);
  return withPendingCleared(recordChanges(digestsToRecord(plan), plan.pins), context.bookkeeping);
};

/** The START_JITTER delay of this edge (issue 17): the same every tick, from its uid. */
const jitterDelayOf = (context: TickContext): number =>
  startJitterDelayMs(context.jobsManagerUid, context.config.startJitterMs);

/** The changed digests the digest-age check judges: those no earlier check held back (docs/behaviour.md §3.4a). */
const changedOf = (context: TickContext) =>
  context.recorded._tag === 'None' ? [] : changedDigests(context.resolutions, context.recorded.value, context.holds);

/** A bookkeeping write as the machine decides it; the port is handed exactly `annotations`. */
const write = (kind: WriteKind, annotations: BookkeepingChanges): { write: AnnotationWrite } => ({
  write: { kind, annotations },
});

/** Remember a write the port accepted: the very object it was handed (issue 12). */
const written = ({ event }: { event: { output: AnnotationWrite } }) => ({ write: event.output });

const decoupledSettledOf = (context: TickContext): readonly WorkloadId[] | undefined =>
  O.toUndefined(context.decoupledSettled);

/** The plan of this tick, from what it resolved, read and (RECONCILE_LIVE) saw live. */
const planFor = (context: TickContext, recorded: RecordedDigests): RefreshPlan => {
  const { config } = context;
  const decoupled = decoupledSettledOf(context);
  const pins = O.toUndefined(context.live.pins);
  const live =
    config.reconcileLive !== 'off' && decoupled === undefined && pins !== undefined
      ? liveFindings(config, recorded, pins, context.live.workloads, quarantinesOf(context))
      : [];
  return planRefresh(config, context.resolutions, recorded, {
    live,
    repairLive: config.reconcileLive === 'repair',
    markPins: config.reconcileLive !== 'off',
    liveImages: Object.fromEntries(Object.entries(context.live.workloads).map(([id, w]) => [id, w.images])),
    ...(decoupled === undefined ? {} : { decoupled: { settled: new Set(decoupled) } }),
    held: heldImages(context.holds),
  });
};

const announceResolutions = (config: TickConfig, resolutions: readonly ImageResolution[]): TickEvent[] =>
  resolutions.flatMap((r): TickEvent[] => {
    const image = imageSpec(r.image);
    const checking = say.checkingImage(config, image);
    if (r._tag === 'NotAsked') return [];
    if (r._tag === 'Pinned') return [checking, say.imagePinned(image)];
    if (r._tag === 'Unresolved') return [checking, say.resolveFailed(config, image, r.error)];
    return [checking];
  });

const announcePlan = (config: TickConfig, plan: RefreshPlan, holds: Holds): TickEvent[] => [
  ...plan.verdicts.flatMap((v) => [
    say.verdict(imageSpec(v.image), v, v._tag === 'Unchanged' ? undefined : holds[v.image]),
    ...(v._tag === 'Drift' && v.image === 'jobs-manager' && config.pins.requestsProxy
      ? [say.requestsProxyPinned()]
      : []),
  ]),
  ...plan.live.map((finding) => say.liveDrift(config, finding)),
];

/** The digests the signature check asks about this tick (docs/behaviour.md §3.4a step 3). */
const signatureSubjectsOf = (context: TickContext): readonly SignatureSubject[] =>
  context.recorded._tag === 'None' ? [] : signatureSubjects(context.resolutions, context.recorded.value, context.holds);

/** Each subject with what the check said of it; a missing answer is no verdict (fail closed). */
const signatureReports = (
  context: TickContext,
  answerOf: (index: number) => SignatureAnswers[number] | undefined,
): readonly SignatureCheckReport[] =>
  signatureSubjectsOf(context).map((subject, index) => ({ ...subject, result: signatureResultOf(answerOf(index)) }));

/** Hold what may not go on, say what each check found, and keep the reports for the outcome. */
const admitSignatures = (context: TickContext, reports: readonly SignatureCheckReport[]) => {
  const mode = signatureModeOf(context.config) === 'enforce' ? 'enforce' : 'warn';
  return {
    holds: signatureHolds(mode, context.holds, reports),
    signatureChecks: [...context.signatureChecks, ...reports],
    events: emit(context, ...reports.map((report) => announceSignatureCheck(mode, report))),
  };
};

/** Each final state hands out its own outcome (xstate 5: the root's output would see the previous state). */
const outcome =
  (result: TickResult) =>
  ({ context }: { context: TickContext }): TickOutcome =>
    outcomeOf(result, context);

/** The machine's named guards, actions and actors, set up once: the state tree refers to them by name only. */
const tickSetup = setup({
  types: {
    context: {} as TickContext,
    input: {} as TickConfig,
    output: {} as TickOutcome,
  },
  actors: tickActors,
  guards: {
    /** §3.1 — behind a private mirror a docker.io digest may be unpullable (I14, #569). */
    isMirrorRegistry: ({ context }) => context.config.imageRegistry !== 'docker.io',
    /** §3.2 — only a settled jobs-manager lets the tick act (I1, #546). */
    isJobsManagerSettled: (_, params: { settledness: Settledness }) => params.settledness._tag === 'Settled',
    /** §3.2 — the streak just written reached MAX_SKIP_TICKS: a finding, not a skip (I3, I5, #1964). */
    isAtSkipCeiling: ({ context }) => context.skipStreak >= context.config.maxSkipTicks,
    /** §3.2 — only a streak that is there is cleared: a healthy edge is not patched every tick (I6). */
    hasRecordedSkipStreak: (_, params: { streak: O.Option<string> }) => isRecorded(params.streak),
    /** DECOUPLED_REFRESH=1: refresh what is settled past an unsettled jobs-manager (issue 7). */
    isDecoupledRefreshOn: ({ context }) => context.config.decoupledRefresh,
    /** RECONCILE_LIVE on, on a settled tick: compare live images with what was pinned (issue 7). */
    isLiveReconcileOn: ({ context }) =>
      context.config.reconcileLive !== 'off' && context.decoupledSettled._tag === 'None',
    /** requests-proxy has nothing to follow when it, or jobs-manager's image, is pinned. */
    isRequestsProxyUnmanaged: ({ context }) => context.config.pins.requestsProxy || context.config.pins.jobsManager,
    isResourceMonitorUnmanaged: ({ context }) => context.config.pins.resourceMonitor,
    /** §3.3 — nothing resolved (all pinned or all failed): nothing to compare or record. */
    isNothingResolved: ({ context }) => !context.resolutions.some((r) => r._tag === 'Resolved'),
    /**
     * §3.4 — the plan re-images a workload: a recorded digest differs from the
     * registry's, or (RECONCILE_LIVE=1) a live container must be put back on
     * its recorded digest. (Named `hasDrift` until issue 12; it also meant the
     * live repairs.)
     */
    hasWorkloadsToReimage: ({ context }) => hasDrift(planOf(context)),
    /** VERIFY_SIGNATURES=off (the default, the script's behaviour): no check, no request, no line (issue 15). */
    isSignatureCheckOff: ({ context }) => signatureModeOf(context.config) === 'off',
    /** Nothing changed and nothing is first observed: no digest to check (an unchanged one was checked when it changed). */
    hasNoSignaturesToCheck: ({ context }) => signatureSubjectsOf(context).length === 0,
    /** §3.4 — first observations are recorded without a re-image (I8). */
    hasDigestsToRecord: ({ context }) => Object.keys(recordAnnotations(context)).length > 0,
    /**
     * Every re-image makes the kubelets pull (a DaemonSet: one pull per node);
     * with the registry's pull budget nearly spent, a rollout dies of
     * ImagePullBackOff — the churn the flap guard exists to prevent (issue 6).
     */
    isRegistryBudgetLow: ({ context }) => isRegistryBudgetLow(context.config, context.resolutions),
    /** §3.5 — MAX_REFRESH_ATTEMPTS failed re-images in a row: stop and flag, no auto-resume (I10, #563). */
    isFlapLockedOut: ({ context }, params: { attempt: number }) => params.attempt >= context.config.maxRefreshAttempts,
    /**
     * A decoupled pass (jobs-manager unsettled) found refresh-attempt above 0:
     * failures before it — a flapping jobs-manager's, typically — are not its
     * to clear, so its success puts the count back instead (I25, issue 7).
     */
    hasEarlierFailuresToKeep: ({ context }) => context.decoupledSettled._tag === 'Some' && context.attempt > 0,
    /**
     * §3.6 — the port sent nothing: every container named already runs the
     * target reference (a retry tick after a rollout that completed late), as
     * `kubectl set image` sends nothing then. Its rollout is still waited for
     * (I7); it is not a re-image (docs/behaviour.md §3.6).
     */
    wasAlreadyOnTarget: (_, params: { changed: boolean }) => !params.changed,
    /** §3.6 — more workloads to re-image this tick. */
    hasMoreWorkloads: ({ context }) => context.reimageIndex + 1 < planOf(context).changes.length,
    /** §3.4a — a changed digest is the one quarantined for its image: held, not re-applied (I30, issue 16). */
    isChangedDigestQuarantined: ({ context }) => quarantinedOf(context).length > 0,
    /** ROLLOUT_STABLE_FOR above 0: a completed rollout must stay complete before it counts (issue 16). */
    hasStabilityWindow: ({ context }) => context.config.rolloutStableForMs > 0,
    /** ON_ROLLOUT_FAILURE=revert: a failed rollout is rolled back, not left half-rolled (issue 16). */
    isRevertOn: ({ context }) => context.config.onRolloutFailure === 'revert',
    /** A container the tick moved has no well-formed recorded digest: nothing known-good to go back to. */
    hasNoRecordToRevertTo: ({ context }) => E.isLeft(revertFor(context)),
    /** Every container moved so far went onto its recorded digest (RECONCILE_LIVE=1 re-pins): nothing to roll back. */
    hasNothingToRollBack: ({ context }) => {
      const revert = revertFor(context);
      return E.isRight(revert) && !movesAnything(revert.right);
    },
    /** The failed workload was rolling to a new digest: that digest is quarantined (I30). */
    hasDigestToQuarantine: ({ context }) => hasBadDigest(revertOf(context)),
    /** More workloads to roll back. */
    hasMoreReverts: ({ context }) => context.revertIndex + 1 < revertOf(context).changes.length,
    /** §3.3 — START_JITTER=0s (the default), or this edge's delay is 0: no wait, no port call (issue 17). */
    hasNoStartJitter: ({ context }) => jitterDelayOf(context) === 0,
    /** §3.4a — MIN_DIGEST_AGE + ROLLOUT_RING × RING_DELAY is 0 (the default): the check passes, no read, no write. */
    isDigestAgeOff: ({ context }) => requiredDigestAgeMs(context.config) === 0,
    /** §3.4a — no changed digest to judge and no pending record to clear: nothing to read (issue 17). */
    hasNoDigestAgeToJudge: ({ context }) => changedOf(context).length === 0 && !hasPendingDigests(context.bookkeeping),
    /** §3.4a — the decision writes no pending record (every changed digest already had its own). */
    hasNoPendingDigestsToWrite: ({ context }) =>
      context.ageDecision._tag === 'None' || Object.keys(context.ageDecision.value.changes).length === 0,
  },
  actions: {
    /** Every write the port accepted, in order, exactly as it was handed over (issue 12). */
    noteWrite: assign({
      writes: ({ context }, params: { write: AnnotationWrite }) => [...context.writes, params.write],
    }),
    announceTick: assign({ events: ({ context }) => emit(context, say.tickStart(context.config)) }),
    announceMirrorInert: assign({ events: ({ context }) => emit(context, say.mirrorInert(context.config)) }),
    announceTickComplete: assign({ events: ({ context }) => emit(context, say.tickComplete()) }),
    rememberSettledness: assign({
      settledness: (_, params: { settledness: Settledness }) => O.some(params.settledness),
    }),
    reportDeploymentUnreadable: assign({
      events: ({ context }, params: { error: PortError }) =>
        emit(context, say.deploymentUnreadable(context.config, params.error)),
    }),

    countSkip: assign({
      skipStreak: (_, params: { streak: O.Option<string> }) => counterValue(params.streak) + 1,
    }),
    reportSkipStreakUncountable: assign({
      events: ({ context }, params: { error: PortError }) =>
        emit(context, say.skipStreakUncountable(context.config, params.error)),
    }),
    reportSkipStreakWriteFailed: assign({
      events: ({ context }, params: { error: PortError }) =>
        emit(context, say.skipStreakWriteFailed(context.config, context.skipStreak, params.error)),
    }),
    announceSkip: assign({
      events: ({ context }) => emit(context, say.skipping(context.config, context.skipStreak, settlednessOf(context))),
    }),
    announceFrozen: assign({
      events: ({ context }) => emit(context, say.frozen(context.config, context.skipStreak, settlednessOf(context))),
    }),

    announceSettledAgain: assign({
      events: ({ context }, params: { streak: O.Option<string> }) =>
        emit(context, say.settledAgain(context.config, O.getOrElse(() => '')(params.streak))),
    }),
    warnSkipStreakUnreadable: assign({
      events: ({ context }, params: { error: PortError }) =>
        emit(context, say.skipStreakUnreadableOnSettle(context.config, params.error)),
    }),
    warnSkipStreakClearFailed: assign({
      events: ({ context }, params: { error: PortError }) =>
        emit(context, say.skipStreakClearFailed(context.config, params.error)),
    }),

    acceptResolutions: assign(({ context }, params: { answers: ResolveAnswers }) => {
      const resolutions = acceptResolutions(context.config, params.answers, decoupledSettledOf(context));
      return { resolutions, events: emit(context, ...announceResolutions(context.config, resolutions)) };
    }),
    failAllResolutions: assign(({ context }, params: { error: PortError }) => {
      const answers = unpinnedRequests(context.config, decoupledSettledOf(context)).map(
        (): Either<RegistryError, Resolution> => ({
          _tag: 'Left',
          left: params.error,
        }),
      );
      const resolutions = acceptResolutions(context.config, answers, decoupledSettledOf(context));
      return { resolutions, events: emit(context, ...announceResolutions(context.config, resolutions)) };
    }),
    rememberRecorded: assign((_, params: { annotations: Annotations }) => ({
      recorded: O.some(recordedDigestsOf(params.annotations)),
      bookkeeping: params.annotations,
    })),
    planRefresh: assign(({ context }) => {
      if (context.recorded._tag === 'None') throw new Error('the refresh plan is made before the records were read');
      const plan = planFor(context, context.recorded.value);
      return { plan: O.some(plan), events: emit(context, ...announcePlan(context.config, plan, context.holds)) };
    }),
    /** docs/behaviour.md §3.4a step 3: each answer held, warned or admitted, by mode (issue 15). */
    admitBySignature: assign(({ context }, params: { answers: SignatureAnswers }) =>
      admitSignatures(
        context,
        signatureReports(context, (index) => params.answers[index]),
      ),
    ),
    /** The check failed as a whole (a defect of the port): no digest is verified, every one waits (fail closed). */
    holdUncheckedSignatures: assign(({ context }, params: { error: PortError }) =>
      admitSignatures(
        context,
        signatureReports(context, () => ({ _tag: 'Left', left: params.error })),
      ),
    ),
    rememberPinMarkers: assign({
      live: ({ context }, params: { pins: RecordedDigests }) => ({ ...context.live, pins: O.some(params.pins) }),
    }),
    warnPinMarkersUnreadable: assign({
      events: ({ context }, params: { error: PortError }) =>
        emit(context, say.pinMarkersUnreadable(context.config, params.error)),
    }),
    rememberLiveWorkload: assign({
      live: ({ context }, params: { id: WorkloadId; workload: LiveWorkload }) => ({
        ...context.live,
        workloads: { ...context.live.workloads, [params.id]: params.workload },
      }),
    }),
    warnLiveUnreadable: assign({
      events: ({ context }, params: { id: WorkloadId; error: PortError }) =>
        emit(context, say.liveUnreadable(context.config, params.id, params.error)),
    }),
    beginDecoupledPass: assign({
      decoupledSettled: () => O.some([] as readonly WorkloadId[]),
      skipResult: ({ context }) =>
        O.some(context.skipStreak >= context.config.maxSkipTicks ? ('frozen' as const) : ('skipped' as const)),
      events: ({ context }) => emit(context, say.decoupledRefresh()),
    }),
    /** A decoupled workload is refreshed only if it is settled itself (I24). */
    rememberDecoupledObservation: assign(({ context }, params: { id: WorkloadId; workload: LiveWorkload }) =>
      params.workload.settledness._tag === 'Settled'
        ? {
            decoupledSettled: O.some([...(decoupledSettledOf(context) ?? []), params.id]),
            live: { ...context.live, workloads: { ...context.live.workloads, [params.id]: params.workload } },
          }
        : { events: emit(context, say.decoupledNotSettled(context.config, params.id, params.workload.settledness)) },
    ),
    warnDecoupledUnreadable: assign({
      events: ({ context }, params: { id: WorkloadId; error: PortError }) =>
        emit(context, say.decoupledUnreadable(context.config, params.id, params.error)),
    }),
    warnRecordedDigestsUnreadable: assign({
      events: ({ context }, params: { error: PortError }) =>
        emit(context, say.recordedDigestsUnreadable(context.config, params.error)),
    }),

    warnRegistryBudgetLow: assign({
      events: ({ context }) => emit(context, say.registryBudgetLow(context.config, context.resolutions)),
    }),
    /** Hold the drift back for a later tick; first observations (which pull nothing) still get recorded. */
    setDriftAside: assign({
      // Nothing is re-imaged, so nothing is pinned: a marker written now would
      // make the next tick take a container still on its tag for a reverted
      // pin (I23; found by the property suite at seed 2024).
      plan: ({ context }) => O.some({ ...planOf(context), drift: {}, changes: [], pins: {} }),
    }),
    rememberAttempt: assign({ attempt: (_, params: { attempt: number }) => params.attempt }),
    warnAttemptUnreadable: assign({
      events: ({ context }, params: { error: PortError }) => emit(context, say.attemptUnreadable(params.error)),
    }),
    announceFlapDetected: assign({
      events: ({ context }) =>
        emit(context, say.flapDetected(context.config, context.attempt, context.config.flapLockoutIsFinding)),
    }),
    reportFlapMarkFailed: assign({
      events: ({ context }, params: { error: PortError }) =>
        emit(context, say.flapMarkFailed(context.config, context.attempt, params.error)),
    }),
    announceReimaging: assign({
      events: ({ context }) => emit(context, say.reimaging(context.config, context.attempt + 1)),
    }),
    reportAttemptWriteFailed: assign({
      events: ({ context }, params: { error: PortError }) =>
        emit(context, say.attemptWriteFailed(context.config, context.attempt + 1, params.error)),
    }),

    announceSetImage: assign({ events: ({ context }) => emit(context, say.setImage(currentChange(context))) }),
    noteImagesSet: assign({
      reimages: ({ context }) => {
        const { workload, images, previous } = currentChange(context);
        return [
          ...context.reimages,
          { workload, images, rolledOut: false, ...(previous === undefined ? {} : { previous }) },
        ];
      },
    }),
    reportSetImageFailed: assign({
      events: ({ context }, params: { error: PortError }) =>
        emit(context, say.setImageFailed(currentChange(context), params.error)),
      revertWhy: ({ context }, params: { error: PortError }) =>
        back.patchRefusedWhy(currentChange(context), params.error),
      revertCause: () => 'patchRefused' as const,
    }),
    announceAlreadyOnTarget: assign({
      events: ({ context }) => emit(context, say.alreadyOnTarget(currentChange(context))),
    }),
    noteRolloutComplete: assign({
      // The workload waited for, which is a re-image only if the port changed it.
      reimages: ({ context }) =>
        context.reimages.map((r) =>
          r.workload.id === currentChange(context).workload.id ? { ...r, rolledOut: true } : r,
        ),
      events: ({ context }) => emit(context, say.rolloutComplete(currentChange(context))),
    }),
    reportRolloutFailed: assign({
      events: ({ context }, params: { error: RolloutError }) =>
        emit(context, say.rolloutFailed(context.config, currentChange(context), params.error)),
      revertWhy: ({ context }, params: { error: RolloutError }) => back.rolloutWhy(context.config, params.error, false),
    }),
    holdQuarantinedDigests: assign(({ context }) => {
      const held = quarantinedOf(context);
      return {
        holds: held.reduce(
          (holds, c) => withHold(holds, { _tag: 'Quarantined', image: c.image, digest: c.to }),
          context.holds,
        ),
        events: emit(context, ...held.map((c) => back.digestQuarantined(context.config, c.image, c.to))),
      };
    }),
    announceStabilityWatch: assign({
      events: ({ context }) => emit(context, back.watchingStability(context.config, currentChange(context))),
    }),
    reportFellApart: assign({
      events: ({ context }, params: { error: RolloutError }) =>
        emit(context, back.fellApart(context.config, currentChange(context), params.error)),
      revertWhy: ({ context }, params: { error: RolloutError }) => back.rolloutWhy(context.config, params.error, true),
    }),
    /**
     * Under revert, a re-image tick says up front where a failure would take
     * each workload back to (what `--dry-run` shows of the revert); a plan
     * with nothing to go back to, or no record to go back to, says nothing.
     */
    announceRevertReady: assign({
      events: ({ context }) => {
        if (context.recorded._tag === 'None') return context.events;
        const plan = planOf(context);
        const all = planRevert(
          context.config,
          plan.changes,
          plan.changes.length - 1,
          context.recorded.value,
          plan.changes.length - 1,
          quarantinesOf(context),
        );
        return E.isRight(all) && movesAnything(all.right) ? emit(context, back.revertReady(all.right)) : context.events;
      },
    }),
    beginRevert: assign({
      revert: ({ context }) => {
        const revert = revertFor(context);
        if (E.isLeft(revert)) throw new Error('a rollback is begun without a record to go back to');
        return O.some(revert.right);
      },
      revertIndex: () => 0,
    }),
    reportRollbackImpossible: assign({
      events: ({ context }) => {
        const revert = revertFor(context);
        return E.isLeft(revert)
          ? emit(context, back.rollbackImpossible(context.config, revert.left, context.revertWhy))
          : context.events;
      },
    }),
    announceRollingBack: assign({ events: ({ context }) => emit(context, back.rollingBack(currentRevert(context))) }),
    noteRevertSet: assign({
      reverts: ({ context }) => {
        const { workload, images } = currentRevert(context);
        return [...context.reverts, { workload, images, rolledOut: false }];
      },
    }),
    noteRevertComplete: assign({
      reverts: ({ context }) =>
        context.reverts.map((r) =>
          r.workload.id === currentRevert(context).workload.id ? { ...r, rolledOut: true } : r,
        ),
      events: ({ context }) => emit(context, say.rolloutComplete(currentRevert(context))),
    }),
    advanceToNextRevert: assign({ revertIndex: ({ context }) => context.revertIndex + 1 }),
    announceRolledBack: assign({
      events: ({ context }) => emit(context, ...back.rolledBack(context.config, revertOf(context), context.revertWhy)),
    }),
    reportRollbackFailed: assign({
      events: ({ context }, params: { error: RolloutError }) =>
        emit(context, back.rollbackFailed(currentRevert(context), params.error, context.revertWhy)),
    }),
    announceQuarantineStarted: assign({
      events: ({ context }) => emit(context, back.quarantineStarted(revertOf(context).bad)),
    }),
    reportQuarantineWriteFailed: assign({
      events: ({ context }, params: { error: PortError }) =>
        emit(context, back.quarantineWriteFailed(context.config, params.error)),
    }),
    advanceToNextWorkload: assign({ reimageIndex: ({ context }) => context.reimageIndex + 1 }),
    announceReimageComplete: assign({ events: ({ context }) => emit(context, say.reimageComplete()) }),

    announceAttemptKept: assign({
      events: ({ context }) => emit(context, say.attemptKept(context.config, context.attempt)),
    }),
    reportAttemptKeepFailed: assign({
      events: ({ context }, params: { error: PortError }) =>
        emit(context, say.attemptKeepFailed(context.config, context.attempt, params.error)),
    }),
    reportSuccessResetFailed: assign({
      events: ({ context }, params: { error: PortError }) =>
        emit(context, say.successResetFailed(context.config, params.error)),
    }),

    rememberJobsManagerUid: assign({ jobsManagerUid: (_, params: { uid: string | undefined }) => params.uid ?? '' }),
    announceStartJitter: assign({
      events: ({ context }) => emit(context, sayAge.startJitter(context.config, jitterDelayOf(context))),
    }),
    warnStartJitterFailed: assign({
      events: ({ context }, params: { error: PortError }) => emit(context, sayAge.startJitterFailed(params.error)),
    }),
    rememberAgeBookkeeping: assign({ ageBookkeeping: (_, params: { annotations: Annotations }) => params.annotations }),
    /** Judge every changed digest at `now`: too young → held (Soaking), said once; first sightings to be written. */
    judgeDigestAges: assign(({ context }, params: { nowMs: number }) => {
      const recorded = context.recorded._tag === 'Some' ? context.recorded.value : undefined;
      if (recorded === undefined) throw new Error('the digest-age check runs before the records were read');
      const decision = decideDigestAges(
        changedOf(context),
        context.resolutions,
        recorded,
        context.ageBookkeeping,
        params.nowMs,
        requiredDigestAgeMs(context.config),
      );
      let holds = context.holds;
      const events: TickEvent[] = [];
      for (const v of decision.verdicts) {
        if (v._tag === 'OldEnough') {
          events.push(sayAge.digestSoaked(context.config, v, params.nowMs));
          continue;
        }
        if (v.unparsable !== undefined) events.push(sayAge.pendingDigestUnparsable(context.config, v));
        events.push(sayAge.digestSoaking(context.config, v, params.nowMs));
        holds = withHold(holds, soakingHold(v));
      }
      return { ageDecision: O.some(decision), holds, events: emit(context, ...events) };
    }),
    /** Fail closed (docs/behaviour.md §3.4a): an age that cannot be judged holds every changed digest back. */
    holdEveryChangedDigest: assign({
      holds: ({ context }) => changedOf(context).reduce((holds, c) => withHold(holds, unjudgedHold(c)), context.holds),
    }),
    warnPendingDigestsUnreadable: assign({
      events: ({ context }, params: { error: PortError }) =>
        emit(context, sayAge.pendingDigestsUnreadable(context.config, params.error)),
    }),
    warnClockUnavailable: assign({
      events: ({ context }, params: { error: PortError }) => emit(context, sayAge.clockUnavailable(params.error)),
    }),
    warnPendingDigestsWriteFailed: assign({
      events: ({ context }, params: { error: PortError }) =>
        emit(context, sayAge.pendingDigestsWriteFailed(context.config, params.error)),
    }),

    announceRecording: assign({
      events: ({ context }) => emit(context, say.recordingDigests(recordAnnotations(context))),
    }),
    reportRecordFailed: assign({
      events: ({ context }, params: { error: PortError }) =>
        emit(context, say.recordFailed(context.config, params.error)),
    }),
  },
});

/**
 * A step that reads one workload as it runs now (issue 7) and moves on to
 * `next` whatever the answer: a failed read is remembered as a warning, never
 * a finding, and never stops the registry pass. Skipped where `skipIf` says
 * the workload is not image-refresh's to manage (pinned).
 */
const observingWorkload = (
  id: WorkloadId,
  next: string,
  on: {
    readonly done: 'rememberLiveWorkload' | 'rememberDecoupledObservation';
    readonly failed: 'warnLiveUnreadable' | 'warnDecoupledUnreadable';
  },
  skipIf?: 'isRequestsProxyUnmanaged' | 'isResourceMonitorUnmanaged',
) =>
  tickSetup.createStateConfig({
    ...(skipIf === undefined ? {} : { always: { guard: skipIf, target: next } }),
    invoke: {
      src: 'observeWorkload',
      input: ({ context }) => ({ workload: workloadRef(context.config, id) }),
      onDone: { target: next, actions: { type: on.done, params: ({ event }) => ({ id, workload: event.output }) } },
      onError: {
        target: next,
        actions: { type: on.failed, params: ({ event }) => ({ id, error: portErrorOf(event) }) },
      },
    },
  });

const DECOUPLED = { done: 'rememberDecoupledObservation', failed: 'warnDecoupledUnreadable' } as const;
const LIVE = { done: 'rememberLiveWorkload', failed: 'warnLiveUnreadable' } as const;

/** A rollout that counts (completed, and stayed so for ROLLOUT_STABLE_FOR): on to the next workload, or the success reset. */
const rolloutCounted = [
  {
    guard: 'hasMoreWorkloads',
    target: 'settingImages',
    actions: ['noteRolloutComplete', 'advanceToNextWorkload'],
  },
  {
    guard: 'hasEarlierFailuresToKeep',
    target: '#tick.keepingEarlierAttempts',
    actions: ['noteRolloutComplete', 'announceReimageComplete'],
  },
  { target: '#tick.successReset', actions: ['noteRolloutComplete', 'announceReimageComplete'] },
] as const;

const MISSING_CONFIG = new Error('the tick machine needs a parsed TickConfig as its input');

/**
 * One tick of docs/behaviour.md §3 as an xstate v5 machine: one state per step, one named
 * guard per decision, one named actor per port call (the actors are typed
 * placeholders; `runTick` binds them to ports). It does no I/O and
 * reads no clock (I20). Public for those who inspect or draw it — walk
 * `tickMachine.root`, or `mermaidDiagram` it; run ticks with
 * `runTick`. Its final states are named as the {@link TickResult}
 * values (all but `configInvalid`, which ends before the machine starts).
 */
export const tickMachine = tickSetup.createMachine({
  id: 'tick',
  // Without a config there is no tick: fail before the first step (xstate's
  // pure step functions build a throw-away actor of this machine, without
  // input, on every call — this keeps that actor to one cheap failure).
  context: ({ input }) => {
    if (input === undefined) throw MISSING_CONFIG;
    return initialContext(input);
  },
  // The root hands out the outcome its final state computed.
  output: ({ event }) => (event as unknown as { output: TickOutcome }).output,
  initial: 'checkingMirror',
  states: {
    // §3.1 Mirror guard: inert behind a private mirror, touching and calling nothing (I14).
    checkingMirror: {
      entry: 'announceTick',
      always: [{ guard: 'isMirrorRegistry', target: 'mirrorInert' }, { target: 'settledGuard' }],
    },

    // §3.2 Settled guard. Unreadable → exit 1 (#571). Unsettled → count the skip
    // fail-closed and fail at the ceiling (#1964). Settled → clear the streak.
    settledGuard: {
      initial: 'observingJobsManager',
      states: {
        observingJobsManager: {
          invoke: {
            src: 'readJobsManager',
            input: ({ context }) => ({ settleWithinMs: context.config.settleTimeoutMs }),
            onDone: [
              {
                guard: {
                  type: 'isJobsManagerSettled',
                  params: ({ event }) => ({ settledness: event.output.settledness }),
                },
                target: '#tick.clearingStreakOnSettle',
                actions: [
                  {
                    type: 'rememberSettledness',
                    params: ({ event }) => ({ settledness: event.output.settledness }),
                  },
                  { type: 'rememberJobsManagerUid', params: ({ event }) => ({ uid: event.output.uid }) },
                ],
              },
              {
                target: 'readingSkipStreak',
                actions: [
                  {
                    type: 'rememberSettledness',
                    params: ({ event }) => ({ settledness: event.output.settledness }),
                  },
                  { type: 'rememberJobsManagerUid', params: ({ event }) => ({ uid: event.output.uid }) },
                ],
              },
            ],
            onError: {
              target: '#tick.deploymentUnreadable',
              actions: { type: 'reportDeploymentUnreadable', params: withPortError },
            },
          },
        },
        readingSkipStreak: {
          invoke: {
            src: 'readJobsManager',
            input: () => ({ settleWithinMs: 0 }),
            onDone: {
              target: 'writingSkipStreak',
              actions: {
                type: 'countSkip',
                params: ({ event }) => ({ streak: skipStreakOf(event.output.annotations) }),
              },
            },
            onError: {
              target: '#tick.skipStreakUncountable',
              actions: { type: 'reportSkipStreakUncountable', params: withPortError },
            },
          },
        },
        writingSkipStreak: {
          invoke: {
            src: 'patchBookkeeping',
            input: ({ context }) => write('writeSkipStreak', skipStreakSet(context.skipStreak)),
            onDone: [
              {
                guard: and(['isAtSkipCeiling', 'isDecoupledRefreshOn']),
                target: '#tick.decoupledRefresh',
                actions: [{ type: 'noteWrite', params: written }, 'announceFrozen', 'beginDecoupledPass'],
              },
              {
                guard: 'isAtSkipCeiling',
                target: '#tick.frozen',
                actions: [{ type: 'noteWrite', params: written }, 'announceFrozen'],
              },
              {
                guard: 'isDecoupledRefreshOn',
                target: '#tick.decoupledRefresh',
                actions: [{ type: 'noteWrite', params: written }, 'announceSkip', 'beginDecoupledPass'],
              },
              { target: '#tick.skipped', actions: [{ type: 'noteWrite', params: written }, 'announceSkip'] },
            ],
            onError: {
              target: '#tick.skipStreakWriteFailed',
              actions: { type: 'reportSkipStreakWriteFailed', params: withPortError },
            },
          },
        },
      },
    },

    // Issue 7, DECOUPLED_REFRESH: the streak is counted as always; then
    // requests-proxy (own Deployment) and resource-monitor (own DaemonSet) are
    // refreshed if they are settled themselves. pods-monitor is a sidecar of
    // the unsettled jobs-manager and waits (#1964 "decision 1", safe subset).
    decoupledRefresh: {
      initial: 'observingRequestsProxy',
      states: {
        observingRequestsProxy: observingWorkload(
          'requests-proxy',
          'observingResourceMonitor',
          DECOUPLED,
          'isRequestsProxyUnmanaged',
        ),
        observingResourceMonitor: observingWorkload(
          'resource-monitor',
          '#tick.resolvingDigests',
          DECOUPLED,
          'isResourceMonitorUnmanaged',
        ),
      },
    },

    // §3.2 Settled again: the streak is over. Clearing it is best effort: a
    // failure is a WARNING and the tick goes on (#2007).
    clearingStreakOnSettle: {
      initial: 'readingSkipStreak',
      states: {
        readingSkipStreak: {
          invoke: {
            src: 'readJobsManager',
            input: () => ({ settleWithinMs: 0 }),
            onDone: [
              {
                guard: {
                  type: 'hasRecordedSkipStreak',
                  params: ({ event }) => ({ streak: skipStreakOf(event.output.annotations) }),
                },
                target: 'clearingSkipStreak',
                actions: {
                  type: 'announceSettledAgain',
                  params: ({ event }) => ({ streak: skipStreakOf(event.output.annotations) }),
                },
              },
              { target: '#tick.resolvingDigests' },
            ],
            onError: {
              target: '#tick.resolvingDigests',
              actions: { type: 'warnSkipStreakUnreadable', params: withPortError },
            },
          },
        },
        clearingSkipStreak: {
          invoke: {
            src: 'patchBookkeeping',
            input: () => write('clearSkipStreak', skipStreakRemoved),
            onDone: { target: '#tick.resolvingDigests', actions: { type: 'noteWrite', params: written } },
            onError: {
              target: '#tick.resolvingDigests',
              actions: { type: 'warnSkipStreakClearFailed', params: withPortError },
            },
          },
        },
      },
    },

    // §3.3 Resolve every unpinned image; a failure skips that image only (I13, I15, I19).
    // Issue 17, START_JITTER: first this edge's own delay, then the registry.
    resolvingDigests: {
      initial: 'decidingStartJitter',
      states: {
        // Said on the way in, not on entry: with no jitter nothing is said (an entry action would be).
        decidingStartJitter: {
          always: [
            { guard: 'hasNoStartJitter', target: 'requestingDigests' },
            { target: 'waitingStartJitter', actions: 'announceStartJitter' },
          ],
        },
        waitingStartJitter: {
          invoke: {
            src: 'waitStartJitter',
            input: ({ context }) => ({ delayMs: jitterDelayOf(context) }),
            onDone: { target: 'requestingDigests' },
            // Not a security decision: a wait that failed only spreads the fleet less.
            onError: { target: 'requestingDigests', actions: { type: 'warnStartJitterFailed', params: withPortError } },
          },
        },
        requestingDigests: {
          invoke: {
            src: 'resolveDigests',
            input: ({ context }) => ({ requests: unpinnedRequests(context.config, decoupledSettledOf(context)) }),
            onDone: {
              target: '#tick.readingRecordedDigests',
              actions: { type: 'acceptResolutions', params: ({ event }) => ({ answers: event.output }) },
            },
            // The port promises one answer per repo; a batch failing as a whole is a
            // defect of the port and leaves every image unresolved.
            onError: {
              target: '#tick.readingRecordedDigests',
              actions: { type: 'failAllResolutions', params: withPortError },
            },
          },
        },
      },
    },

    // §5: recorded digests are read fail-closed — unreadable is never "first observation".
    readingRecordedDigests: {
      always: { guard: 'isNothingResolved', target: 'complete' },
      invoke: {
        src: 'readJobsManager',
        input: () => ({ settleWithinMs: 0 }),
        onDone: [
          {
            guard: 'isLiveReconcileOn',
            target: 'reconcilingLive',
            actions: {
              type: 'rememberRecorded',
              params: ({ event }) => ({ annotations: event.output.annotations }),
            },
          },
          {
            target: 'admittingDigests',
            actions: {
              type: 'rememberRecorded',
              params: ({ event }) => ({ annotations: event.output.annotations }),
            },
          },
        ],
        onError: {
          target: 'recordedDigestsUnreadable',
          actions: { type: 'warnRecordedDigestsUnreadable', params: withPortError },
        },
      },
    },

    // Issue 7, RECONCILE_LIVE: what runs now, against what was pinned. Reads
    // that fail leave that workload (or, without pin markers, the whole live
    // pass) out of this tick; the registry pass goes on.
    reconcilingLive: {
      initial: 'readingPinMarkers',
      states: {
        readingPinMarkers: {
          invoke: {
            src: 'readJobsManager',
            input: () => ({ settleWithinMs: 0 }),
            onDone: {
              target: 'observingJobsManager',
              actions: {
                type: 'rememberPinMarkers',
                params: ({ event }) => ({ pins: pinMarkersOf(event.output.annotations) }),
              },
            },
            onError: {
              target: '#tick.admittingDigests',
              actions: { type: 'warnPinMarkersUnreadable', params: withPortError },
            },
          },
        },
        observingJobsManager: observingWorkload('jobs-manager', 'observingRequestsProxy', LIVE),
        observingRequestsProxy: observingWorkload(
          'requests-proxy',
          'observingResourceMonitor',
          LIVE,
          'isRequestsProxyUnmanaged',
        ),
        observingResourceMonitor: observingWorkload(
          'resource-monitor',
          '#tick.admittingDigests',
          LIVE,
          'isResourceMonitorUnmanaged',
        ),
      },
    },

    // §3.4a Admission: each changed digest passes the checks in this order;
    // a check that holds an image back adds to context.holds, and the plan is
    // made once, after the last check (issues 15, 16, 17). A check that is
    // switched off passes at once.
    admittingDigests: {
      initial: 'checkingQuarantine',
      states: {
        /** ON_ROLLOUT_FAILURE=revert: a digest that failed a rollout here is not re-applied (issue 16). */
        checkingQuarantine: {
          always: [
            { guard: 'isChangedDigestQuarantined', target: 'checkingDigestAge', actions: 'holdQuarantinedDigests' },
            { target: 'checkingDigestAge' },
          ],
        },
        /** MIN_DIGEST_AGE, ROLLOUT_RING: the digest must be old enough on this edge (issue 17). */
        checkingDigestAge: {
          initial: 'decidingDigestAge',
          states: {
            decidingDigestAge: {
              always: [
                { guard: 'isDigestAgeOff', target: '#tick.admittingDigests.checkingSignatures' },
                { guard: 'hasNoDigestAgeToJudge', target: '#tick.admittingDigests.checkingSignatures' },
                { target: 'readingPendingDigests' },
              ],
            },
            // The pending records, read fail-closed: an unreadable one never counts as old enough.
            readingPendingDigests: {
              invoke: {
                src: 'readJobsManager',
                input: () => ({ settleWithinMs: 0 }),
                onDone: {
                  target: 'readingClock',
                  actions: {
                    type: 'rememberAgeBookkeeping',
                    params: ({ event }) => ({ annotations: event.output.annotations }),
                  },
                },
                onError: {
                  target: '#tick.admittingDigests.checkingSignatures',
                  actions: ['holdEveryChangedDigest', { type: 'warnPendingDigestsUnreadable', params: withPortError }],
                },
              },
            },
            readingClock: {
              invoke: {
                src: 'readClock',
                input: () => undefined,
                onDone: {
                  target: 'writingPendingDigests',
                  actions: { type: 'judgeDigestAges', params: ({ event }) => ({ nowMs: event.output }) },
                },
                onError: {
                  target: '#tick.admittingDigests.checkingSignatures',
                  actions: ['holdEveryChangedDigest', { type: 'warnClockUnavailable', params: withPortError }],
                },
              },
            },
            // One write on the tick a digest is first seen, none while it waits.
            writingPendingDigests: {
              always: { guard: 'hasNoPendingDigestsToWrite', target: '#tick.admittingDigests.checkingSignatures' },
              invoke: {
                src: 'patchBookkeeping',
                input: ({ context }) =>
                  write('writePendingDigests', O.isSome(context.ageDecision) ? context.ageDecision.value.changes : {}),
                onDone: {
                  target: '#tick.admittingDigests.checkingSignatures',
                  actions: { type: 'noteWrite', params: written },
                },
                // The digests stay held (they are young by definition); the next tick sees them first again.
                onError: {
                  target: '#tick.admittingDigests.checkingSignatures',
                  actions: { type: 'warnPendingDigestsWriteFailed', params: withPortError },
                },
              },
            },
          },
        },
        /**
         * VERIFY_SIGNATURES: the digest's signature must verify before any pod
         * runs it (issue 15). Checked before the flap back-off persists an
         * attempt: an unverified digest never spends one.
         */
        checkingSignatures: {
          initial: 'decidingSignatureCheck',
          states: {
            decidingSignatureCheck: {
              always: [
                { guard: 'isSignatureCheckOff', target: '#tick.comparingDigests' },
                { guard: 'hasNoSignaturesToCheck', target: '#tick.comparingDigests' },
                // The pull budget is spent: the flap back-off defers every re-image
                // this tick anyway (I7b), so the check's manifest GETs would be
                // pulls spent for nothing; the digest stays unrecorded and is
                // checked on the tick that can act on it.
                { guard: 'isRegistryBudgetLow', target: '#tick.comparingDigests' },
                { target: 'verifyingSignatures' },
              ],
            },
            verifyingSignatures: {
              invoke: {
                src: 'verifySignatures',
                input: ({ context }) => ({
                  targets: signatureSubjectsOf(context).map(({ repo, digest }) => ({ repo, digest })),
                }),
                onDone: {
                  target: '#tick.comparingDigests',
                  actions: { type: 'admitBySignature', params: ({ event }) => ({ answers: event.output }) },
                },
                onError: {
                  target: '#tick.comparingDigests',
                  actions: { type: 'holdUncheckedSignatures', params: withPortError },
                },
              },
            },
          },
        },
      },
    },

    // §3.4 Compare.
    comparingDigests: {
      entry: 'planRefresh',
      always: [
        { guard: 'hasWorkloadsToReimage', target: 'flapBackoff' },
        { guard: 'hasDigestsToRecord', target: 'recordingDigests' },
        { target: 'complete' },
      ],
    },

    // §3.5 Flap back-off (#563, #626). The lockout is decided before the pull
    // budget: a tick in lockout with drift pending is the lockout finding
    // (exit 1 under FLAP_LOCKOUT_EXIT=1) whatever the budget — a deferral
    // checked first hid it behind exit 0 `complete` (I10, I18).
    flapBackoff: {
      initial: 'readingRefreshAttempt',
      states: {
        readingRefreshAttempt: {
          invoke: {
            src: 'readJobsManager',
            input: () => ({ settleWithinMs: 0 }),
            onDone: [
              {
                guard: {
                  type: 'isFlapLockedOut',
                  params: ({ event }) => ({ attempt: counterValue(refreshAttemptOf(event.output.annotations)) }),
                },
                target: 'markingFlapDetected',
                actions: {
                  type: 'rememberAttempt',
                  params: ({ event }) => ({ attempt: counterValue(refreshAttemptOf(event.output.annotations)) }),
                },
              },
              {
                target: 'checkingRegistryBudget',
                actions: {
                  type: 'rememberAttempt',
                  params: ({ event }) => ({ attempt: counterValue(refreshAttemptOf(event.output.annotations)) }),
                },
              },
            ],
            // Fail-closed, safe branch: no re-image, exit 0, retry next tick (I11).
            onError: {
              target: '#tick.attemptUnreadable',
              actions: { type: 'warnAttemptUnreadable', params: withPortError },
            },
          },
        },
        markingFlapDetected: {
          invoke: {
            src: 'patchBookkeeping',
            input: ({ context }) => write('markFlapDetected', flapMarked(context.attempt)),
            onDone: {
              target: '#tick.flapLockout',
              actions: [{ type: 'noteWrite', params: written }, 'announceFlapDetected'],
            },
            onError: {
              target: '#tick.flapMarkFailed',
              actions: { type: 'reportFlapMarkFailed', params: withPortError },
            },
          },
        },
        // Before a re-image: is there pull budget left for the kubelets? (issue 6, I7b)
        checkingRegistryBudget: {
          always: [{ guard: 'isRegistryBudgetLow', target: '#tick.deferringReimage' }, { target: 'persistingAttempt' }],
        },
        // Persisted BEFORE any workload is touched: never re-image without it (I9).
        persistingAttempt: {
          invoke: {
            src: 'patchBookkeeping',
            input: ({ context }) => write('writeRefreshAttempt', refreshAttemptSet(context.attempt + 1)),
            onDone: [
              {
                guard: 'isRevertOn',
                target: '#tick.reimaging',
                actions: [{ type: 'noteWrite', params: written }, 'announceReimaging', 'announceRevertReady'],
              },
              { target: '#tick.reimaging', actions: [{ type: 'noteWrite', params: written }, 'announceReimaging'] },
            ],
            onError: {
              target: '#tick.attemptWriteFailed',
              actions: { type: 'reportAttemptWriteFailed', params: withPortError },
            },
          },
        },
      },
    },

    // Drift held back for a later tick (issue 6, I7b); reached only when not in flap lockout.
    deferringReimage: {
      entry: ['warnRegistryBudgetLow', 'setDriftAside'],
      always: [{ guard: 'hasDigestsToRecord', target: 'recordingDigests' }, { target: 'complete' }],
    },

    // §3.6 Re-image each workload in order, each followed by its rollout wait.
    reimaging: {
      initial: 'settingImages',
      states: {
        settingImages: {
          invoke: {
            src: 'setImages',
            input: ({ context }) => ({ change: currentChange(context) }),
            // Announced once the port says it changed something: a patch it did not send is no re-image.
            onDone: [
              {
                guard: { type: 'wasAlreadyOnTarget', params: ({ event }) => ({ changed: event.output.changed }) },
                target: 'awaitingRollout',
                actions: 'announceAlreadyOnTarget',
              },
              { target: 'awaitingRollout', actions: ['announceSetImage', 'noteImagesSet'] },
            ],
            onError: [
              {
                guard: 'isRevertOn',
                target: '#tick.revertingRollout',
                actions: { type: 'reportSetImageFailed', params: withPortError },
              },
              { target: '#tick.reimageFailed', actions: { type: 'reportSetImageFailed', params: withPortError } },
            ],
          },
        },
        awaitingRollout: {
          invoke: {
            src: 'waitForRollout',
            input: ({ context }) => ({ change: currentChange(context), timeoutMs: context.config.rolloutTimeoutMs }),
            onDone: [
              { guard: 'hasStabilityWindow', target: 'provingStability', actions: 'announceStabilityWatch' },
              ...rolloutCounted,
            ],
            onError: [
              {
                guard: 'isRevertOn',
                target: '#tick.revertingRollout',
                actions: { type: 'reportRolloutFailed', params: ({ event }) => ({ error: rolloutErrorOf(event) }) },
              },
              {
                target: '#tick.reimageFailed',
                actions: { type: 'reportRolloutFailed', params: ({ event }) => ({ error: rolloutErrorOf(event) }) },
              },
            ],
          },
        },
        // ROLLOUT_STABLE_FOR (issue 16): complete is not yet counted; falling
        // apart inside the window is a failed rollout (docs/behaviour.md §3.6).
        provingStability: {
          invoke: {
            src: 'watchStability',
            input: ({ context }) => ({
              change: currentChange(context),
              stableForMs: context.config.rolloutStableForMs,
            }),
            onDone: rolloutCounted,
            onError: [
              {
                guard: 'isRevertOn',
                target: '#tick.revertingRollout',
                actions: { type: 'reportFellApart', params: ({ event }) => ({ error: rolloutErrorOf(event) }) },
              },
              {
                target: '#tick.reimageFailed',
                actions: { type: 'reportFellApart', params: ({ event }) => ({ error: rolloutErrorOf(event) }) },
              },
            ],
          },
        },
      },
    },

    // §3.6 The way back (ON_ROLLOUT_FAILURE=revert, issue 16): every
    // container moved so far goes back to its recorded digest as a digest
    // reference, each rollout waited for (ROLLOUT_TIMEOUT); then the failed
    // digest is quarantined. refresh-attempt stays as persisted before the
    // re-image and nothing is recorded (I7, I29). A rollback that fails
    // touches nothing more: ROLLBACK FAILED.
    revertingRollout: {
      initial: 'planningRevert',
      states: {
        planningRevert: {
          always: [
            { guard: 'hasNoRecordToRevertTo', target: '#tick.rollbackFailed', actions: 'reportRollbackImpossible' },
            { guard: 'hasNothingToRollBack', target: '#tick.reimageFailed' },
            { target: 'settingRevertImages', actions: 'beginRevert' },
          ],
        },
        settingRevertImages: {
          entry: 'announceRollingBack',
          invoke: {
            src: 'setImages',
            input: ({ context }) => ({ change: currentRevert(context) }),
            onDone: { target: 'awaitingRevertRollout', actions: 'noteRevertSet' },
            onError: {
              target: '#tick.rollbackFailed',
              actions: { type: 'reportRollbackFailed', params: ({ event }) => ({ error: portErrorOf(event) }) },
            },
          },
        },
        awaitingRevertRollout: {
          invoke: {
            src: 'waitForRollout',
            input: ({ context }) => ({ change: currentRevert(context), timeoutMs: context.config.rolloutTimeoutMs }),
            onDone: [
              {
                guard: 'hasMoreReverts',
                target: 'settingRevertImages',
                actions: ['noteRevertComplete', 'advanceToNextRevert'],
              },
              {
                guard: 'hasDigestToQuarantine',
                target: 'quarantiningDigests',
                actions: ['noteRevertComplete', 'announceRolledBack'],
              },
              { target: '#tick.rolledBack', actions: ['noteRevertComplete', 'announceRolledBack'] },
            ],
            onError: {
              target: '#tick.rollbackFailed',
              actions: { type: 'reportRollbackFailed', params: ({ event }) => ({ error: rolloutErrorOf(event) }) },
            },
          },
        },
        quarantiningDigests: {
          invoke: {
            src: 'patchBookkeeping',
            input: ({ context }) => {
              const { bad } = revertOf(context);
              const images = IMAGES.filter(({ name }) => bad[name] !== undefined).map(({ name }) => name);
              return write('quarantineDigests', withPendingClearedFor(quarantineSet(bad), images, context.bookkeeping));
            },
            onDone: {
              target: '#tick.rolledBack',
              actions: [{ type: 'noteWrite', params: written }, 'announceQuarantineStarted'],
            },
            onError: {
              target: '#tick.rolledBack',
              actions: { type: 'reportQuarantineWriteFailed', params: withPortError },
            },
          },
        },
      },
    },

    // §3.7 Success reset, in a write of its own before the record (I12, #626).
    // Its failure is a finding, but the rollouts did complete, so the record
    // still happens (I7) and the next tick does not re-image for nothing. A
    // re-image that moved nothing recordable (a live re-pin back to the
    // recorded digest) has no record to write: no empty write is reported.
    successReset: {
      invoke: {
        src: 'patchBookkeeping',
        input: () => write('clearFlapState', flapStateRemoved),
        onDone: [
          { guard: 'hasDigestsToRecord', target: 'recordingDigests', actions: { type: 'noteWrite', params: written } },
          { target: 'complete', actions: { type: 'noteWrite', params: written } },
        ],
        onError: [
          {
            guard: 'hasDigestsToRecord',
            target: 'recordingDigests',
            actions: { type: 'reportSuccessResetFailed', params: withPortError },
          },
          { target: 'complete', actions: { type: 'reportSuccessResetFailed', params: withPortError } },
        ],
      },
    },

    // The success reset of a decoupled pass over earlier failures (issue 7,
    // "flap counter keeps its meaning", I25): refresh-attempt goes back to the
    // count it found, so a jobs-manager that fails, crash-loops, fails again
    // still reaches the lockout. A failed write is a finding; the rollouts did
    // complete, so the record still happens (I7).
    keepingEarlierAttempts: {
      invoke: {
        src: 'patchBookkeeping',
        input: ({ context }) => write('writeRefreshAttempt', refreshAttemptSet(context.attempt)),
        onDone: [
          {
            guard: 'hasDigestsToRecord',
            target: 'recordingDigests',
            actions: [{ type: 'noteWrite', params: written }, 'announceAttemptKept'],
          },
          { target: 'complete', actions: [{ type: 'noteWrite', params: written }, 'announceAttemptKept'] },
        ],
        onError: [
          {
            guard: 'hasDigestsToRecord',
            target: 'recordingDigests',
            actions: { type: 'reportAttemptKeepFailed', params: withPortError },
          },
          { target: 'complete', actions: { type: 'reportAttemptKeepFailed', params: withPortError } },
        ],
      },
    },

    // §3.8 Record every new and first-observed digest in one write.
    recordingDigests: {
      entry: 'announceRecording',
      invoke: {
        src: 'patchBookkeeping',
        input: ({ context }) => write('recordDigests', recordAnnotations(context)),
        onDone: { target: 'complete', actions: { type: 'noteWrite', params: written } },
        onError: { target: 'recordFailed', actions: { type: 'reportRecordFailed', params: withPortError } },
      },
    },

    mirrorInert: {
      type: 'final',
      entry: ['announceMirrorInert', 'announceTickComplete'],
      output: outcome('mirrorInert'),
    },
    deploymentUnreadable: { type: 'final', output: outcome('deploymentUnreadable') },
    skipStreakUncountable: { type: 'final', output: outcome('skipStreakUncountable') },
    skipStreakWriteFailed: { type: 'final', output: outcome('skipStreakWriteFailed') },
    skipped: { type: 'final', output: outcome('skipped') },
    frozen: { type: 'final', output: outcome('frozen') },
    recordedDigestsUnreadable: {
      type: 'final',
      entry: 'announceTickComplete',
      output: outcome('recordedDigestsUnreadable'),
    },
    attemptUnreadable: { type: 'final', entry: 'announceTickComplete', output: outcome('attemptUnreadable') },
    flapLockout: { type: 'final', entry: 'announceTickComplete', output: outcome('flapLockout') },
    flapMarkFailed: { type: 'final', output: outcome('flapMarkFailed') },
    attemptWriteFailed: { type: 'final', output: outcome('attemptWriteFailed') },
    reimageFailed: { type: 'final', output: outcome('reimageFailed') },
    rolledBack: { type: 'final', output: outcome('rolledBack') },
    rollbackFailed: { type: 'final', output: outcome('rollbackFailed') },
    recordFailed: { type: 'final', output: outcome('recordFailed') },
    complete: { type: 'final', entry: 'announceTickComplete', output: outcome('complete') },
  },
});

/** The type of {@link tickMachine}. */
export type TickMachine = typeof tickMachine;
