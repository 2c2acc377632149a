import * as E from 'fp-ts/lib/Either.js';
import type { FleetHaltConfig } from '../config/fleet-halt-config.js';
import type { TickKeys } from '../config/profile/topology-keys.js';
import type { Annotations, BookkeepingChanges } from './bookkeeping.js';
import { type Digest, isWellFormedDigest } from './digest.js';
import {
  type FleetHalt,
  type FleetHaltDocument,
  type FleetHaltTarget,
  haltIsInForce,
  parseFleetHalt,
} from './fleet-halt.js';
import { describePortError, type PortError, type RegistryError } from './port-error.js';
import type { Resolution } from './registry-answer.js';
import type { SignatureVerdict } from './signature-verdict.js';

// docs/behaviour.md §3.4b, reading the fleet halt: what the halt tag's HEAD
// (in the tick's one resolve batch) answered, judged against what this edge
// recorded, step by step as data. A digest seen before, with its verified
// document kept beside it (`<prefix>/fleet-halt-document`), costs
// nothing more; a new one is read and its signature checked; 404 is no halt
// (and lifts one that was recorded). Everything else fails closed (I37).

/** Where reading the halt got to this tick. */
export type HaltReading =
  /** FLEET_HALT_REF unset: nothing is asked, written or said (I35). */
  | { readonly _tag: 'Off' }
  /** The tag answered 404 and no halt was recorded: nothing is halted. */
  | { readonly _tag: 'None' }
  /** The tag answered 404 where a halt was recorded: it is lifted, and its bookkeeping goes. */
  | { readonly _tag: 'Lifted'; readonly digest: string | undefined }
  /** A digest not verified here before (or whose kept document no longer parses): its document is read. */
  | { readonly _tag: 'Fetching'; readonly digest: Digest; readonly note?: string }
  /** Its document read and parsed: its signature is checked next. */
  | { readonly _tag: 'Read'; readonly digest: Digest; readonly text: string; readonly halt: FleetHalt }
  /** Verified: this tick (`known` false: recorded once, this tick) or before (`known`: its kept document). */
  | {
      readonly _tag: 'Verified';
      readonly digest: Digest;
      readonly text: string;
      readonly halt: FleetHalt;
      readonly known: boolean;
    }
  /** Fail closed (I37): no re-image this tick, exit 1. */
  | { readonly _tag: 'Unverified'; readonly why: string };

export const HALT_OFF: HaltReading = { _tag: 'Off' };

export const haltUnverified = (why: string): HaltReading => ({ _tag: 'Unverified', why });

/** What this edge recorded of the last halt it verified: its digest and its document, as read. */
const recordedHalt = (keys: TickKeys, bookkeeping: Annotations) => ({
  digest: bookkeeping[keys.fleetHaltDigest],
  document: bookkeeping[keys.fleetHaltDocument],
});

/**
 * The HEAD's answer against the bookkeeping, at `nowMs`. An answer the port
 * did not give fails closed; 404 is no halt (a recorded one is lifted); any
 * other failure is an unverified halt; the recorded digest with a document
 * that still parses is verified already; anything else is read.
 */
export const judgeHaltAnswer = (
  keys: TickKeys,
  answer: E.Either<RegistryError, Resolution> | undefined,
  bookkeeping: Annotations,
  nowMs: number,
): HaltReading => {
  if (answer === undefined) return haltUnverified('the registry port gave no answer for the halt tag');
  const recorded = recordedHalt(keys, bookkeeping);
  if (E.isLeft(answer)) {
    if (answer.left._tag !== 'NotFound')
      return haltUnverified(`the halt tag could not be read (${describePortError(answer.left)})`);
    return recorded.digest === undefined && recorded.document === undefined
      ? { _tag: 'None' }
      : { _tag: 'Lifted', digest: recorded.digest };
  }
  const { digest } = answer.right;
  if (!isWellFormedDigest(digest)) {
    return haltUnverified(
      `the registry answered ${JSON.stringify(digest.slice(0, 100))} for the halt tag, which is not an OCI digest`,
    );
  }
  if (digest !== recorded.digest || recorded.document === undefined) return { _tag: 'Fetching', digest };
  const kept = parseFleetHalt(recorded.document, nowMs);
  return E.isRight(kept)
    ? { _tag: 'Verified', digest, text: recorded.document, halt: kept.right, known: true }
    : { _tag: 'Fetching', digest, note: `the kept document no longer parses (${kept.left})` };
};

/** The document the registry holds for the digest being read: parsed, or why it cannot count (I37). */
export const haltDocumentRead = (
  reading: HaltReading,
  answer: E.Either<RegistryError, FleetHaltDocument>,
  nowMs: number | undefined,
): HaltReading => {
  if (reading._tag !== 'Fetching') return reading;
  if (nowMs === undefined) return haltUnverified('there is no clock to judge its expiry by');
  if (E.isLeft(answer)) return haltUnverified(`its document could not be read (${describePortError(answer.left)})`);
  if (answer.right._tag === 'Unusable') return haltUnverified(answer.right.why);
  const parsed = parseFleetHalt(answer.right.text, nowMs);
  return E.isLeft(parsed)
    ? haltUnverified(`its document does not parse: ${parsed.left}`)
    : // Kept on one line: an annotation value `kubectl describe` and a dry-run line show whole.
      { _tag: 'Read', digest: reading.digest, text: JSON.stringify(JSON.parse(answer.right.text)), halt: parsed.right };
};

