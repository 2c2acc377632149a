import { tickAssign } from '../tick-assign.js';
import { said } from '../tick-context.js';
import type { AnnotationWrite } from '../tick-outcome.js';
import * as say from './messages.js';

// What every phase uses: the tick's first and last lines, and every write the port accepted.

export const tickWideActions = {
  /** Every write the port accepted, in order, exactly as it was handed over. */
  noteWrite: tickAssign(({ context }, params: { write: AnnotationWrite }) => ({
    writes: [...context.writes, params.write],
  })),
  announceTick: tickAssign(({ context }) => ({
    events: said(context, say.tickStart(context.config), ...say.ignoredVariables(context.config)),
  })),
  announceTickComplete: tickAssign(({ context }) => ({ events: said(context, say.tickComplete()) })),
};
