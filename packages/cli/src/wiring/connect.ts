import { type ClusterPort, type Environment, type PortError, type TickConfig, transport } from '@image-refresh/core';
import {
  createClusterPort,
  createEventsPort,
  createFleetHaltReader,
  createFleetPromotionReader,
  createPlatformReader,
  createRegistryPort,
  createStagingPort,
  describeBudget,
  endpointOf,
  inspectWorkload,
  loadClusterConfig,
  perHost,
  routedFleetHaltPort,
  routedPlatformPort,
  routedRegistryPort,
} from '@image-refresh/k8s-adapter';
import * as E from 'fp-ts/lib/Either.js';
import * as TE from 'fp-ts/lib/TaskEither.js';
import type { Connect, ConnectionHooks } from '../connection.js';
import type { RegistryAccess } from './registry-access.js';
import { registryHostsOf } from './registry-hosts.js';
import { systemClock } from './system-clock.js';

// The real world: the cluster through the k8s-adapter (in-cluster service
// account, else kubeconfig) and the registry named by the config. Credentials
// are looked up lazily, when a command first needs the cluster: behind a
// private mirror a tick never does, and must stay inert (I14) even where no
// credentials exist.

/** Every operation fails with the reason there is no cluster to talk to. */
const unreachableCluster = (reason: string): ClusterPort => {
  const fail = <A>(): TE.TaskEither<PortError, A> => TE.left(transport(reason));
  return {
    readGate: fail,
    patchBookkeeping: fail,
    setImages: fail,
    waitForRollout: fail,
    watchStability: fail,
    observeWorkload: fail,
  };
};

/**
 * The registry only reads: both the tick's end and its interruption end its
 * requests. Handed over as two signals, never one composed here: a composed
 * platform signal can be collected mid-request on Node 20 (boundedCall).
 */
const registrySignals = (hooks: ConnectionHooks): { signal?: AbortSignal; abortReads?: AbortSignal } => ({
  ...(hooks.signal === undefined ? {} : { signal: hooks.signal }),
  ...(hooks.interrupt === undefined ? {} : { abortReads: hooks.interrupt }),
});

export const connectToCluster =
  (env: Environment): Connect =>
  (config: TickConfig, registryAccess: RegistryAccess = {}) => {
    const loaded = loadClusterConfig(env);
    // Every registry reader of the tick authenticates and trusts alike: digests, signatures, the halt, platforms;
    // each asks the host the image (or the halt) lives on.
    const hosts = registryHostsOf(config, registryAccess);
    const { plainHttp: _listedInHosts, ...access } = registryAccess;
    const reach = (hooks: ConnectionHooks) => ({ ...registrySignals(hooks), ...access, hosts });
    const on = (host: string, hooks: ConnectionHooks) => ({
      ...endpointOf(hosts, host),
      timeoutMs: config.registryTimeoutMs,
      ...registrySignals(hooks),
      ...access,
    });
    return {
      source: E.isRight(loaded) ? loaded.right.source : `unavailable: ${loaded.left.message}`,
      reachable: E.isRight(loaded),
      ...(E.isLeft(loaded)
        ? {
            configProblem: { variable: 'KUBECONFIG', value: env.KUBECONFIG || undefined, problem: loaded.left.message },
          }
        : {}),
      ports: (hooks) => ({
        cluster: E.isRight(loaded)
          ? createClusterPort(loaded.right.kubeConfig, config, {
              onProgress: hooks.onProgress,
              ...(hooks.dryRun === true ? { dryRun: true } : {}),
              ...(hooks.signal === undefined ? {} : { signal: hooks.signal }),
              ...(hooks.interrupt === undefined ? {} : { abortReads: hooks.interrupt }),
            })
          : unreachableCluster(loaded.left.message),
        ...(E.isRight(loaded)
          ? {
              events: createEventsPort(loaded.right.kubeConfig, config, {
                reportingInstance: env.HOSTNAME ?? 'image-refresh',
                ...(hooks.signal === undefined ? {} : { signal: hooks.signal }),
              }),
            }
          : {}),
        registry: routedRegistryPort(
          perHost((host) =>
            createRegistryPort({
              ...on(host, hooks),
              onRateLimit: (budget) => hooks.onRateLimit(`registry budget: ${describeBudget(budget)}`),
            }),
          ),
        ),
        ...(hooks.signatureTrust === undefined ? {} : { signatures: hooks.signatureTrust.port(config, reach(hooks)) }),
        // docs/behaviour.md §3.4b: the halt's document, read only for a digest this edge has not verified.
        ...(config.fleetHalt === undefined
          ? {}
          : {
              fleetHalt: routedFleetHaltPort(perHost((host) => createFleetHaltReader({ registry: on(host, hooks) }))),
            }),
        // docs/fleet-promotion.md: the promotion's document, read as the halt's is (FLEET_PROMOTION_REF).
        ...(config.fleetPromotion === undefined
          ? {}
          : {
              fleetPromotion: routedFleetHaltPort(
                perHost((host) => createFleetPromotionReader({ registry: on(host, hooks) })),
              ),
            }),
        // MIN_DIGEST_AGE / ROLLOUT_RING read it, START_JITTER waits on it (docs/behaviour.md §3.4a step 2, §3.3).
        clock: systemClock([hooks.signal, hooks.interrupt]),
        // Stage, then switch (docs/behaviour.md §3.4a step 4, §3.5a): built only when switched on.
        ...(config.staging?.platformCheck === true
          ? {
              platforms: routedPlatformPort(perHost((host) => createPlatformReader({ registry: on(host, hooks) }))),
            }
          : {}),
        ...(config.staging?.prepull !== undefined && E.isRight(loaded)
          ? {
              staging: createStagingPort(loaded.right.kubeConfig, config, {
                onProgress: hooks.onProgress,
                ...(hooks.signal === undefined ? {} : { signal: hooks.signal }),
                ...(hooks.interrupt === undefined ? {} : { abortReads: hooks.interrupt }),
              }),
            }
          : {}),
      }),
      inspect: (ref) =>
        E.isRight(loaded)
          ? inspectWorkload(loaded.right.kubeConfig, ref, { apiTimeoutMs: config.apiTimeoutMs })()
          : Promise.resolve(E.left(transport(loaded.left.message))),
    };
  };
