import type * as E from 'fp-ts/lib/Either.js';
import type { FleetHaltConfig } from '../config/fleet-halt-config.js';
import type { TickKeys } from '../config/profile/topology-keys.js';
import type { Annotations, BookkeepingChanges } from './bookkeeping.js';
import {
  type FleetHalt,
  type FleetHaltDocument,
  type FleetHaltTarget,
  haltIsInForce,
  parseFleetHalt,
} from './fleet-halt.js';
import type { PortError, RegistryError } from './port-error.js';
import type { Resolution } from './registry-answer.js';
import type { SignatureVerdict } from './signature-verdict.js';
import {
  isSignedUnverified,
  judgeSignedAnswer,
  READING_OFF,
  readingDigestOf,
  type SignedDocument,
  type SignedDocumentKind,
  type SignedReading,
  signedDocumentJudged,
  signedDocumentRead,
  signedStepFailed,
  signedWriteOf,
} from './signed-document-reading.js';

// docs/behaviour.md §3.4b, reading the fleet halt: what the halt tag's HEAD
// (in the tick's one resolve batch) answered, judged against what this edge
// recorded, step by step as data. A digest seen before, with its verified
// document kept beside it (`<prefix>/fleet-halt-document`), costs
// nothing more; a new one is read and its signature checked; 404 is no halt
// (and lifts one that was recorded). Everything else fails closed (I37).

/**
 * Where reading the halt got to this tick: a signed document's reading
 * (signed-document-reading.ts). `Off`: FLEET_HALT_REF unset, nothing is
 * asked, written or said (I35); `Withdrawn`: the tag answers 404 where a halt
 * was recorded — it is lifted, and its bookkeeping goes; `Unverified`: fail
 * closed (I37), no re-image this tick, exit 1.
 */
export type HaltReading = SignedReading<FleetHalt>;

export const HALT_OFF: HaltReading = READING_OFF;

/** The halt document: its noun in every reason, its strict parser. */
const HALT_DOCUMENT: SignedDocument<FleetHalt> = { noun: 'halt', parse: parseFleetHalt };

/** The halt as an edge reads it: kept on the gate beside its digest (`<prefix>/fleet-halt-document`). */
const haltKindOf = (keys: TickKeys): SignedDocumentKind<FleetHalt> => ({
  ...HALT_DOCUMENT,
  digestKey: keys.fleetHaltDigest,
  documentKey: keys.fleetHaltDocument,
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
): HaltReading => judgeSignedAnswer(haltKindOf(keys), answer, bookkeeping, nowMs);

/** The document the registry holds for the digest being read: parsed, or why it cannot count (I37). */
export const haltDocumentRead = (
  reading: HaltReading,
  answer: E.Either<RegistryError, FleetHaltDocument>,
  nowMs: number | undefined,
): HaltReading => {
  if (reading._tag !== 'Fetching') return reading;
  if (nowMs === undefined) return { _tag: 'Unverified', why: 'there is no clock to judge its expiry by' };
  return signedDocumentRead(HALT_DOCUMENT, reading, answer, nowMs);
};

/** The signature check of the halt's manifest digest: only Verified lets the halt count (I37). */
export const haltSignatureJudged = (
  reading: HaltReading,
  answer: E.Either<RegistryError, SignatureVerdict> | undefined,
): HaltReading => signedDocumentJudged(HALT_DOCUMENT, reading, answer);

/** Reading stopped before a verdict (a step that could not be taken) is unverified: fail closed. */
export const isHaltUnverified = (reading: HaltReading): boolean => isSignedUnverified(reading);

/** The halt that holds this tick: verified and unexpired at `nowMs`; undefined otherwise. */
export const haltInForce = (reading: HaltReading, nowMs: number | undefined): FleetHalt | undefined =>
  reading._tag === 'Verified' && nowMs !== undefined && haltIsInForce(reading.document, nowMs)
    ? reading.document
    : undefined;

/** The write a verdict asks for: a halt verified this tick is recorded, a lifted one removed; otherwise none. */
export const haltWriteOf = (keys: TickKeys, reading: HaltReading, bookkeeping: Annotations): BookkeepingChanges =>
  signedWriteOf(haltKindOf(keys), reading, bookkeeping);

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
    case 'Withdrawn':
      return { ...none, state: 'lifted', digest: reading.digest ?? null };
    case 'Verified':
      return {
        ...none,
        state: haltInForce(reading, nowMs) === undefined ? 'expired' : 'inForce',
        digest: reading.digest,
        reason: reading.document.reason,
        expires: reading.document.expires,
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
export const isHaltLifted = (reading: HaltReading): boolean => reading._tag === 'Withdrawn';

/** Why a step of reading the halt could not be taken: it fails closed, with the step named (I37). */
export const haltStepFailed = (step: 'clock' | 'document' | 'signature', error: PortError): HaltReading =>
  signedStepFailed(step, error);

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
  digest: readingDigestOf(reading),
});
