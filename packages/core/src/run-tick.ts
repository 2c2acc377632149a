import * as E from 'fp-ts/lib/Either.js';
import type { Environment } from './config/environment.js';
import { parseTickConfig } from './config/parse-config.js';
import { type ConfigError, describeConfigError, type TickConfig } from './config/tick-config.js';
import { driveTick, type PortAnswer } from './machine/drive-tick.js';
import { portBounds } from './machine/port-bounds.js';
import type { TickEvent } from './machine/tick-event.js';
import type { TickOutcome } from './machine/tick-outcome.js';
import { platformTimers } from './shell/backstop.js';
import { callPort, portCalls } from './shell/port-calls.js';
import { afterTheTick } from './shell/publish-events.js';
import type { TickOptions, TickPorts } from './shell/tick-ports.js';

// Running a tick: the driver over the port table, then the Events. The parts
// live in shell/: the public types, the backstop, the actor → port table,
// the xstate-actor interpreter and the Event publishing.

export { provideTickPorts, runTickAsActor } from './shell/as-actor.js';
export type { TickOptions, TickPorts, Timers } from './shell/tick-ports.js';

/**
 * Run one tick to completion (docs/behaviour.md §3): mirror guard, settled guard and skip
 * streak, resolve, compare, flap back-off, re-image and wait, success reset,
 * record — asking the ports for everything.
 *
 * Promises: same port answers in, same outcome out (I20); the returned
 * promise always settles, because every port call is bounded by the config's
 * timeouts plus a grace (I17) — a port that hangs ends as a `Timeout`, a port
 * that throws or rejects is a failed call, never an exception out of here.
 * Port failures never reject: they become the outcome (`exitCode` 1 with a
 * finding, or 0 with a WARN where docs/behaviour.md §3 says the tick goes on). Findings and
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
    options.signal,
  );
  return afterTheTick(outcome, config, ports, options);
};

/**
 * The outcome of a tick refused for its configuration: `result:
 * 'configInvalid'`, exit 2, one `CONFIG_INVALID` finding per problem (each
 * naming its variable), nothing written, nothing called (docs/behaviour.md
 * §2, I18). What {@link runTickFromEnvironment} ends with on a malformed
 * environment; a shell that checks more of the environment than core parses
 * (files, its own settings) reports every problem in one such outcome.
 *
 * @param errors - every problem found, in the order they are to be said.
 */
export const configInvalidOutcome = (errors: readonly ConfigError[]): TickOutcome => {
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
 * (docs/behaviour.md §2, I18).
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
    (errors: readonly ConfigError[]) => Promise.resolve(configInvalidOutcome(errors)),
    (config: TickConfig) => runTick(config, makePorts(config), options),
  )(parseTickConfig(env));
