import type { Either } from 'fp-ts/lib/Either.js';
import { fromPromise } from 'xstate';
import type { WorkloadChange } from '../domain/plan.js';
import type { PlatformAnswer, PlatformTarget } from '../domain/platforms.js';
import { isPortError, type PortError, type RegistryError, transport } from '../domain/port-error.js';
import type { StagingRequest, StagingResult } from '../domain/staging.js';
import type { LiveWorkload, WorkloadRef } from '../domain/workloads.js';
import type { GateSnapshot, RolloutError } from '../ports/cluster-port.js';
import type { KubeEvent } from '../ports/events-port.js';
import type { FleetHaltDocument, FleetHaltTarget } from '../ports/fleet-halt-port.js';
import type { DigestRequest, Resolution } from '../ports/registry-port.js';
import type { SignatureTarget, SignatureVerdict } from '../ports/signature-port.js';
import type { AnnotationWrite } from './tick-outcome.js';

// The tick's named actors, one per port call. They are typed placeholders:
// runTick never starts them — it folds the machine with xstate's pure step
// functions and runs the port call behind each invoked actor's name itself
// (drive-tick.ts); provideTickPorts binds them with `machine.provide({ actors })`
// for those who run the machine as an xstate actor.

export type ResolveAnswers = readonly Either<RegistryError, Resolution>[];
/** One answer per signature target, in request order (VERIFY_SIGNATURES, docs/behaviour.md §3.4a step 3). */
export type SignatureAnswers = readonly Either<RegistryError, SignatureVerdict>[];
/** One answer per workload, in request order (the ownership check, docs/behaviour.md §3.4c). */
export type OwnedWorkloadAnswers = readonly Either<PortError, LiveWorkload>[];
/** One answer per platform target, in request order (PLATFORM_CHECK, docs/behaviour.md §3.4a step 4). */
export type PlatformAnswers = readonly Either<RegistryError, PlatformAnswer>[];

const unprovided = (name: string) => () => Promise.reject(new Error(`actor ${name} was not provided`));

export const tickActors = {
  /** Every read of the gate: the guard's (within the settle window) and the bookkeeping's. */
  readGate: fromPromise<GateSnapshot, { settleWithinMs: number }>(unprovided('readGate')),
  /** Every bookkeeping write: hands `write.annotations` to the port and answers the write it sent. */
  patchBookkeeping: fromPromise<AnnotationWrite, { write: AnnotationWrite }>(unprovided('patchBookkeeping')),
  resolveDigests: fromPromise<ResolveAnswers, { requests: readonly DigestRequest[] }>(unprovided('resolveDigests')),
  setImages: fromPromise<{ readonly changed: boolean }, { change: WorkloadChange }>(unprovided('setImages')),
  waitForRollout: fromPromise<void, { change: WorkloadChange; timeoutMs: number }>(unprovided('waitForRollout')),
  /** ROLLOUT_STABLE_FOR (§3.6): the completed workload must stay complete for the window. */
  watchStability: fromPromise<void, { change: WorkloadChange; stableForMs: number }>(unprovided('watchStability')),
  /** A workload as it runs now, watched for the settle window (the decoupled and live passes). */
  observeWorkload: fromPromise<LiveWorkload, { workload: WorkloadRef; settleWithinMs?: number }>(
    unprovided('observeWorkload'),
  ),
  /** The ownership check (docs/behaviour.md §3.4c): each workload it needs read once, all at once. */
  observeOwnedWorkloads: fromPromise<OwnedWorkloadAnswers, { workloads: readonly WorkloadRef[] }>(
    unprovided('observeOwnedWorkloads'),
  ),
  /** VERIFY_SIGNATURES ≠ off: one signature check per digest, in order. */
  verifySignatures: fromPromise<SignatureAnswers, { targets: readonly SignatureTarget[] }>(
    unprovided('verifySignatures'),
  ),
  /** FLEET_HALT_REF (docs/behaviour.md §3.4b): the document a halt digest names; a registry failure is the answer's Left. */
  readFleetHalt: fromPromise<Either<RegistryError, FleetHaltDocument>, { target: FleetHaltTarget }>(
    unprovided('readFleetHalt'),
  ),
  /** FLEET_PROMOTION_REF (docs/fleet-promotion.md): the document a promotion digest names; a registry failure is the answer's Left. */
  readFleetPromotion: fromPromise<Either<RegistryError, FleetHaltDocument>, { target: FleetHaltTarget }>(
    unprovided('readFleetPromotion'),
  ),
  /** The wall clock, ms since the epoch: time enters the machine here only (I20). */
  readClock: fromPromise<number, undefined>(unprovided('readClock')),
  /** START_JITTER's wait (§3.3); the port ends it early when the tick is interrupted. */
  waitStartJitter: fromPromise<void, { delayMs: number }>(unprovided('waitStartJitter')),
  /** PLATFORM_CHECK=on: the platforms of each changed digest and of the recorded one, in order. */
  readPlatforms: fromPromise<PlatformAnswers, { targets: readonly PlatformTarget[] }>(unprovided('readPlatforms')),
  /** PREPULL=on: the RefreshStaging Event, recorded as staging starts (it can change nothing, I18b). */
  recordStagingEvent: fromPromise<void, { event: KubeEvent }>(unprovided('recordStagingEvent')),
  /** PREPULL=on: every workload of the plan staged on its nodes, one result per target. */
  stageImages: fromPromise<readonly StagingResult[], { request: StagingRequest }>(unprovided('stageImages')),
};

/** Port failures reach the machine as actor errors; anything else is a defect of the port, still a failure. */
export const portErrorOf = (event: { error: unknown }): PortError =>
  isPortError(event.error) ? event.error : transport(`unexpected failure: ${String(event.error)}`);

export const rolloutErrorOf = (event: { error: unknown }): RolloutError => {
  const e = event.error as { _tag?: unknown; message?: unknown } | null;
  return typeof e === 'object' &&
    e !== null &&
    (e._tag === 'RolloutFailed' || e._tag === 'RolloutTimedOut') &&
    typeof e.message === 'string'
    ? { _tag: e._tag, message: e.message }
    : portErrorOf(event);
};
