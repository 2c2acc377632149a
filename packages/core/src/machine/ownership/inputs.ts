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

/** The next workload the check reads; undefined once every one was read. */
export const nextOwnedWorkload = (context: TickContext): string | undefined =>
  context.ownership.toRead[Object.keys(context.ownership.read).length];

/** The workload the check reads after the next one; undefined when the next is the last. */
export const ownedWorkloadAfterNext = (context: TickContext): string | undefined =>
  context.ownership.toRead[Object.keys(context.ownership.read).length + 1];

/** One read of what the workload runs now: no settle window, the check needs its images, not its rollout. */
export const ownedWorkloadRead = ({ context }: InputArgs) => {
  const id = nextOwnedWorkload(context);
  if (id === undefined) throw new RangeError('no workload left to read for the ownership check');
  const { kind, name, namespace } = workloadOf(context.config.topology, id);
  return { workload: { id, kind, name, namespace }, settleWithinMs: 0 };
};
