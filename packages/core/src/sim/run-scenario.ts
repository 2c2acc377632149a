import type { TickConfig } from '../config/tick-config.js';
import type { TickOutcome } from '../machine/tick-outcome.js';
import { runTick } from '../run-tick.js';
import type { Scenario } from './scenarios.js';
import { simConfig } from './sim-config.js';
import { simPorts } from './sim-ports.js';
import { SimWorld } from './sim-world.js';

/** One tick of a scenario: what happened before it, its outcome, and the world after it. */
export interface TimelineRow {
  readonly tick: number;
  readonly event: string;
  readonly outcome: TickOutcome;
  /** The jobs-manager annotations after the tick. */
  readonly annotations: Readonly<Record<string, string>>;
  /** Spec images of every workload after the tick, by workload and container. */
  readonly images: Readonly<Record<string, Readonly<Record<string, string>>>>;
  /** Virtual time spent by this tick, in ms. */
  readonly elapsedMs: number;
  /** Kubernetes Events the tick recorded, as `Type Reason`. */
  readonly kubeEvents: readonly string[];
}

/** Run a scenario on a fresh simulated edge, one tick per step. */
export const runScenario = async (scenario: Scenario): Promise<{ config: TickConfig; rows: TimelineRow[] }> => {
  const config = simConfig(scenario.env);
  const world = new SimWorld(config);
  const ports = simPorts(world);
  const rows: TimelineRow[] = [];
  for (const [index, step] of scenario.steps.entries()) {
    step.act?.(world);
    const startedAt = world.clockMs;
    const firstCall = world.calls.length;
    const outcome = await runTick(config, ports);
    rows.push({
      tick: index + 1,
      event: step.event,
      outcome,
      annotations: { ...world.annotations },
      images: Object.fromEntries(Object.values(world.workloads).map((w) => [w.id, { ...w.images }])),
      elapsedMs: world.clockMs - startedAt,
      kubeEvents: world.calls
        .slice(firstCall)
        .flatMap((c) => (c.op === 'recordEvent' && c.outcome === 'ok' ? [c.detail] : [])),
    });
  }
  return { config, rows };
};
