import type { Environment } from '../../src/config/environment.js';
import type { TickEvent } from '../../src/machine/tick-event.js';
import type { TickOutcome, WriteKind } from '../../src/machine/tick-outcome.js';
import { SimWorld, simConfig, simPorts } from '../../src/sim/index.js';
import { describeViolations, SpecChecker } from '../spec/spec-checker.js';
import { recordTick, type TickRecord } from '../spec/tick-record.js';
import { type SpecOp, specCalls } from './spec-calls.js';

// One simulated edge per test: each case states the cluster it describes and
// shares nothing with the others (the seeds' bats practice). Every tick also
// goes through the property suite's invariant checker: an example scenario
// that breaks I1–I20 fails even if its own assertions missed it, and one whose
// outcome lists other writes than the cluster accepted fails too. Calls are
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
  'writeResolveFailureStreak',
  'clearResolveFailureStreak',
  'recordTopologyFingerprint',
];

/** Every bookkeeping write a tick names (tick-outcome.ts's WriteKind), as the world's log names it. */
const BOOKKEEPING_WRITES: Readonly<Record<WriteKind, true>> = {
  writeSkipStreak: true,
  clearSkipStreak: true,
  writeRefreshAttempt: true,
  markFlapDetected: true,
  clearFlapState: true,
  recordDigests: true,
  quarantineDigests: true,
  writePendingDigests: true,
  recordFleetHalt: true,
  liftFleetHalt: true,
  recordFleetPromotion: true,
  withdrawFleetPromotion: true,
  writeResolveFailureStreak: true,
  clearResolveFailureStreak: true,
  recordTopologyFingerprint: true,
};

/**
 * The outcome's writes are the bookkeeping writes the cluster accepted this tick, in order, each
 * once (`status` and the metrics read them): a write the machine made but did not note,
 * or noted without the port accepting it, is named here.
 */
const writesDisagree = (record: TickRecord): string | undefined => {
  const accepted = record.calls.filter((c) => c.op in BOOKKEEPING_WRITES && c.outcome === 'ok').map((c) => c.op);
  const noted = record.outcome.writes.map((w) => w.kind);
  return JSON.stringify(noted) === JSON.stringify(accepted)
    ? undefined
    : `the outcome lists the writes ${JSON.stringify(noted)}, the cluster accepted ${JSON.stringify(accepted)}`;
};

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
      const disagreement = writesDisagree(record);
      if (disagreement !== undefined) throw new Error(disagreement);
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
