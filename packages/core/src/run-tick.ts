import * as E from 'fp-ts/lib/Either.js';
import type { TaskEither } from 'fp-ts/lib/TaskEither.js';
import { createActor, fromPromise, toPromise } from 'xstate';
import type { Environment } from './config/environment.js';
import { parseTickConfig } from './config/parse-config.js';
import { type ConfigError, describeConfigError, type TickConfig } from './config/tick-config.js';
import type { WorkloadChange } from './domain/plan.js';
import { describePortError, isPortError, timeout } from './domain/port-error.js';
import type { WorkloadRef } from './domain/workloads.js';
import { driveTick, type PortAnswer } from './machine/drive-tick.js';
import { kubernetesEventsFor } from './machine/kubernetes-events.js';
import { type PortBounds, portBounds } from './machine/port-bounds.js';
import type { TickEvent } from './machine/tick-event.js';
import { tickMachine } from './machine/tick-machine.js';
import type { AnnotationWrite, TickOutcome } from './machine/tick-outcome.js';
import type { ClusterPort } from './ports/cluster-port.js';
import type { EventsPort } from './ports/events-port.js';
import type { DigestRequest, RegistryPort } from './ports/registry-port.js';

/**
 * Everything a tick talks to. The tick does no I/O of its own (I20): these
 * ports are its only way to read or change the world. Build them with
 * `@image-refresh/k8s-adapter`, with `simPorts` from `@image-refresh/core/sim`,
 * or implement {@link ClusterPort} and {@link RegistryPort} yourself.
 */
export interface TickPorts {
  /** The jobs-manager Deployment's bookkeeping and the three workloads. */
  readonly cluster: ClusterPort;
  /** Where floating tags are resolved to digests. */
  readonly registry: RegistryPort;
  /** Where findings are also recorded as Kubernetes Events; optional, and never able to change the outcome. */
  readonly events?: EventsPort;
}

/**
 * The timers the tick's backstop uses (I17: whatever a port does, its call
 * ends once its bound has passed); the platform's `setTimeout` by default.
 * Inject fake ones to test a port that never answers without waiting.
 */
export interface Timers {
  readonly setTimeout: (callback: () => void, ms: number) => unknown;
  readonly clearTimeout: (handle: unknown) => void;
}

/** How to run a tick; every field is optional. */
export interface TickOptions {
  /** Timers for the per-call backstop; the platform's by default. */
  readonly timers?: Timers;
  /** Called with each event as the tick emits it (the outcome has them all, at the end). */
  readonly onEvent?: (event: TickEvent) => void;
}

const platformTimers = (): Timers => {
  const g = globalThis as unknown as Timers;
  return { setTimeout: (cb, ms) => g.setTimeout(cb, ms), clearTimeout: (h) => g.clearTimeout(h) };
};

/**
 * A backstop under the adapters' own per-request timeouts (I17): whatever a
 * port does — even never answer — its call ends as a Timeout once the bound
 * has passed. The adapter's own timeout fires first and names the request;
 * this catches a port that forgot to. A port that throws is failed, not fatal.
 */
const bounded = <A>(
  timers: Timers,
  boundMs: number,
  operation: string,
  te: TaskEither<unknown, A>,
): Promise<E.Either<unknown, A>> =>
  new Promise((resolve) => {
    const timer = timers.setTimeout(
      () => resolve(E.left(timeout(`${operation} gave no answer within ${boundMs} ms (the tick's own bound)`))),
      boundMs,
    );
    const finish = (result: E.Either<unknown, A>) => {
      timers.clearTimeout(timer);
      resolve(result);
    };
    let started: Promise<E.Either<unknown, A>>;
    try {
      started = te();
    } catch (defect) {
      started = Promise.resolve(E.left(defect));
    }
    started.then(finish, (defect: unknown) => finish(E.left(defect)));
  });

