import type { TickConfig } from '../../config/tick-config.js';
import { shortDigest } from '../../domain/digest.js';
import type { FleetHalt } from '../../domain/fleet-halt.js';
import { type HaltReading, haltInForce } from '../../domain/fleet-halt-reading.js';
import { describePortError, type PortError } from '../../domain/port-error.js';
import { gate } from '../operator-words.js';
import type { TickEvent } from '../tick-event.js';

// The fleet halt phase's operator lines (docs/behaviour.md §3.4b).
// `FLEET HALT in force: <reason> (until <expires>)` and `FLEET HALT
// UNVERIFIED` are the contract's phrases, kept verbatim: operators grep for them.

const referenceOf = (c: TickConfig): string => c.fleetHalt?.reference ?? 'FLEET_HALT_REF';

/** What a halt holds, one continuation line per repository. */
const haltedWords = (halt: FleetHalt): string[] => {
  const repos = Object.entries(halt.repositories);
  if (repos.length === 0) return ['it names no repository: nothing is held'];
  return repos.map(
    ([repo, r]) =>
      `${repo}: ${r.digests === '*' ? 'every digest' : r.digests.map(shortDigest).join(', ')}${r.pin === undefined ? ' (no pin)' : `; pin ${shortDigest(r.pin)}`}`,
  );
};

/** Every tick a verified, unexpired halt holds. */
export const haltInForceLine = (c: TickConfig, halt: FleetHalt, digest: string): TickEvent => ({
  level: 'warn',
  code: 'FLEET_HALT_IN_FORCE',
  message: `FLEET HALT in force: ${halt.reason} (until ${halt.expires})`,
  hints: [`${referenceOf(c)} answers ${shortDigest(digest)}, signature verified`, ...haltedWords(halt)],
});

/** An expired halt is ignored, and said once per tick. */
export const haltExpired = (c: TickConfig, halt: FleetHalt): TickEvent => ({
  level: 'warn',
  code: 'FLEET_HALT_EXPIRED',
  message: `WARN: the fleet halt under ${referenceOf(c)} expired at ${halt.expires} and is ignored: ${halt.reason} (delete the tag, or publish a halt that names nothing)`,
});

/** Fail closed (I37): a finding, nothing re-imaged this tick. */
export const haltUnverifiedLine = (c: TickConfig, why: string): TickEvent => ({
  level: 'error',
  code: 'FLEET_HALT_UNVERIFIED',
  message: `ERROR: FLEET HALT UNVERIFIED: ${referenceOf(c)}: ${why}; nothing is re-imaged this tick (a halt that cannot be verified holds everything back)`,
  hints: [
    'a halt is published with `oras push` and signed with `cosign sign` by a key (or identity) in SIGNATURE_PUBLIC_KEYS / SIGNATURE_IDENTITY; `image-refresh status` shows what this edge reads.',
    'to lift it, delete the tag (404 is "no halt") or publish a signed halt that names nothing.',
  ],
});

export const haltNone = (c: TickConfig): TickEvent => ({
  level: 'info',
  code: 'FLEET_HALT_NONE',
  message: `fleet halt: none published under ${referenceOf(c)}`,
});

export const haltLifted = (c: TickConfig, digest: string | undefined): TickEvent => ({
  level: 'info',
  code: 'FLEET_HALT_LIFTED',
  message: `fleet halt lifted: ${referenceOf(c)} answers 404${digest === undefined ? '' : `; the halt ${shortDigest(digest)} no longer holds`}, and its record on ${gate(c)} is removed`,
});

/** A digest not verified here before: read, then checked (the only tick it costs more than its HEAD). */
export const haltReading = (c: TickConfig, digest: string, note: string | undefined): TickEvent => ({
  level: 'info',
  code: 'FLEET_HALT_READ',
  message: `fleet halt: ${referenceOf(c)} answers ${shortDigest(digest)}${note === undefined ? ', not verified here before' : `; ${note}`}: reading and verifying it`,
});

export const haltWriteFailed = (c: TickConfig, lifting: boolean, e: PortError): TickEvent => ({
  level: 'warn',
  code: 'FLEET_HALT_WRITE_FAILED',
  message: lifting
    ? `WARN: could not remove the record of the lifted fleet halt on ${gate(c)} (${describePortError(e)}); nothing is halted, and the next tick tries again.`
    : `WARN: could not record the verified fleet halt on ${gate(c)} (${describePortError(e)}); it holds this tick, and the next tick reads and verifies it again.`,
});

/** What the phase says once it has its verdict: in force, expired, unverified, lifted or none. */
export const haltVerdictLines = (c: TickConfig, reading: HaltReading, nowMs: number | undefined): TickEvent[] => {
  switch (reading._tag) {
    case 'Off':
      return [];
    case 'None':
      return [haltNone(c)];
    case 'Withdrawn':
      return [haltLifted(c, reading.digest)];
    case 'Verified':
      return haltInForce(reading, nowMs) === undefined
        ? [haltExpired(c, reading.document)]
        : [haltInForceLine(c, reading.document, reading.digest)];
    case 'Unverified':
      return [haltUnverifiedLine(c, reading.why)];
    default:
      return [haltUnverifiedLine(c, 'the halt was not read to the end')];
  }
};
