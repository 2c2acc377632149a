import type { PortError } from '../../domain/port-error.js';
import { recordWriteOf } from '../../domain/tick-plan.js';
import { tickAssign } from '../tick-assign.js';
import { said } from '../tick-context.js';
import * as say from './messages.js';

// The record phase's named actions (docs/behaviour.md §3.7, §3.8): the lines it says.

export const recordActions = {
  announceAttemptKept: tickAssign(({ context }) => ({
    events: said(context, say.attemptKept(context.config, context.act.attempt)),
  })),
  reportAttemptKeepFailed: tickAssign(({ context }, params: { error: PortError }) => ({
    events: said(context, say.attemptKeepFailed(context.config, context.act.attempt, params.error)),
  })),
  reportSuccessResetFailed: tickAssign(({ context }, params: { error: PortError }) => ({
    events: said(context, say.successResetFailed(context.config, params.error)),
  })),
  announceRecording: tickAssign(({ context }) => ({
    events: said(
      context,
      say.recordingDigests(
        context.config,
        recordWriteOf(context.config.topology, context.admit.plan, context.resolve.bookkeeping),
      ),
    ),
  })),
  rememberRecordTime: tickAssign(({ context }, params: { nowMs: number }) => ({
    act: { ...context.act, recordedAtMs: params.nowMs },
  })),
  warnRecordTimeUnread: tickAssign(({ context }, params: { error: PortError }) => ({
    events: said(context, say.recordTimeUnread(params.error)),
  })),
  reportRecordFailed: tickAssign(({ context }, params: { error: PortError }) => ({
    events: said(context, say.recordFailed(context.config, params.error)),
  })),
};
