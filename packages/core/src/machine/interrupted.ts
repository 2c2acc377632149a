import * as O from 'fp-ts/lib/Option.js';
import type { TickConfig } from '../config/tick-config.js';
import type { WorkloadChange } from '../domain/plan.js';
import type { Reimage } from '../domain/reimage-run.js';
import type { Settledness } from '../domain/settledness.js';
import { describeWorkload, type WorkloadRef } from '../domain/workloads.js';
import type { TickContext } from './tick-context.js';
import type { TickEvent } from './tick-event.js';
import { isFinding } from './tick-event.js';
import type { AnnotationWrite, TickOutcome, WriteKind } from './tick-outcome.js';

// A tick stopped by a signal (docs/behaviour.md §3, Signals): SIGTERM at the Job's
// activeDeadlineSeconds, on a node drain or an eviction; SIGINT at a
// terminal. The driver starts no port call once the tick's signal has
// aborted; this turns where the tick was into its outcome and the one line an
// operator reads. Pure: the bookkeeping it names is what the tick's own
// writes left (I18's extension: exit 143 for SIGTERM, 130 for SIGINT).

/** The reason a tick's signal is aborted with: which signal stopped it. */
export interface TickInterrupt {
  readonly _tag: 'TickInterrupt';
  readonly signal: 'SIGTERM' | 'SIGINT';
}

/** The part of an AbortSignal the tick reads (core names no platform type: I20). */
export interface TickSignal {
  readonly aborted: boolean;
  readonly reason?: unknown;
}

/**
 * The reason to abort a tick's signal with (`TickOptions.signal`): the tick
 * then ends `interrupted`, exit 143 for SIGTERM and 130 for SIGINT.
 *
 * @param signal - the signal the process received.
 */
export const interruptedBy = (signal: TickInterrupt['signal']): TickInterrupt => ({ _tag: 'TickInterrupt', signal });

/** The conventional exit of a process stopped by a signal: 128 + its number. */
export const INTERRUPTED_EXIT = { SIGTERM: 143, SIGINT: 130 } as const;

/** Where the tick was: the port call about to start, or in flight when the signal came. */
export interface InterruptPoint {
  readonly src: string;
  readonly input: unknown;
  readonly phase: 'before' | 'during' | 'after';
}

/** The port calls that change the world; one already sent is awaited, and its answer kept. */
const WRITES = new Set(['patchBookkeeping', 'setImages']);

export const isWrite = (src: string): boolean => WRITES.has(src);

const signalOf = (reason: unknown): TickInterrupt['signal'] =>
  typeof reason === 'object' && reason !== null && (reason as TickInterrupt)._tag === 'TickInterrupt'
    ? (reason as TickInterrupt).signal
    : // Any other abort stops the tick just the same; SIGTERM is what a Job sends.
      'SIGTERM';

const workloadOf = (input: unknown): WorkloadRef | undefined =>
  (input as { change?: WorkloadChange } | undefined)?.change?.workload ??
  (input as { workload?: WorkloadRef } | undefined)?.workload;

/** The workloads the ownership check's one read asked for, as a line names them ("the workloads" without its input). */
const workloadsOf = (input: unknown): string => {
  const workloads = (input as { workloads?: readonly WorkloadRef[] } | undefined)?.workloads ?? [];
  return workloads.length === 0 ? 'the workloads' : workloads.map(describeWorkload).join(', ');
};

/** What an interrupted tick's outcome is made of: the part of the machine's context it reads. */
export interface InterruptedContext {
  readonly config: TickConfig;
  readonly settledness: O.Option<Settledness>;
  /** refresh-attempt as read this tick (0 until the flap back-off read it). */
  readonly attempt: number;
  readonly events: readonly TickEvent[];
  readonly writes: readonly AnnotationWrite[];
  readonly reimages: readonly Reimage[];
  /** ON_ROLLOUT_FAILURE=revert: a rollback had begun (its set images and waits are the way back's). */
  readonly rollingBack: boolean;
}

/** The machine's context as an interrupted outcome reads it. */
export const interruptedView = (context: TickContext): InterruptedContext => ({
  config: context.config,
  settledness: O.fromNullable(context.observe.settledness),
  attempt: context.act.attempt,
  events: context.events,
  writes: context.writes,
  reimages: context.act.reimages,
  rollingBack: context.wayBack.begun,
});

/** The gate, as kubectl names it. */
const gateOf = (context: InterruptedContext): string => describeWorkload(context.config.topology.gate);

/** The settled guard's read watches the settle window; a bookkeeping read of the same object does not. */
const isSettledGuardRead = (point: InterruptPoint): boolean =>
  point.src === 'readGate' && ((point.input as { settleWithinMs?: number } | undefined)?.settleWithinMs ?? 0) > 0;

/** The bookkeeping write a patchBookkeeping call carries (the machine names each, e.g. writeSkipStreak). */
const writeKindOf = (input: unknown): WriteKind | undefined =>
  (input as { write?: AnnotationWrite } | undefined)?.write?.kind;

