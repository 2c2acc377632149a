import { quarantineWriteOf } from '../../domain/quarantine.js';
import { changeAt } from '../../domain/reimage-run.js';
import { write } from '../step-params.js';
import type { InputArgs, TickContext } from '../tick-context.js';

// What the way back's steps hand their actors.

export const currentRevert = (context: TickContext) =>
  changeAt(context.wayBack.decision.plan.changes, context.wayBack.index);

export const revertImagesToSet = ({ context }: InputArgs) => ({ change: currentRevert(context) });

export const revertRolloutToAwait = ({ context }: InputArgs) => ({
  change: currentRevert(context),
  timeoutMs: context.config.rolloutTimeoutMs,
});

export const quarantineWrite = ({ context }: InputArgs) =>
  write(
    'quarantineDigests',
    quarantineWriteOf(context.config.topology, context.wayBack.decision.plan.bad, context.resolve.bookkeeping),
  );
