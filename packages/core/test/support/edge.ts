import type { Environment } from '../../src/config/environment.js';
import type { TickEvent } from '../../src/machine/tick-event.js';
import type { TickOutcome } from '../../src/machine/tick-outcome.js';
import { SimWorld, simConfig, simPorts } from '../../src/sim/index.js';
import { describeViolations, SpecChecker } from '../spec/spec-checker.js';
import { recordTick } from '../spec/tick-record.js';
import { type SpecOp, specCalls } from './spec-calls.js';

// One simulated edge per test: each case states the cluster it describes and
// shares nothing with the others (the seeds' bats practice). Every tick also
// goes through the property suite's invariant checker: an example scenario
// that breaks I1–I20 fails even if its own assertions missed it. Calls are
// read with each bookkeeping patch named by what it writes (spec-calls.ts).

export const WRITE_OPS: readonly SpecOp[] = [
  'writeSkipStreak',
  'clearSkipStreak',
  'writeRefreshAttempt',
  'markFlapDetected',
  'clearFlapState',
  'recordDigests',
  'setImages',
  'quarantineDigests',
];

export const JM = 'tracebloc/jobs-manager';
export const PM = 'tracebloc/pods-monitor';
export const RM = 'tracebloc/resource-monitor';

export const anEdge = (env: Environment = {}) => {
  const config = simConfig(env);
  const world = new SimWorld(config);
  const ports = simPorts(world);
  const checker = new SpecChecker();
  let last: TickOutcome | undefined;
  return {
    config,
    world,
    async tick(): Promise<TickOutcome> {
      const record = await recordTick(world, ports, config);
      const violations = checker.check(record);
      if (violations.length > 0) throw new Error(`invariants broken:\n${describeViolations(violations)}`);
      last = record.outcome;
      return last;
    },
    /** The calls the simulated cluster and registry received, in order, as `op detail`. */
    calls: (): string[] => specCalls(world.calls, config).map((c) => (c.detail === '' ? c.op : `${c.op} ${c.detail}`)),
    /** Every write the cluster received (attempted, whatever its outcome), as `op detail`. */
    writes: (): string[] =>
      specCalls(world.calls, config)
        .filter((c) => (WRITE_OPS as readonly string[]).includes(c.op))
        .map((c) => `${c.op} ${c.detail}`.trim()),
    ops: (): string[] => specCalls(world.calls, config).map((c) => c.op),
    /** The one event with this code; fails loudly when there is none or several. */
    line(code: TickEvent['code']): string {
      const events = (last?.events ?? []).filter((e) => e.code === code);
      if (events.length !== 1) {
        throw new Error(`expected exactly one ${code} event, got ${events.length}: ${JSON.stringify(last?.events)}`);
      }
      const [event] = events;
      return [event?.message ?? '', ...(event?.hints ?? [])].join('\n');
    },
    codes: (): string[] => (last?.events ?? []).map((e) => e.code),
  };
};

export type Edge = ReturnType<typeof anEdge>;

/** An edge that has completed its first tick: digests recorded, nothing pending. */
export const aSteadyEdge = async (env: Environment = {}): Promise<Edge> => {
  const edge = anEdge(env);
  const first = await edge.tick();
  if (first.result !== 'complete') throw new Error(`setup: the first tick ended ${first.result}`);
  edge.world.calls.length = 0;
  return edge;
};
