import { refreshAttemptSet } from '../../domain/bookkeeping.js';
import { recordWriteOf } from '../../domain/tick-plan.js';
import { write } from '../step-params.js';
import type { InputArgs } from '../tick-context.js';

// What the record phase's steps hand their actors.

/** A decoupled pass puts refresh-attempt back to the count it found (I25). */
export const attemptKept = ({ context }: InputArgs) =>
  write('writeRefreshAttempt', refreshAttemptSet(context.config.topology, context.act.attempt));

/** §3.8 — every new and first-observed digest in one write. */
export const digestRecord = ({ context }: InputArgs) =>
  write('recordDigests', recordWriteOf(context.config.topology, context.admit.plan, context.resolve.bookkeeping));
