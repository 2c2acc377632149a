import type { TickOutcome } from '@image-refresh/core';
import type { SimWorld } from '@image-refresh/core/sim';
import type { WorldCall } from './recording-world.js';

// What "the same outcome" means between the simulator and the real stack:
// everything the tick decided and did, without the free text. Messages name
// request paths, status numbers and durations that legitimately differ
// (kubectl's "1 old replicas are pending termination" against the
// simulator's "0 of 1 updated replicas are available"); the codes, the
// writes with their values, the re-images and the final state must not.

export const tickView = (outcome: TickOutcome) => ({
  result: outcome.result,
  exitCode: outcome.exitCode,
  settledness: outcome.settledness?._tag,
  codes: outcome.events.map((e) => e.code),
  findings: outcome.findings.map((e) => e.code),
  writes: outcome.writes.map((w) => ({ kind: w.kind, annotations: w.annotations })),
  reimages: outcome.reimages.map((r) => ({ workload: r.workload.id, images: r.images, rolledOut: r.rolledOut })),
  digestChanges: outcome.digestChanges,
});

/** The gate's bookkeeping and every workload's images, by workload id, as the simulator holds them. */
export const simState = (world: SimWorld) => ({
  annotations: { ...world.annotations },
  images: Object.fromEntries(Object.keys(world.workloads).map((id) => [id, { ...world.workload(id).images }])),
});

/**
 * The Kubernetes Events recorded so far, one per reason, as `type reason ×count`.
 * Messages are left out for the reason above: they quote the settledness text.
 */
export const simKubeEvents = (world: SimWorld): string[] =>
  world.kubeEvents.map((e) => `${e.type} ${e.reason} ×${e.count}`).sort();

/** The operations and repos a scenario armed faults for, so far. */
export interface Injected {
  /** `op`, or `op scope` for a fault on bookkeeping patches making one change. */
  readonly ops: Set<string>;
  readonly repos: Set<string>;
}

export const noteInjected = (injected: Injected, calls: readonly WorldCall[]): void => {
  for (const call of calls) {
    if (call.method === 'injectClusterFault') {
      const [op, , , scope] = call.args;
      injected.ops.add(scope === undefined ? op : `${op} ${scope}`);
    }
    if (call.method === 'injectRegistryFault') injected.repos.add(call.args[0]);
  }
};

/** The faults the simulator holds armed, as `op fault` / `registry repo fault`. */
export const armedInSim = (world: SimWorld, injected: Injected): string[] => [
  ...world.armedClusterFaults().flatMap(({ target, fault }) => {
    const slot = target.key === undefined ? target.op : `${target.op} ${target.key}`;
    return injected.ops.has(slot) ? [`${slot} ${fault}`] : [];
  }),
  ...[...injected.repos].flatMap((repo) => {
    const fault = world.armedRegistryFault(repo);
    return fault === undefined ? [] : [`registry ${repo} ${fault}`];
  }),
];
