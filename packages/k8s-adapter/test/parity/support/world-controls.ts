import type { Topology, WorkloadRef } from '@image-refresh/core';
import { CHART_TOPOLOGY } from '../../../../core/test/support/chart.js';
import { annotationsOf } from '../../support/fake-api-chart.js';
import { type RolloutBehaviour, rolloutSteps } from '../../support/fake-api-controller.js';
import type { FakeApiServer } from '../../support/fake-api-server.js';

// World events on the fake API server, in the simulator's vocabulary, built
// only on the fake's public controls (the store's status, behaviour and
// watch). Shared by the parity suite and the CLI's end-to-end story; any
// fake cluster will do (the chart's, or a profile's: fake-api-topology.ts).

/** A fake cluster, whichever topology it was seeded with: only its server is used. */
export interface FakeCluster {
  readonly server: FakeApiServer;
}

/** Write, now, the status a rollout of `behaviour` comes to rest in (as the fake controller would). */
export const restAs = (cluster: FakeCluster, ref: WorkloadRef, behaviour: RolloutBehaviour): void => {
  const { store } = cluster.server;
  const object = store.get(ref.kind, ref.namespace, ref.name);
  if (object === undefined) throw new Error(`the fake API server holds no ${ref.kind} ${ref.name}`);
  const last = rolloutSteps(ref.kind, object, behaviour).at(-1);
  if (last === undefined) throw new Error(`a ${behaviour} rollout writes no status`);
  store.setStatus(ref.kind, ref.namespace, ref.name, last.status);
};

export interface Flapping {
  /** Make a workload flap from now on: settled now, and its rollouts stall. */
  add(ref: WorkloadRef): void;
  /** Stop it flapping (its behaviour is left to the caller). */
  delete(ref: WorkloadRef): void;
  /** After a tick: every flapping workload is Ready again. */
  readyAgain(): void;
  /** Stop watching. */
  stop(): void;
}

/**
 * The simulator's flapping workload (#563: "becomes Ready, then crashes"):
 * settled whenever a tick looks, unavailable once the tick has committed to a
 * re-image, Ready again after the tick. Staged with the controller stalling
 * any rollout and a watch that makes the pods unavailable as soon as
 * refresh-attempt is written on the topology's gate (the chart's: the
 * jobs-manager Deployment) — the write that precedes every set image (I9). A re-attempt finds the image already in the
 * spec and sends no patch, so starts no rollout (docs/behaviour.md §3.6):
 * without this crash the wait would see the Ready pods and succeed.
 *
 * The fake's own `flaps` behaviour tells a different story (the rollout
 * completes, then the pods crash): the adapter sees success and the next
 * tick an unsettled Deployment, a skip streak rather than a flap lockout.
 */
export const stageFlapping = (cluster: FakeCluster, topology: Topology = CHART_TOPOLOGY): Flapping => {
  const flapping = new Map<string, WorkloadRef>();
  const key = (ref: WorkloadRef) => `${ref.kind}/${ref.namespace}/${ref.name}`;
  const { gate } = topology;
  let seen: string | undefined;
  const stop = cluster.server.store.watch(gate.kind, gate.namespace, gate.name, (event) => {
    const attempt = annotationsOf(event.object)[topology.keys.refreshAttempt];
    if (attempt === seen) return;
    seen = attempt;
    if (attempt === undefined) return;
    // The fake's flaps resting status: updated, and none available.
    for (const ref of flapping.values()) restAs(cluster, ref, 'flaps');
  });
  return {
    add: (ref) => {
      flapping.set(key(ref), ref);
      cluster.server.store.setBehaviour(ref.kind, ref.namespace, ref.name, 'stalls');
      restAs(cluster, ref, 'settles');
    },
    delete: (ref) => {
      flapping.delete(key(ref));
    },
    readyAgain: () => {
      for (const ref of flapping.values()) restAs(cluster, ref, 'settles');
    },
    stop,
  };
};
