import { hasDigestsToRecord } from '../../domain/tick-plan.js';
import type { GuardArgs } from '../tick-assign.js';

// The record phase's named guard (docs/behaviour.md §3.7, §3.8), one question to domain/.

export const recordGuards = {
  /** §3.4 — first observations are recorded without a re-image (I8); a plan may have nothing to record. */
  hasDigestsToRecord: ({ context }: GuardArgs) =>
    hasDigestsToRecord(context.config.topology, context.admit.plan, context.resolve.bookkeeping),
};
