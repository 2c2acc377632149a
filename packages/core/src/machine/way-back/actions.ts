import { quarantinedDigestsOf } from '../../domain/bookkeeping.js';
import { haltInForce } from '../../domain/fleet-halt-reading.js';
import type { PortError, RolloutError } from '../../domain/port-error.js';
import { withRolledOut } from '../../domain/reimage-run.js';
import { decideRevert, revertReadiness } from '../../domain/revert.js';
import { rolloutComplete } from '../act/messages.js';
import { tickAssign } from '../tick-assign.js';
import { said, type TickContext } from '../tick-context.js';
import { currentRevert } from './inputs.js';
import * as say from './messages.js';

// The way back's named actions (ON_ROLLOUT_FAILURE=revert; docs/behaviour.md §3.6): the
// rollback decided once (decideRevert), each revert patch and rollout, and the lines it says.

const whyOf = (context: TickContext) => say.failureWhy(context.config, context.act.failure);

export const wayBackActions = {
  /**
   * Under revert, a re-image tick says up front where a failure would take
   * each workload back to (what `--dry-run` shows of the revert); a plan
   * with nothing to go back to, or no record to go back to, says nothing.
   */
  announceRevertReady: tickAssign(({ context }) => {
    const { config, resolve, admit, halt } = context;
    const ready = revertReadiness(
      config,
      admit.plan.changes,
      resolve.recorded,
      quarantinedDigestsOf(config.topology, resolve.bookkeeping),
      haltInForce(halt.reading, halt.nowMs),
    );
    return ready._tag === 'RollBack' ? { events: said(context, say.revertReady(ready.plan)) } : {};
  }),
  /** The rollback of this failed re-image, decided once on the way in: its guards and lines read it. */
  planRevert: tickAssign(({ context }) => {
    const { config, resolve, admit, act, halt } = context;
    return {
      wayBack: {
        ...context.wayBack,
        decision: decideRevert(
          config,
          admit.plan.changes,
          act.index,
          act.failure,
          resolve.recorded,
          quarantinedDigestsOf(config.topology, resolve.bookkeeping),
          haltInForce(halt.reading, halt.nowMs),
        ),
      },
    };
  }),
  beginRevert: tickAssign(({ context }) => ({ wayBack: { ...context.wayBack, begun: true, index: 0 } })),
  reportRollbackImpossible: tickAssign(({ context }) => {
    const { decision } = context.wayBack;
    return decision._tag === 'NoRecord'
      ? { events: said(context, say.rollbackImpossible(context.config, decision.target, whyOf(context))) }
      : {};
  }),
  announceRollingBack: tickAssign(({ context }) => ({
    events: said(context, say.rollingBack(currentRevert(context))),
  })),
  noteRevertSet: tickAssign(({ context }) => {
    const { workload, images } = currentRevert(context);
    return {
      wayBack: { ...context.wayBack, reverts: [...context.wayBack.reverts, { workload, images, rolledOut: false }] },
    };
  }),
  noteRevertComplete: tickAssign(({ context }) => ({
    wayBack: {
      ...context.wayBack,
      reverts: withRolledOut(context.wayBack.reverts, currentRevert(context).workload.id),
    },
    events: said(context, rolloutComplete(currentRevert(context))),
  })),
  advanceToNextRevert: tickAssign(({ context }) => ({
    wayBack: { ...context.wayBack, index: context.wayBack.index + 1 },
  })),
  announceRolledBack: tickAssign(({ context }) => ({
    events: said(context, ...say.rolledBack(context.wayBack.decision.plan, whyOf(context))),
  })),
  reportRollbackFailed: tickAssign(({ context }, params: { error: RolloutError }) => ({
    events: said(context, say.rollbackFailed(currentRevert(context), params.error, whyOf(context))),
  })),
  announceQuarantineStarted: tickAssign(({ context }) => ({
    events: said(context, say.quarantineStarted(context.config, context.wayBack.decision.plan.bad)),
  })),
  reportQuarantineWriteFailed: tickAssign(({ context }, params: { error: PortError }) => ({
    events: said(context, say.quarantineWriteFailed(context.config, params.error)),
  })),
};