/** A bookkeeping write in the annotations' words, as an operator reads the line. */
const WRITE_WORDS: Readonly<Record<WriteKind, string>> = {
  writeSkipStreak: 'writing refresh-skip-streak',
  clearSkipStreak: 'clearing refresh-skip-streak',
  writeRefreshAttempt: 'writing refresh-attempt',
  markFlapDetected: 'writing refresh-flap-detected',
  clearFlapState: 'clearing refresh-attempt and refresh-flap-detected',
  recordDigests: 'recording the digests',
  quarantineDigests: 'writing the quarantine of the failed digest',
  writePendingDigests: 'writing the pending digests',
  recordFleetHalt: 'recording the verified fleet halt',
  liftFleetHalt: 'removing the record of the lifted fleet halt',
  recordFleetPromotion: 'recording the verified fleet promotion',
  withdrawFleetPromotion: 'removing the record of the withdrawn fleet promotion',
  writeResolveFailureStreak: 'writing refresh-resolve-failure-streak',
  clearResolveFailureStreak: 'clearing refresh-resolve-failure-streak',
  recordTopologyFingerprint: 'recording the topology fingerprint',
};

/** `before …` a call that never started, `while …` one cut short, `after …` a write that landed last. */
const PHASE_WORD: Readonly<Record<InterruptPoint['phase'], string>> = {
  before: 'before',
  during: 'while',
  after: 'after',
};

const whereOf = (point: InterruptPoint, context: InterruptedContext): string => {
  const workload = workloadOf(point.input);
  const named = workload === undefined ? 'a workload' : describeWorkload(workload);
  const when = PHASE_WORD[point.phase];
  if (isSettledGuardRead(point)) {
    return point.phase === 'during'
      ? `while the settled guard waited for ${gateOf(context)}`
      : `before the settled guard read ${gateOf(context)}`;
  }
  switch (point.src) {
    case 'readGate':
      return `${when} reading the bookkeeping of ${gateOf(context)}`;
    case 'patchBookkeeping': {
      const kind = writeKindOf(point.input);
      return `${when} ${kind === undefined ? 'a bookkeeping write' : WRITE_WORDS[kind]}`;
    }
    case 'waitForRollout':
      return `${when} waiting for ${named}`;
    case 'watchStability':
      return `${when} watching ${named} stay complete (ROLLOUT_STABLE_FOR)`;
    case 'setImages':
      return point.phase === 'before' ? `before set image ${named}` : `${when} setting the image of ${named}`;
    case 'observeWorkload':
      return `${when} reading ${named}`;
    case 'observeOwnedWorkloads':
      return `${when} reading ${workloadsOf(point.input)} for the ownership check (nothing was set)`;
    case 'resolveDigests':
      return `${when} resolving digests from the registry`;
    case 'verifySignatures':
      return `${when} checking signatures of new digests (nothing of them was acted on)`;
    case 'waitStartJitter':
      return `${when} waiting START_JITTER before the registry`;
    case 'readClock':
      return `${when} reading the clock`;
    case 'readFleetHalt':
      return `${when} reading the fleet halt (nothing of it was acted on)`;
    case 'readFleetPromotion':
      return `${when} reading the fleet promotion (nothing of it was acted on)`;
    case 'readPlatforms':
      return `${when} reading the platforms of new digests (nothing of them was acted on)`;
    case 'recordStagingEvent':
      return `${when} recording the RefreshStaging Event (nothing was switched)`;
    case 'stageImages':
      return `${when} staging the new images on their nodes (no pod was switched)`;
    default:
      return `${when} ${point.src}`;
  }
};

/** The calls of a re-image (or of its rollback): a signal there may leave a workload half-rolled. */
const ROLLOUT_CALLS = new Set(['setImages', 'waitForRollout', 'watchStability']);

/** refresh-attempt as the tick left it: what it wrote, else what it read (0 until the flap back-off read it). */
const attemptLeft = (context: InterruptedContext): number => {
  const written = [...context.writes].reverse().find((w) => w.kind === 'writeRefreshAttempt');
  const value = written?.annotations[context.config.topology.keys.refreshAttempt];
  return value === undefined || value === null ? context.attempt : Number(value);
};

/**
 * ON_ROLLOUT_FAILURE=revert (docs/behaviour.md §3.6, Signals): a signal during
 * a re-image's set image, rollout wait or stability window rolls nothing
 * back — a rollout cut short is not a rollout that failed, and no new call
 * starts — so the line says so, and what the next tick will do with the
 * build it leaves half-rolled. Cut short during the rollback itself: that
 * the rollback is unfinished and nothing was quarantined.
 */
