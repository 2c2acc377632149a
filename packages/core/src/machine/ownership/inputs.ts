import { workloadOf } from '../../domain/workloads.js';
import type { InputArgs, TickContext } from '../tick-context.js';

// What the ownership check's step hands its actor.

/** The next workload the check reads; undefined once every one was read. */
export const nextOwnedWorkload = (context: TickContext): string | undefined =>
  context.ownership.toRead[Object.keys(context.ownership.read).length];

/** One read of what the workload runs now: no settle window, the check needs its images, not its rollout. */
export const ownedWorkloadRead = ({ context }: InputArgs) => {
  const id = nextOwnedWorkload(context);
  if (id === undefined) throw new RangeError('no workload left to read for the ownership check');
  const { kind, name, namespace } = workloadOf(context.config.topology, id);
  return { workload: { id, kind, name, namespace }, settleWithinMs: 0 };
};
