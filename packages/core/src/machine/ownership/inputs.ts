import { topologyChangedSince } from '../../domain/ownership.js';
import { workloadOf } from '../../domain/workloads.js';
import type { InputArgs, TickContext } from '../tick-context.js';

// What the ownership check's step hands its actor.

/**
 * The topology changed since the gate's fingerprint: every mapped container
 * is judged (§3.4c). On a settled tick only: a decoupled pass past an
 * unsettled gate reads what it may refresh, and the next settled tick checks
 * the rest.
 */
export const topologyChanged = (context: TickContext): boolean =>
  context.config.ownershipCheck &&
  !context.observe.decoupled.begun &&
  topologyChangedSince(context.config, context.observe.topologyFingerprint);

/** The one read of every workload the check needs: no settle window, the check needs their images, not their rollouts. */
export const ownedWorkloadsRead = ({ context }: InputArgs) => ({
  workloads: context.ownership.toRead.map((id) => {
    const { kind, name, namespace } = workloadOf(context.config.topology, id);
    return { id, kind, name, namespace };
  }),
});
