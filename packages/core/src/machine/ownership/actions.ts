import { ownershipFindings, workloadsToRead } from '../../domain/ownership.js';
import { malformed, type PortError } from '../../domain/port-error.js';
import type { LiveWorkload } from '../../domain/workloads.js';
import type { OwnedWorkloadAnswers } from '../tick-actors.js';
import { tickAssign } from '../tick-assign.js';
import { said, type TickContext } from '../tick-context.js';
import type { UnreadWorkload } from './context.js';
import { ownedWorkloadsRead, topologyChanged } from './inputs.js';
import * as say from './messages.js';

// The ownership check's named actions (docs/behaviour.md §3.4c): what it
// reads, what it finds, and the lines it says.

/** A port that answered fewer workloads than it was asked for has failed the ones it left out. */
const missingAnswer = malformed('the cluster port gave no answer for this workload');

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
  /** What each workload runs now, and which could not be read (each answer stands alone). */
  rememberOwnedWorkloads: tickAssign(({ context }, params: { answers: OwnedWorkloadAnswers }) => {
    const { workloads } = ownedWorkloadsRead({ context });
    const read: Record<string, LiveWorkload> = {};
    const unread: UnreadWorkload[] = [];
    workloads.forEach((workload, i) => {
      const answer = params.answers[i];
      if (answer?._tag === 'Right') read[workload.id] = answer.right;
      else unread.push({ workload, error: answer?.left ?? missingAnswer });
    });
    return { ownership: { ...context.ownership, read, unread } };
  }),
  /** The read failed as a whole (a defect of the port): no workload it needed was read. */
  rememberOwnedWorkloadsUnread: tickAssign(({ context }, params: { error: PortError }) => ({
    ownership: {
      ...context.ownership,
      unread: ownedWorkloadsRead({ context }).workloads.map((workload) => ({ workload, error: params.error })),
    },
  })),
  /**
   * Every staked container judged against what it runs; each one that is not
   * the followed image's said. Nothing is judged while a workload is unread:
   * that is the finding then (reportOwnershipUnchecked).
   */
  judgeOwnership: tickAssign(({ context }) => {
    if (context.ownership.unread.length > 0) return {};
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
  /** Each workload that could not be read, said: its containers cannot be checked, so nothing is written. */
  reportOwnershipUnchecked: tickAssign(({ context }) => ({
    events: said(context, ...context.ownership.unread.map((u) => say.ownershipUnchecked(u.workload, u.error))),
  })),
};