const wayBackOf = (point: InterruptPoint, context: InterruptedContext): string => {
  const { config } = context;
  if (config.onRolloutFailure !== 'revert' || !ROLLOUT_CALLS.has(point.src)) return '';
  if (context.rollingBack) {
    return '; the rollback to the recorded digests was cut short and nothing was quarantined: the next tick tries the failed build again as a new attempt and rolls it back again if it fails';
  }
  const attempt = attemptLeft(context);
  const max = config.maxRefreshAttempts;
  const next =
    attempt >= max
      ? `the next tick finds refresh-attempt at MAX_REFRESH_ATTEMPTS=${max}: FLAP DETECTED, no retry and no rollback (image-refresh rearm once the build is fixed)`
      : `the next tick retries this build as attempt ${attempt + 1}/${max} once ${gateOf(context)} is settled, and rolls it back if its rollout fails`;
  return `; no rollback was made (ON_ROLLOUT_FAILURE=revert rolls back a rollout that failed, and this one was cut short): ${next}`;
};

/** What the tick's own writes left behind, in the annotations' words. */
const bookkeepingOf = (point: InterruptPoint, context: InterruptedContext): string => {
  const last = (kind: WriteKind) => [...context.writes].reverse().find((w) => w.kind === kind);
  const streakKey = context.config.topology.keys.skipStreak.split('/')[1];
  const counted = last('writeSkipStreak');
  const skip =
    counted === undefined
      ? 'the skip was not counted'
      : `the skip was counted (${streakKey}=${counted.annotations[context.config.topology.keys.skipStreak]})`;
  // On an unsettled tick the skip streak is read, then written: the skip's own bookkeeping.
  const unsettled = context.settledness._tag === 'Some' && context.settledness.value._tag !== 'Settled';
  const guardOnly =
    isSettledGuardRead(point) || (unsettled && (counted === undefined || !context.config.decoupledRefresh));
  if (guardOnly) return counted === undefined ? `${skip}, nothing was written` : skip;
  const attemptKey = context.config.topology.keys.refreshAttempt.split('/')[1];
  const persisted = last('writeRefreshAttempt')?.annotations[context.config.topology.keys.refreshAttempt];
  // context.attempt is 0 until the flap back-off has read the counter: "unchanged" then, never a guessed 0.
  const attempt =
    last('clearFlapState') !== undefined
      ? `${attemptKey} cleared`
      : persisted !== undefined && persisted !== null
        ? `${attemptKey}=${persisted} stays`
        : context.attempt > 0
          ? `${attemptKey}=${context.attempt} stays`
          : `${attemptKey} unchanged`;
  const digests = last('recordDigests') === undefined ? 'digests not recorded' : 'digests recorded';
  // A decoupled pass goes on past a counted skip: say both.
  return `${unsettled ? `${skip}, ` : ''}${attempt}, ${digests}`;
};

/**
 * The outcome of a tick its signal stopped at `point`: everything it said and
 * wrote so far, one INTERRUPTED line (level warn: an interruption is not a
 * finding; its exit code says it), result `interrupted`, exit 143 or 130.
 */
export const interruptedOutcome = (
  context: InterruptedContext,
  point: InterruptPoint,
  reason: unknown,
): TickOutcome => {
  const signal = signalOf(reason);
  const line: TickEvent = {
    level: 'warn',
    code: 'INTERRUPTED',
    message: `interrupted by ${signal} ${whereOf(point, context)}: ${bookkeepingOf(point, context)}${wayBackOf(point, context)}`,
  };
  const events = [...context.events, line];
  return {
    result: 'interrupted',
    exitCode: INTERRUPTED_EXIT[signal],
    ...(context.settledness._tag === 'Some' ? { settledness: context.settledness.value } : {}),
    events,
    findings: events.filter(isFinding),
    writes: context.writes,
    reimages: context.reimages,
    digestChanges: [],
  };
};

/**
 * The outcome of a tick that ended on its own, stopped by a signal before its
 * summary — while the shell still pushed its metrics or recorded its Events
 * (docs/behaviour.md §3, Signals). The first signal wins there too: result
 * `interrupted`, exit 143 or 130, one INTERRUPTED line saying the tick had
 * ended and what it ended with; its events, findings, writes and re-images
 * stay the tick's own (every write it made stands).
 *
 * @param outcome - how the tick ended before the signal.
 * @param reason - the tick's signal's reason ({@link interruptedBy}).
 * @param during - what the shell was doing, in an operator's words: `while pushing …`.
 */
export const interruptedAfterTheTick = (outcome: TickOutcome, reason: unknown, during: string): TickOutcome => {
  if (outcome.result === 'interrupted' || outcome.result === 'configInvalid') return outcome;
  const signal = signalOf(reason);
  const line: TickEvent = {
    level: 'warn',
    code: 'INTERRUPTED',
    message: `interrupted by ${signal} ${during}: the tick had already ended ${outcome.result} (exit ${outcome.exitCode}); what it wrote stands`,
  };
  return { ...outcome, result: 'interrupted', exitCode: INTERRUPTED_EXIT[signal], events: [...outcome.events, line] };
};
