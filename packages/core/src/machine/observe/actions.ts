import * as O from 'fp-ts/lib/Option.js';
import { recordedDigestsOf, resolveFailureStreakOf } from '../../domain/bookkeeping.js';
import {
  DECOUPLED_PASS_BEGUN,
  nextDecoupled,
  withDecoupledObservation,
  withDecoupledUnread,
} from '../../domain/decoupled-pass.js';
import type { PortError } from '../../domain/port-error.js';
import { countSkip } from '../../domain/skip-streak.js';
import { followsUpstreamThroughMirror } from '../../domain/switches.js';
import type { LiveWorkload, TopologyWorkload } from '../../domain/workloads.js';
import type { GateSnapshot } from '../../ports/cluster-port.js';
import { tickAssign } from '../tick-assign.js';
import { said, type TickContext } from '../tick-context.js';
import * as say from './messages.js';

// The observe phase's named actions (docs/behaviour.md §3.1, §3.2): what it
// remembers of the gate and the skip, and the lines it says.

/** The decoupled workload just read: the pass's next one. */
const observed = (context: TickContext): TopologyWorkload => {
  const workload = nextDecoupled(context.config.topology, context.observe.decoupled);
  if (workload === undefined) throw new RangeError('no decoupled workload was being observed');
  return workload;
};

export const observeActions = {
  announceMirrorInert: tickAssign(({ context }) => ({ events: said(context, say.mirrorInert(context.config)) })),
  /** What the settled guard read of the gate: its settledness, its uid (START_JITTER) and what it runs. */
  rememberGate: tickAssign(({ context }, params: { gate: GateSnapshot }) => ({
    observe: {
      ...context.observe,
      settledness: params.gate.settledness,
      gateUid: params.gate.uid ?? '',
      gate: { settledness: params.gate.settledness, images: params.gate.images, imageOwners: params.gate.imageOwners },
      resolveFailureStreak: resolveFailureStreakOf(context.config.topology, params.gate.annotations),
      mirrorRecords: followsUpstreamThroughMirror(context.config)
        ? recordedDigestsOf(context.config.topology, params.gate.annotations)
        : {},
      topologyFingerprint: params.gate.annotations[context.config.topology.keys.topologyFingerprint],
    },
  })),
  reportDeploymentUnreadable: tickAssign(({ context }, params: { error: PortError }) => ({
    events: said(context, say.deploymentUnreadable(context.config, params.error)),
  })),
  /** The skip streak read plus one, judged against MAX_SKIP_TICKS once (#1964). */
  countSkip: tickAssign(({ context }, params: { streak: O.Option<string> }) => ({
    observe: { ...context.observe, skip: countSkip(params.streak, context.config.maxSkipTicks) },
  })),
  reportSkipStreakUncountable: tickAssign(({ context }, params: { error: PortError }) => ({
    events: said(context, say.skipStreakUncountable(context.config, params.error)),
  })),
  reportSkipStreakWriteFailed: tickAssign(({ context }, params: { error: PortError }) => ({
    events: said(context, say.skipStreakWriteFailed(context.config, context.observe.skip.streak, params.error)),
  })),
  announceSkip: tickAssign(({ context }) => ({
    events: said(context, say.skipping(context.config, context.observe.skip.streak, context.observe.settledness)),
  })),
  announceFrozen: tickAssign(({ context }) => ({
    events: said(context, say.frozen(context.config, context.observe.skip.streak, context.observe.settledness)),
  })),
  announceSettledAgain: tickAssign(({ context }, params: { streak: O.Option<string> }) => ({
    events: said(context, say.settledAgain(context.config, O.getOrElse(() => '')(params.streak))),
  })),
  warnSkipStreakUnreadable: tickAssign(({ context }, params: { error: PortError }) => ({
    events: said(context, say.skipStreakUnreadableOnSettle(context.config, params.error)),
  })),
  warnSkipStreakClearFailed: tickAssign(({ context }, params: { error: PortError }) => ({
    events: said(context, say.skipStreakClearFailed(context.config, params.error)),
  })),
  /** The skip is counted; how the tick ends is its verdict's (skipResultOf), whatever the pass refreshes. */
  beginDecoupledPass: tickAssign(({ context }) => ({
    observe: { ...context.observe, decoupled: DECOUPLED_PASS_BEGUN },
    events: said(context, say.decoupledRefresh(context.config)),
  })),
  /** One decoupled workload read: kept in the pass or not; one not settled is said. */
  rememberDecoupledObservation: tickAssign(({ context }, params: { workload: LiveWorkload }) => ({
    observe: {
      ...context.observe,
      decoupled: withDecoupledObservation(context.observe.decoupled, observed(context).id, params.workload),
    },
    ...(params.workload.settledness._tag === 'Settled'
      ? {}
      : {
          events: said(context, say.decoupledNotSettled(observed(context), params.workload.settledness)),
        }),
  })),
  warnDecoupledUnreadable: tickAssign(({ context }, params: { error: PortError }) => ({
    observe: { ...context.observe, decoupled: withDecoupledUnread(context.observe.decoupled) },
    events: said(context, say.decoupledUnreadable(context.config, observed(context), params.error)),
  })),
};