/** What each named actor of the machine means in port calls, with its bound. */
const portCalls = (ports: TickPorts, bounds: PortBounds) => {
  const { cluster, registry } = ports;
  return {
    // The guard's read may watch the settle window; a bookkeeping read is one request.
    readJobsManager: (input: { settleWithinMs: number }) =>
      [
        input.settleWithinMs > 0 ? bounds.observeMs : bounds.apiMs,
        cluster.readJobsManager(input.settleWithinMs),
      ] as const,
    patchBookkeeping: (input: { write: AnnotationWrite }) => {
      // The write the machine reports is the object the port was handed (issue 12).
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
    observeWorkload: (input: { workload: WorkloadRef }) =>
      [bounds.observeMs, cluster.observeWorkload(input.workload)] as const,
  } satisfies Record<keyof typeof tickMachine.implementations.actors, unknown>;
};

const callPort = (
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

/**
 * The machine with every named actor bound to its port call, for running it
 * as an xstate actor (inspection, a UI, your own interpreter). runTick does the
 * same without spawning actors; a test holds the two to the same outcomes.
 */
export const provideTickPorts = (ports: TickPorts, config: TickConfig, timers: Timers = platformTimers()) => {
  const calls = portCalls(ports, portBounds(config));
  const actor = (src: string) =>
    fromPromise(({ input }: { input: unknown }) =>
      callPort(calls, timers, src, input).then((r) => (E.isRight(r) ? r.right : Promise.reject(r.left))),
    );
  const actors = Object.fromEntries(Object.keys(calls).map((src) => [src, actor(src)]));
  return tickMachine.provide({ actors: actors as never });
};

/** Run the machine as a started xstate actor with provided port actors. */
export const runTickAsActor = async (
  config: TickConfig,
  ports: TickPorts,
  options: TickOptions = {},
): Promise<TickOutcome> => {
  const outcome = await toPromise(
    createActor(provideTickPorts(ports, config, options.timers), { input: config }).start(),
  );
  return afterTheTick(outcome, config, ports, options);
};

/**
 * Run one tick to completion (SPEC §3): mirror guard, settled guard and skip
 * streak, resolve, compare, flap back-off, re-image and wait, success reset,
 * record — asking the ports for everything.
 *
 * Promises: same port answers in, same outcome out (I20); the returned
 * promise always settles, because every port call is bounded by the config's
 * timeouts plus a grace (I17) — a port that hangs ends as a `Timeout`, a port
 * that throws or rejects is a failed call, never an exception out of here.
 * Port failures never reject: they become the outcome (`exitCode` 1 with a
 * finding, or 0 with a WARN where SPEC §3 says the tick goes on). Findings and
 * warnings are then recorded through `ports.events` when present and
 * `config.kubernetesEvents` is on; a failed Event is a WARN and changes
 * nothing else (I18b).
 *
 * @param config - a parsed configuration ({@link parseTickConfig}).
 * @param ports - the world the tick acts on.
 * @param options - timers, and a callback that sees each event as it happens.
 * @returns the outcome: result, exit code (I18), events, writes, re-images.
 */
export const runTick = async (
  config: TickConfig,
  ports: TickPorts,
  options: TickOptions = {},
): Promise<TickOutcome> => {
  const calls = portCalls(ports, portBounds(config));
  const timers = options.timers ?? platformTimers();
  const outcome = await driveTick(
    config,
    (src, input) =>
      callPort(calls, timers, src, input).then(
        (r): PortAnswer => (E.isRight(r) ? { ok: true, value: r.right } : { ok: false, error: r.left }),
      ),
    options.onEvent,
  );
  return afterTheTick(outcome, config, ports, options);
};

const afterTheTick = (outcome: TickOutcome, config: TickConfig, ports: TickPorts, options: TickOptions) =>
  ports.events === undefined || !config.kubernetesEvents
    ? outcome
    : publishKubernetesEvents(
        outcome,
        ports.events,
        portBounds(config).apiMs,
        options.timers ?? platformTimers(),
        options.onEvent,
      );

/**
 * After the tick has decided, record its findings as Kubernetes Events. An
 * Event that cannot be written is a WARN line — the outcome's result, exit
 * code, findings and writes stay exactly as the tick left them (I18b).
 */
const publishKubernetesEvents = async (
  outcome: TickOutcome,
  port: EventsPort,
  boundMs: number,
  timers: Timers,
  onEvent: ((event: TickEvent) => void) | undefined,
): Promise<TickOutcome> => {
  const warnings: TickEvent[] = [];
  for (const kubeEvent of kubernetesEventsFor(outcome)) {
    const recorded = await bounded(timers, boundMs, 'recordEvent', port.record(kubeEvent));
    if (E.isRight(recorded)) continue;
    const cause = isPortError(recorded.left) ? describePortError(recorded.left) : String(recorded.left);
    const warning: TickEvent = {
      level: 'warn',
      code: 'EVENT_NOT_RECORDED',
      message: `WARN: could not record the Kubernetes Event ${kubeEvent.reason} (${cause}); the tick's outcome is unchanged`,
    };
    warnings.push(warning);
    onEvent?.(warning);
  }
  return warnings.length === 0 ? outcome : { ...outcome, events: [...outcome.events, ...warnings] };
};

const configInvalid = (errors: readonly ConfigError[]): TickOutcome => {
  const events: TickEvent[] = errors.map((e) => ({
    level: 'error',
    code: 'CONFIG_INVALID',
    message: `ERROR: configuration: ${describeConfigError(e)}`,
  }));
  return {
    result: 'configInvalid',
    exitCode: 2,
    events,
    findings: events,
    writes: [],
    reimages: [],
    digestChanges: [],
  };
};

/**
 * Parse the chart's environment ({@link parseTickConfig}) and run a tick
 * ({@link runTick}) — what the CronJob does. A malformed environment ends
 * with `result: 'configInvalid'`, exit 2 and one `CONFIG_INVALID` finding per
 * problem, before `makePorts` is even called: no API call, no registry call
 * (SPEC §2, I18).
 *
 * @param env - the environment, e.g. `process.env`.
 * @param makePorts - builds the ports from the parsed config; called at most once.
 * @param options - as for {@link runTick}.
 */
export const runTickFromEnvironment = (
  env: Environment,
  makePorts: (config: TickConfig) => TickPorts,
  options: TickOptions = {},
): Promise<TickOutcome> =>
  E.match(
    (errors: readonly ConfigError[]) => Promise.resolve(configInvalid(errors)),
    (config: TickConfig) => runTick(config, makePorts(config), options),
  )(parseTickConfig(env));
