import type { Environment } from '../../src/config/environment.js';
import type { TickEvent } from '../../src/machine/tick-event.js';
import type { TickOutcome } from '../../src/machine/tick-outcome.js';
import { runTick } from '../../src/run-tick.js';
import { SimWorld, simConfig, simPorts } from '../../src/sim/index.js';
import { SIM_EPOCH_MS } from '../../src/sim/sim-ports.js';
import { specCalls } from './spec-calls.js';

// One simulated edge for the example tests of a signed fleet document (the
// halt, halt-edge.ts; the promotion, promotion-edge.ts): its world, its
// ticks, and what the last tick did and said, read from the world's own log
// (spec-calls.ts). Each case states its world and shares nothing.

export const HOUR = 3_600_000;

export const aSimEdge = (env: Environment) => {
  const config = simConfig(env);
  const world = new SimWorld(config);
  const ports = simPorts(world);
  let last: TickOutcome | undefined;
  const eventsOf = (code: TickEvent['code']) => (last?.events ?? []).filter((e) => e.code === code);
  return {
    config,
    world,
    ports,
    /** The simulated wall clock, ms since the epoch. */
    now: (): number => SIM_EPOCH_MS + world.clockMs,
    async tick(): Promise<TickOutcome> {
      world.calls.length = 0;
      last = await runTick(config, ports);
      return last;
    },
    /** This tick's calls, each bookkeeping patch named by what it writes, as `op detail`. */
    calls: (): string[] => specCalls(world.calls, config).map((c) => (c.detail === '' ? c.op : `${c.op} ${c.detail}`)),
    ops: (): string[] => specCalls(world.calls, config).map((c) => c.op),
    /** The one event with this code, message and hints; fails loudly when there is none or several. */
    line(code: TickEvent['code']): string {
      const events = eventsOf(code);
      if (events.length !== 1) {
        throw new Error(`expected exactly one ${code} event, got ${events.length}: ${JSON.stringify(last?.events)}`);
      }
      const [event] = events;
      return [event?.message ?? '', ...(event?.hints ?? [])].join('\n');
    },
    /** The messages of this tick's events with this code. */
    lines: (code: TickEvent['code']): string[] => eventsOf(code).map((e) => e.message),
    codes: (): string[] => (last?.events ?? []).map((e) => e.code),
  };
};
