import { refreshAttemptSet } from '../../domain/bookkeeping.js';
import { recordedAtWrite } from '../../domain/recorded-at.js';
import { recordWriteOf } from '../../domain/tick-plan.js';
import { rolloutSecondsWrite } from '../../domain/window-room.js';
import { write } from '../step-params.js';
import type { InputArgs } from '../tick-context.js';

// What the record phase's steps hand their actors.

/** A decoupled pass puts refresh-attempt back to the count it found (I25). */
export const attemptKept = ({ context }: InputArgs) =>
  write('writeRefreshAttempt', refreshAttemptSet(context.config.topology, context.act.attempt));

/**
 * §3.8 — every new and first-observed digest in one write; with
 * MAINTENANCE_WINDOW, each rollout's duration beside them (§3.4d).
 */
export const digestRecord = ({ context }: InputArgs) => {
  const { config, admit, resolve, act } = context;
  const record = recordWriteOf(config.topology, admit.plan, resolve.bookkeeping);
  return write('recordDigests', {
    ...record,
    ...rolloutSecondsWrite(config.topology, resolve.bookkeeping, act.rolloutMs),
    // PUSHGATEWAY_URL set: when each was recorded, the canaries' evidence (docs/fleet-promotion.md).
    ...recordedAtWrite(
      config.topology,
      record,
      resolve.bookkeeping,
      act.recordedAtMs,
      new Set(admit.plan.verdicts.flatMap((v) => (v._tag === 'FirstObservation' ? [v.image] : []))),
    ),
  });
};
