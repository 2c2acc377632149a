import type { TickConfig } from '../../config/tick-config.js';
import { type BookkeepingChanges, describeChanges } from '../../domain/bookkeeping.js';
import { describePortError, type PortError } from '../../domain/port-error.js';
import { annotateGate, event, gate, rearmCommand } from '../operator-words.js';
import type { TickEvent } from '../tick-event.js';

// The record phase's operator lines (docs/behaviour.md §3.7, §3.8): the success reset, the
// decoupled pass's kept attempts and the digest record.

export const successResetFailed = (c: TickConfig, e: PortError): TickEvent =>
  event(
    'error',
    'SUCCESS_RESET_FAILED',
    `ERROR: every rollout completed but ${c.topology.keys.refreshAttempt}/${c.topology.keys.flapDetected} could not be cleared on ${gate(c)} (${describePortError(e)}). The tick still goes on to record the new digests; a stale attempt count makes the next drift reach the flap lockout sooner.`,
    [rearmCommand(c)],
  );

// A decoupled pass that found refresh-attempt above 0 puts it back instead of
// clearing it (the flap counter keeps its meaning, I25); its failure
// keeps the SUCCESS_RESET_FAILED code operators already alert on.
export const attemptKept = (c: TickConfig, attempt: number): TickEvent =>
  event(
    'info',
    'ATTEMPT_KEPT',
    `decoupled re-image complete; ${c.topology.keys.refreshAttempt} stays at ${attempt}/${c.maxRefreshAttempts}: the failed attempts before it are not this pass's to clear -- only a successful re-image on a settled ${gate(c)} (or a human) resets them`,
  );

export const attemptKeepFailed = (c: TickConfig, attempt: number, e: PortError): TickEvent =>
  event(
    'error',
    'SUCCESS_RESET_FAILED',
    `ERROR: the decoupled re-image completed but ${c.topology.keys.refreshAttempt} could not be put back to ${attempt} on ${gate(c)} (${describePortError(e)}). It still reads ${attempt + 1}, so the flap lockout comes one failure sooner. The pass still goes on to record what it may.`,
    [`${annotateGate(c)} ${c.topology.keys.refreshAttempt}=${attempt} --overwrite`],
  );

/** kubectl's spelling: `key=value`, and `key-` for a pending record the write removes (§3.4a step 2). */
export const recordingDigests = (c: TickConfig, changes: BookkeepingChanges): TickEvent =>
  event(
    'info',
    'RECORDING_DIGESTS',
    `updating ${c.topology.gate.kind === 'Deployment' ? 'deployment' : 'daemonset'} annotations: ${describeChanges(changes)}`,
  );

export const recordFailed = (c: TickConfig, e: PortError): TickEvent =>
  event(
    'error',
    'RECORD_FAILED',
    `ERROR: could not record the new digests on ${gate(c)} (${describePortError(e)}); the next tick will see the same change again.`,
  );

/** PUSHGATEWAY_URL set, the clock unread: the digests are recorded without their times (docs/fleet-promotion.md). */
export const recordTimeUnread = (e: PortError): TickEvent =>
  event(
    'warn',
    'RECORD_TIME_UNREAD',
    `WARN: could not read the clock for the record's times (${describePortError(e)}); the digests are recorded without them, and promote counts this edge's evidence only from its next recorded digest.`,
  );
