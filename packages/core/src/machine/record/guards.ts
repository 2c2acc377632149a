import { hasDigestsToRecord } from '../../domain/tick-plan.js';
import type { GuardArgs } from '../tick-assign.js';

// The record phase's named guard (docs/behaviour.md §3.7, §3.8), one question to domain/.

export const recordGuards = {
  /** On to recordingDigests; otherwise the tick completes with no record write. */
  hasDigestsToRecord: ({ context }: GuardArgs) =>
    hasDigestsToRecord(context.config.topology, context.admit.plan, context.resolve.bookkeeping),
  /** PUSHGATEWAY_URL set: the record carries each digest's time (docs/fleet-promotion.md). */
  recordsTimes: ({ context }: GuardArgs) => context.config.recordTimes === true,
};
