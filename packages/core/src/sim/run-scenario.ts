import type { TickConfig } from '../config/tick-config.js';
import type { TickOutcome } from '../machine/tick-outcome.js';
import { runTick, type TickPorts } from '../run-tick.js';
import type { Scenario } from './scenarios.js';
import { simConfig } from './sim-config.js';
import { simPorts } from './sim-ports.js';
import { SimWorld } from './sim-world.js';

/** One tick of a scenario: what happened before it, its outcome, and the world after it. */
export interface TimelineRow {
  readonly tick: number;
  readonly event: string;
  readonly outcome: TickOutcome;
  /** The gate's annotations after the tick. */
  readonly annotations: Readonly<Record<string, string>>;
  /** Spec images of every workload after the tick, by workload and container. */
  readonly images: Readonly<Record<string, Readonly<Record<string, string>>>>;
  /** Virtual time spent by this tick, in ms. */
  readonly elapsedMs: number;
  /** Kubernetes Events the tick recorded, as `Type Reason`. */
  readonly kubeEvents: readonly string[];
  /** The edge this row is of, in a scenario of several edges side by side (scenario `canary-ring`). */
  readonly edge?: string;
  /**
   * Virtual time the tick's re-imaged workloads spent with pods unavailable:
   * their rollout waits (and a rollback's), while new pods waited for their
   * image and started (PREPULL's measure, `slow-link`).
   */
  readonly unavailableMs: number;
}

const unavailableSoFar = (world: SimWorld): number =>
  Object.values(world.nodes.unavailableMs).reduce((a, b) => a + b, 0);

/** One tick of one simulated edge, as a timeline row. */
const tickRow = async (
  tick: number,
  event: string,
  { config, world, ports }: { config: TickConfig; world: SimWorld; ports: TickPorts },
): Promise<TimelineRow> => {
  const startedAt = world.clockMs;
  const unavailableBefore = unavailableSoFar(world);
  const firstCall = world.calls.length;
  const outcome = await runTick(config, ports);
  return {
    tick,
    event,
    outcome,
    annotations: { ...world.annotations },
    images: Object.fromEntries(Object.values(world.workloads).map((w) => [w.id, { ...w.images }])),
    elapsedMs: world.clockMs - startedAt,
    unavailableMs: unavailableSoFar(world) - unavailableBefore,
    kubeEvents: world.calls
      .slice(firstCall)
      .flatMap((c) => (c.op === 'recordEvent' && c.outcome === 'ok' ? [c.detail] : [])),
  };
};

/** Run a scenario on a fresh simulated edge, one tick per step. */
export const runScenario = async (scenario: Scenario): Promise<{ config: TickConfig; rows: TimelineRow[] }> => {
  if (scenario.edges !== undefined) return runEdges(scenario, scenario.edges);
  const config = simConfig(scenario.env, scenario.profile);
  const world = new SimWorld(config);
  const ports = simPorts(world);
  const rows: TimelineRow[] = [];
  for (const [index, step] of scenario.steps.entries()) {
    step.act?.(world);
    rows.push(await tickRow(index + 1, step.event, { config, world, ports }));
  }
  return { config, rows };
};

/**
 * Several edges side by side on one registry timeline (canary rings, §3.4a): each has
 * its own cluster, bookkeeping and uid; every step's world event happens to
 * each of them (a push reaches every edge's registry view at once, time passes
 * for all), then each ticks, in the order the scenario names them.
 */
const runEdges = async (
  scenario: Scenario,
  edges: NonNullable<Scenario['edges']>,
): Promise<{ config: TickConfig; rows: TimelineRow[] }> => {
  const sims = edges.map((edge, index) => {
    const config = simConfig({ ...scenario.env, ...edge.env }, scenario.profile);
    const world = new SimWorld(config);
    world.uid = `${world.uid.slice(0, -1)}${index + 2}`;
    return { name: edge.name, config, world, ports: simPorts(world) };
  });
  const rows: TimelineRow[] = [];
  for (const [index, step] of scenario.steps.entries()) {
    for (const sim of sims) step.act?.(sim.world);
    for (const sim of sims) rows.push({ ...(await tickRow(index + 1, step.event, sim)), edge: sim.name });
  }
  return { config: sims[0]?.config ?? simConfig(scenario.env, scenario.profile), rows };
};
