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
import type { SpecCall } from '../support/spec-calls.js';
import { readAt, specCalls } from './topology-calls.js';

// What the invariants look at: the world just before and just after one tick,
// every port call the tick made, and its outcome. Snapshots are plain data, so
// a record can also be written by hand — which is how the checker is shown to
// reject a wrong trace. Every workload, image and repository is the edge's
// own topology's (docs/profiles.md): the chart's, or any profile's.

export interface WorkloadSnapshot {
  readonly exists: boolean;
  readonly behaviour: RolloutBehaviour;
  readonly rolloutPending: boolean;
  readonly images: Readonly<Record<string, string>>;
}

export interface WorldSnapshot {
  readonly clockMs: number;
  readonly annotations: Readonly<Record<string, string>>;
  /** By workload id of the topology. */
  readonly workloads: Readonly<Record<string, WorkloadSnapshot>>;
  /** repo → digest under the tag its image follows (its own, or IMAGE_TAG) */
  readonly registry: Readonly<Record<string, string | undefined>>;
  /** What the registry reports as `ratelimit-remaining`. */
  readonly rateLimitRemaining: number | undefined;
  /** The settled guard's truth about the gate at the top of the tick, computed by the world, not by the tick. */
  readonly gateTopOfTick: Settledness;
  /** The same for every workload, by id (DECOUPLED_REFRESH refreshes the decoupled ones when they are settled). */
  readonly settledAtTopOfTick: Readonly<Record<string, boolean>>;
  /** Armed faults by target: `op`, or `patchBookkeeping <key>` for a write naming that key. */
  readonly clusterFaults: Readonly<Partial<Record<string, ClusterFault>>>;
  readonly registryFaults: Readonly<Record<string, RegistryFault | undefined>>;
  /** MIRROR_MODE=follow-upstream: the repositories the mirror answers another digest for (§3.3). */
  readonly mirrorCorrupt: readonly string[];
  /** A fleet halt is published under the simulator's halt tag (docs/behaviour.md §3.4b). */
  readonly haltPublished: boolean;
}

export interface TickRecord {
  readonly config: TickConfig;
  readonly before: WorldSnapshot;
  readonly after: WorldSnapshot;
  /** The calls, bookkeeping patches named by what they write (topology-calls.ts). */
  readonly calls: readonly SpecCall[];
  readonly outcome: TickOutcome;
}

export const snapshotOf = (world: SimWorld): WorldSnapshot => {
  const { images } = world.config.topology;
  return {
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
    ),
    registry: Object.fromEntries(images.map(({ repo, tag }) => [repo, world.registry.get(`${repo}:${tag}`)])),
    rateLimitRemaining: world.rateLimitRemaining,
    gateTopOfTick: world.settlednessOf(world.gateId, 'top-of-tick'),
    settledAtTopOfTick: Object.fromEntries(
      Object.values(world.workloads).map((w) => [
        w.id,
        w.exists && world.settlednessOf(w.id, 'top-of-tick')._tag === 'Settled',
      ]),
    ),
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
    registryFaults: Object.fromEntries(images.map(({ repo }) => [repo, world.armedRegistryFault(repo)])),
    mirrorCorrupt: [...world.mirrorCorrupt],
    haltPublished: world.registry.has(`${SIM_HALT_REPO}:${SIM_HALT_TAG}`),
  };
};

/** Run one tick on the world through the given ports and record it. */
export const recordTick = async (world: SimWorld, ports: TickPorts, config: TickConfig): Promise<TickRecord> => {
  const before = snapshotOf(world);
  const firstCall = world.calls.length;
  const outcome = await runTick(config, ports);
  return { config, before, after: snapshotOf(world), calls: specCalls(world.calls.slice(firstCall), config), outcome };
};
