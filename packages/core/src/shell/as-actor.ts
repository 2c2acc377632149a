import * as E from 'fp-ts/lib/Either.js';
import { createActor, fromPromise, toPromise } from 'xstate';
import type { TickConfig } from '../config/tick-config.js';
import { portBounds } from '../machine/port-bounds.js';
import { tickMachine } from '../machine/tick-machine.js';
import type { TickOutcome } from '../machine/tick-outcome.js';
import { platformTimers } from './backstop.js';
import { callPort, portCalls } from './port-calls.js';
import { afterTheTick } from './publish-events.js';
import type { TickOptions, TickPorts, Timers } from './tick-ports.js';

// The second interpreter: the machine as a started xstate actor with its
// actors bound to the ports — for inspection, a UI, or a test holding it to
// the same outcomes as runTick.

/**
 * The machine with every named actor bound to its port call, for running it
 * as an xstate actor (inspection, a UI, your own interpreter). runTick drives
 * the same machine through its own driver (drive-tick.ts), which also stops
 * on the tick's signal; a test holds the two to the same outcomes.
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
