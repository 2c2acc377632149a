import type { Environment } from '../../src/config/environment.js';
import type { TickEvent } from '../../src/machine/tick-event.js';
import type { TickOutcome } from '../../src/machine/tick-outcome.js';
import { runTick } from '../../src/run-tick.js';
import {
  SIM_HALT_ENVIRONMENT,
  SIM_HALT_REPO,
  SIM_HALT_TAG,
  SimWorld,
  simConfig,
  simHaltDocument,
  simPorts,
} from '../../src/sim/index.js';
import { SIM_EPOCH_MS } from '../../src/sim/sim-ports.js';
import { specCalls } from './spec-calls.js';

// One simulated edge watching a fleet halt (FLEET_HALT_REF, docs/behaviour.md
// §3.4b), for the example tests: each case states its world and shares
// nothing. Its ticks are read from the world's own log (spec-calls.ts).

export const HOUR = 3_600_000;

export const aHaltEdge = (env: Environment = {}) => {
  const config = simConfig({ ...SIM_HALT_ENVIRONMENT, ...env });
  const world = new SimWorld(config);
  const ports = simPorts(world);
  let last: TickOutcome | undefined;
  const now = () => SIM_EPOCH_MS + world.clockMs;
  return {
    config,
    world,
    ports,
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
      const events = (last?.events ?? []).filter((e) => e.code === code);
      if (events.length !== 1) {
        throw new Error(`expected exactly one ${code} event, got ${events.length}: ${JSON.stringify(last?.events)}`);
      }
      const [event] = events;
      return [event?.message ?? '', ...(event?.hints ?? [])].join('\n');
    },
    codes: (): string[] => (last?.events ?? []).map((e) => e.code),
    /** Publish a halt document under FLEET_HALT_REF's tag; signed by the trusted key unless said otherwise. */
    publishHalt(
      repositories: Parameters<typeof simHaltDocument>[2],
      options: { signed?: boolean; expiresInMs?: number; reason?: string } = {},
    ): string {
      const document = simHaltDocument(
        options.reason ?? 'build 2 loses jobs on restart',
        now() + (options.expiresInMs ?? 24 * HOUR),
        repositories,
      );
      return world.publishHalt(document, { signed: options.signed ?? true, repo: SIM_HALT_REPO, tag: SIM_HALT_TAG });
    },
    publishRawHalt(document: string, signed = true): string {
      return world.publishHalt(document, { signed, repo: SIM_HALT_REPO, tag: SIM_HALT_TAG });
    },
    liftHalt(): void {
      world.deleteTag(SIM_HALT_REPO, SIM_HALT_TAG);
    },
  };
};

export type HaltEdge = ReturnType<typeof aHaltEdge>;
