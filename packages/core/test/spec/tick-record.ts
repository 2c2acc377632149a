import type { TickConfig } from '../../src/config/tick-config.js';
import type { Settledness } from '../../src/domain/settledness.js';
import type { TickOutcome } from '../../src/machine/tick-outcome.js';
import type { TickPorts } from '../../src/run-tick.js';
import { runTick } from '../../src/run-tick.js';
import {
  type ClusterFault,
  type RegistryFault,
  type RolloutBehaviour,
  SIM_HALT_REPO,
  SIM_HALT_TAG,
  type SimWorld,
} from '../../src/sim/index.js';
import { IMAGES, type WorkloadId } from '../support/chart.js';
import { readAt, type SpecCall, specCalls } from '../support/spec-calls.js';

// What the invariants look at: the world just before and just after one tick,
// every port call the tick made, and its outcome. Snapshots are plain data, so
// a record can also be written by hand — which is how the checker is shown to
// reject a wrong trace.

export interface WorkloadSnapshot {
  readonly exists: boolean;
  readonly behaviour: RolloutBehaviour;
  readonly rolloutPending: boolean;
  readonly images: Readonly<Record<string, string>>;
}

export interface WorldSnapshot {
  readonly clockMs: number;
  readonly annotations: Readonly<Record<string, string>>;
  readonly workloads: Readonly<Record<WorkloadId, WorkloadSnapshot>>;
  /** repo → digest under the config's tag */
  readonly registry: Readonly<Record<string, string | undefined>>;
  /** What the registry reports as `ratelimit-remaining`. */
  readonly rateLimitRemaining: number | undefined;
  /** The settled guard's truth at the top of the tick, computed by the world, not by the tick. */
  readonly jobsManagerTopOfTick: Settledness;
  /** The same for every workload (DECOUPLED_REFRESH refreshes the others when they are settled). */
  readonly settledAtTopOfTick: Readonly<Record<WorkloadId, boolean>>;
  /** Armed faults by target: `op`, or `patchBookkeeping <key>` for a write naming that key. */
  readonly clusterFaults: Readonly<Partial<Record<string, ClusterFault>>>;
  readonly registryFaults: Readonly<Record<string, RegistryFault | undefined>>;
  /** A fleet halt is published under the simulator's halt tag (docs/behaviour.md §3.4b). */
  readonly haltPublished: boolean;
}

export interface TickRecord {
  readonly config: TickConfig;
  readonly before: WorldSnapshot;
  readonly after: WorldSnapshot;
  /** The calls, bookkeeping patches named by what they write (support/spec-calls.ts). */
  readonly calls: readonly SpecCall[];
  readonly outcome: TickOutcome;
}

export const snapshotOf = (world: SimWorld): WorldSnapshot => ({
  clockMs: world.clockMs,
  annotations: { ...world.annotations },
  workloads: Object.fromEntries(
    Object.values(world.workloads).map((w) => [
      w.id,
      {
        exists: w.exists,
        behaviour: w.behaviour,
        rolloutPending: w.rolloutPending,
        images: { ...w.images },
      },
    ]),
  ) as Record<WorkloadId, WorkloadSnapshot>,
  registry: Object.fromEntries(
    IMAGES.map(({ repo }) => [repo, world.registry.get(`${repo}:${world.config.imageTag}`)]),
  ),
  rateLimitRemaining: world.rateLimitRemaining,
  jobsManagerTopOfTick: world.settlednessOf('jobs-manager', 'top-of-tick'),
  settledAtTopOfTick: Object.fromEntries(
    Object.values(world.workloads).map((w) => [
      w.id,
      w.exists && world.settlednessOf(w.id, 'top-of-tick')._tag === 'Settled',
    ]),
  ) as Record<WorkloadId, boolean>,
  clusterFaults: Object.fromEntries(
    world
      .armedClusterFaults()
      .map(({ target, fault }) => [
        target.key !== undefined
          ? `${target.op} ${target.key}`
          : target.op === 'readGate'
            ? readAt(world.config, target.readIndex ?? 0)
            : target.op,
        fault,
      ]),
  ),
  registryFaults: Object.fromEntries(IMAGES.map(({ repo }) => [repo, world.armedRegistryFault(repo)])),
  haltPublished: world.registry.has(`${SIM_HALT_REPO}:${SIM_HALT_TAG}`),
});

/** Run one tick on the world through the given ports and record it. */
export const recordTick = async (world: SimWorld, ports: TickPorts, config: TickConfig): Promise<TickRecord> => {
  const before = snapshotOf(world);
  const firstCall = world.calls.length;
  const outcome = await runTick(config, ports);
  return { config, before, after: snapshotOf(world), calls: specCalls(world.calls.slice(firstCall), config), outcome };
};
