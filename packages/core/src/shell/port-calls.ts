import * as E from 'fp-ts/lib/Either.js';
import type { TaskEither } from 'fp-ts/lib/TaskEither.js';
import * as TE from 'fp-ts/lib/TaskEither.js';
import type { WorkloadChange } from '../domain/plan.js';
import { transport } from '../domain/port-error.js';
import type { WorkloadRef } from '../domain/workloads.js';
import { BACKSTOP_GRACE_MS, type PortBounds } from '../machine/port-bounds.js';
import type { tickMachine } from '../machine/tick-machine.js';
import type { AnnotationWrite } from '../machine/tick-outcome.js';
import type { KubeEvent } from '../ports/events-port.js';
import type { FleetHaltTarget } from '../ports/fleet-halt-port.js';
import type { PlatformTarget } from '../ports/platform-port.js';
import type { DigestRequest } from '../ports/registry-port.js';
import type { SignatureTarget } from '../ports/signature-port.js';
import type { StagingRequest } from '../ports/staging-port.js';
import { bounded } from './backstop.js';
import { readEachWorkload } from './read-each-workload.js';
import { NO_STAGING_PORT, readPlatformsOfEach } from './staging-calls.js';
import type { TickPorts, Timers } from './tick-ports.js';
import { verifyEach } from './verify-each.js';

// The table from each named actor of the machine to the port call it stands
// for, and the bounded dispatch of one invocation through it.

/** What each named actor of the machine means in port calls, with its bound. */
export const portCalls = (ports: TickPorts, bounds: PortBounds) => {
  const { cluster, registry, clock } = ports;
  // No clock port is a failed call, which the machine takes fail-closed (docs/behaviour.md §3.4a, The clock port).
  const noClock = TE.left(transport('this tick was given no clock port (TickPorts.clock)'));
  return {
    // The guard's read may watch the settle window; a bookkeeping read is one request.
    readGate: (input: { settleWithinMs: number }) =>
      [input.settleWithinMs > 0 ? bounds.observeMs : bounds.apiMs, cluster.readGate(input.settleWithinMs)] as const,
    patchBookkeeping: (input: { write: AnnotationWrite }) => {
      // The write the machine reports is the object the port was handed.
      const sent = cluster.patchBookkeeping(input.write.annotations);
      return [bounds.apiMs, () => sent().then(E.map(() => input.write))] as const;
    },
    resolveDigests: (input: { requests: readonly DigestRequest[] }) => {
      const task = registry.resolveDigests(input.requests);
      return [bounds.resolveMs(input.requests.length), () => task().then(E.right)] as const;
    },
    setImages: (input: { change: WorkloadChange }) =>
      [bounds.apiMs, cluster.setImages(input.change.workload, input.change.images)] as const,
    waitForRollout: (input: { change: WorkloadChange; timeoutMs: number }) =>
      [bounds.rolloutMs, cluster.waitForRollout(input.change.workload, input.timeoutMs)] as const,
    watchStability: (input: { change: WorkloadChange; stableForMs: number }) =>
      [
        bounds.stabilityMs,
        cluster.watchStability === undefined
          ? TE.left(transport('this ClusterPort has no watchStability, which ROLLOUT_STABLE_FOR above 0s needs'))
          : cluster.watchStability(input.change.workload, input.stableForMs),
      ] as const,
    // A read the settle window may stretch.
    observeWorkload: (input: { workload: WorkloadRef; settleWithinMs?: number }) =>
      [bounds.observeMs, cluster.observeWorkload(input.workload, input.settleWithinMs)] as const,
    // One request each, all at once: one request's bound.
    observeOwnedWorkloads: (input: { workloads: readonly WorkloadRef[] }) =>
      [bounds.apiMs, readEachWorkload(cluster, input.workloads)] as const,
    verifySignatures: (input: { targets: readonly SignatureTarget[] }) =>
      [bounds.verifyMs(input.targets.length), verifyEach(ports.signatures, input.targets)] as const,
    // FLEET_HALT_REF: a registry failure is the answer (a Left inside), as a resolve's is.
    readFleetHalt: (input: { target: FleetHaltTarget }) => {
      const port = ports.fleetHalt;
      return [
        bounds.haltReadMs,
        port === undefined
          ? TE.left(transport('this tick was given no fleet halt port (TickPorts.fleetHalt)'))
          : () => port.readDocument(input.target)().then(E.right),
      ] as const;
    },
    // FLEET_PROMOTION_REF (docs/fleet-promotion.md): read as the halt is, with its bound.
    readFleetPromotion: (input: { target: FleetHaltTarget }) => {
      const port = ports.fleetPromotion;
      return [
        bounds.haltReadMs,
        port === undefined
          ? TE.left(transport('this tick was given no fleet promotion port (TickPorts.fleetPromotion)'))
          : () => port.readDocument(input.target)().then(E.right),
      ] as const;
    },
    readClock: () => [bounds.apiMs, clock === undefined ? noClock : clock.now()] as const,
    // The wait's own length, plus the grace every bound has (I17).
    waitStartJitter: (input: { delayMs: number }) =>
      [input.delayMs + BACKSTOP_GRACE_MS, clock === undefined ? noClock : clock.sleep(input.delayMs)] as const,
    // Stage, then switch (docs/behaviour.md §3.4a step 4, §3.5a); never called with both switches off.
    readPlatforms: (input: { targets: readonly PlatformTarget[] }) =>
      [bounds.platformMs(input.targets.length), readPlatformsOfEach(ports.platforms, input.targets)] as const,
    // No events port: nothing to record, as after the tick (publish-events.ts).
    recordStagingEvent: (input: { event: KubeEvent }) =>
      [bounds.apiMs, ports.events === undefined ? TE.right(undefined) : ports.events.record(input.event)] as const,
    stageImages: (input: { request: StagingRequest }) =>
      [
        bounds.stagingMs,
        ports.staging === undefined ? TE.left(transport(NO_STAGING_PORT)) : ports.staging.stage(input.request),
      ] as const,
  } satisfies Record<keyof typeof tickMachine.implementations.actors, unknown>;
};

export const callPort = (
  calls: ReturnType<typeof portCalls>,
  timers: Timers,
  src: string,
  input: unknown,
): Promise<E.Either<unknown, unknown>> => {
  const call = (
    calls as unknown as Record<
      string,
      ((input: unknown) => readonly [number, TaskEither<unknown, unknown>]) | undefined
    >
  )[src];
  if (call === undefined) return Promise.resolve(E.left(new Error(`no port call behind actor ${src}`)));
  let prepared: readonly [number, TaskEither<unknown, unknown>];
  try {
    prepared = call(input);
  } catch (defect) {
    // A port that throws while building its call has failed that call.
    return Promise.resolve(E.left(defect));
  }
  const [boundMs, te] = prepared;
  return bounded(timers, boundMs, src, te);
};
