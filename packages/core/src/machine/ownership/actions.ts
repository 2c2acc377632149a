import { ownershipFindings, workloadsToRead } from '../../domain/ownership.js';
import type { PortError } from '../../domain/port-error.js';
import type { LiveWorkload } from '../../domain/workloads.js';
import { tickAssign } from '../tick-assign.js';
import { said, type TickContext } from '../tick-context.js';
import { ownedWorkloadRead, topologyChanged } from './inputs.js';
import * as say from './messages.js';

// The ownership check's named actions (docs/behaviour.md §3.4c): what it
// reads, what it finds, and the lines it says.

/** What the tick read of its workloads before the check: the gate's read, the decoupled pass's, the live pass's. */
const knownBefore = (context: TickContext): Readonly<Record<string, LiveWorkload>> => ({
  ...context.observe.decoupled.workloads,
  ...context.resolve.live.workloads,
  ...(context.observe.gate === undefined ? {} : { [context.config.topology.gate.id]: context.observe.gate }),
});

export const ownershipActions = {
  /** The workloads the plan stakes that nothing read this tick: each is read once. */
  findWorkloadsToCheck: tickAssign(({ context }) => ({
    ownership: {
      ...context.ownership,
      toRead: workloadsToRead(context.config, context.admit.plan, knownBefore(context), topologyChanged(context)),
    },
  })),
  rememberOwnedWorkload: tickAssign(({ context }, params: { workload: LiveWorkload }) => ({
    ownership: {
      ...context.ownership,
      read: { ...context.ownership.read, [ownedWorkloadRead({ context }).workload.id]: params.workload },
    },
  })),
  /** Every staked container judged against what it runs; each one that is not the followed image's said. */
  judgeOwnership: tickAssign(({ context }) => {
    const findings = ownershipFindings(
      context.config,
      context.admit.plan,
      { ...knownBefore(context), ...context.ownership.read },
      topologyChanged(context),
    );
    return {
      ownership: { ...context.ownership, findings },
      events: said(context, ...findings.map((f) => say.foreignContainer(context.config, f))),
    };
  }),
  announceTopologyChecked: tickAssign(({ context }) => ({
    events: said(context, say.topologyChecked(context.config)),
  })),
  warnTopologyFingerprintUnwritten: tickAssign(({ context }, params: { error: PortError }) => ({
    events: said(context, say.topologyFingerprintUnwritten(context.config, params.error)),
  })),
  reportOwnershipUnchecked: tickAssign(({ context }, params: { error: PortError }) => ({
    events: said(context, say.ownershipUnchecked(ownedWorkloadRead({ context }).workload, params.error)),
  })),
};