/** The signature check of the halt's manifest digest: only Verified lets the halt count (I37). */
export const haltSignatureJudged = (
  reading: HaltReading,
  answer: E.Either<RegistryError, SignatureVerdict> | undefined,
): HaltReading => {
  if (reading._tag !== 'Read') return reading;
  if (answer === undefined) return haltUnverified('the signature port gave no answer for the halt');
  if (E.isLeft(answer)) return haltUnverified(`its signature could not be checked (${describePortError(answer.left)})`);
  if (answer.right._tag !== 'Verified') return haltUnverified(`its signature did not verify: ${answer.right.why}`);
  return { _tag: 'Verified', digest: reading.digest, text: reading.text, halt: reading.halt, known: false };
};

/** Reading stopped before a verdict (a step that could not be taken) is unverified: fail closed. */
export const isHaltUnverified = (reading: HaltReading): boolean =>
  reading._tag === 'Unverified' || reading._tag === 'Fetching' || reading._tag === 'Read';

/** The halt that holds this tick: verified and unexpired at `nowMs`; undefined otherwise. */
export const haltInForce = (reading: HaltReading, nowMs: number | undefined): FleetHalt | undefined =>
  reading._tag === 'Verified' && nowMs !== undefined && haltIsInForce(reading.halt, nowMs) ? reading.halt : undefined;

/** The write a verdict asks for: a halt verified this tick is recorded, a lifted one removed; otherwise none. */
export const haltWriteOf = (keys: TickKeys, reading: HaltReading, bookkeeping: Annotations): BookkeepingChanges => {
  if (reading._tag === 'Verified' && !reading.known) {
    return { [keys.fleetHaltDigest]: reading.digest, [keys.fleetHaltDocument]: reading.text };
  }
  if (reading._tag !== 'Lifted') return {};
  return Object.fromEntries(
    [keys.fleetHaltDigest, keys.fleetHaltDocument]
      .filter((key) => bookkeeping[key] !== undefined)
      .map((key) => [key, null]),
  );
};

/** How a tick left the fleet halt, as its outcome, `status` and the metrics report it. */
export interface HaltReport {
  /** `inForce`: verified and unexpired; `expired`: verified, past its expiry, ignored. */
  readonly state: 'none' | 'lifted' | 'inForce' | 'expired' | 'unverified';
  /** FLEET_HALT_REF as configured. */
  readonly reference: string;
  /** The halt's manifest digest, where the tag answered one. */
  readonly digest: string | null;
  readonly reason: string | null;
  readonly expires: string | null;
  /** Why it could not be verified (`unverified` only). */
  readonly why: string | null;
}

/** The report of a reading; undefined while FLEET_HALT_REF is unset (nothing to report, I35). */
export const haltReportOf = (
  config: { readonly fleetHalt?: FleetHaltConfig },
  reading: HaltReading,
  nowMs: number | undefined,
): HaltReport | undefined => {
  const reference = config.fleetHalt?.reference;
  if (reference === undefined || reading._tag === 'Off') return undefined;
  const none = { reference, digest: null, reason: null, expires: null, why: null };
  switch (reading._tag) {
    case 'None':
      return { ...none, state: 'none' };
    case 'Lifted':
      return { ...none, state: 'lifted', digest: reading.digest ?? null };
    case 'Verified':
      return {
        ...none,
        state: haltInForce(reading, nowMs) === undefined ? 'expired' : 'inForce',
        digest: reading.digest,
        reason: reading.halt.reason,
        expires: reading.halt.expires,
      };
    case 'Unverified':
      return { ...none, state: 'unverified', why: reading.why };
    default:
      return { ...none, state: 'unverified', digest: reading.digest, why: 'the halt was not read to the end' };
  }
};

/** A digest not verified here before: its document is read next. */
export const needsHaltDocument = (reading: HaltReading): boolean => reading._tag === 'Fetching';

/** Its document read and parsed: its signature is checked next. */
export const hasHaltSignatureToCheck = (reading: HaltReading): boolean => reading._tag === 'Read';

/** Verified this tick: recorded beside its digest, so the next tick costs only the HEAD (I39). */
export const hasHaltToRecord = (reading: HaltReading): boolean => reading._tag === 'Verified' && !reading.known;

/** The tag answers 404 where a halt was recorded: its record is removed. */
export const isHaltLifted = (reading: HaltReading): boolean => reading._tag === 'Lifted';

/** Why a step of reading the halt could not be taken: it fails closed, with the step named (I37). */
export const haltStepFailed = (step: 'clock' | 'document' | 'signature', error: PortError): HaltReading => {
  const because = describePortError(error);
  switch (step) {
    case 'clock':
      return haltUnverified(`there is no clock to judge its expiry by (${because})`);
    case 'document':
      return haltUnverified(`its document could not be read (${because})`);
    case 'signature':
      return haltUnverified(`its signature could not be checked (${because})`);
  }
};

/**
 * The halt artifact the reading is at: FLEET_HALT_REF's repository and the
 * digest its tag answered. Asked only while Fetching or Read, with
 * FLEET_HALT_REF set; anything else names no artifact (empty strings).
 */
export const haltTargetOf = (
  config: { readonly fleetHalt?: FleetHaltConfig },
  reading: HaltReading,
): FleetHaltTarget => ({
  host: config.fleetHalt?.host ?? '',
  repo: config.fleetHalt?.repo ?? '',
  digest: reading._tag === 'Fetching' || reading._tag === 'Read' ? reading.digest : '',
});
