import * as E from 'fp-ts/lib/Either.js';
import type { Annotations, BookkeepingChanges } from './bookkeeping.js';
import { type Digest, isWellFormedDigest } from './digest.js';
import type { FleetHaltDocument } from './fleet-halt.js';
import { describePortError, type PortError, type RegistryError } from './port-error.js';
import type { Resolution } from './registry-answer.js';
import type { SignatureVerdict } from './signature-verdict.js';

// A signed fleet document read from the registry under a tag, as the fleet
// promotion is (docs/fleet-promotion.md) — the steps the fleet halt takes
// (docs/behaviour.md §3.4b), as data: the tag's HEAD rides in the tick's one
// resolve batch; a digest seen before, its verified document kept beside it
// on the gate, costs nothing more; a new one is read (capped) and its
// signature checked with the halt's trust; 404 is "none published" (and
// removes a kept record). Everything else fails closed: a document that
// cannot be read or verified never counts.

/** What kind of document is read: its noun for lines and its parser. */
export interface SignedDocument<D> {
  /** `promotion`: worded into every reason (`the promotion tag could not be read`). */
  readonly noun: string;
  readonly parse: (text: string, nowMs: number) => E.Either<string, D>;
}

/** A document as an edge reads it: what it is, and where the edge keeps it. */
export interface SignedDocumentKind<D> extends SignedDocument<D> {
  /** The gate's keys: the manifest digest last verified, and its document beside it. */
  readonly digestKey: string;
  readonly documentKey: string;
}

/** Where reading the document got to this tick. */
export type SignedReading<D> =
  /** Not configured here: nothing is asked, written or said. */
  | { readonly _tag: 'Off' }
  /** The tag answered 404 and nothing was kept: none is published. */
  | { readonly _tag: 'None' }
  /** The tag answered 404 where one was kept: it is withdrawn, and its record goes. */
  | { readonly _tag: 'Withdrawn'; readonly digest: string | undefined }
  /** A digest not verified here before (or whose kept document no longer parses): its document is read. */
  | { readonly _tag: 'Fetching'; readonly digest: Digest; readonly note?: string }
  /** Its document read and parsed: its signature is checked next. */
  | { readonly _tag: 'Read'; readonly digest: Digest; readonly text: string; readonly document: D }
  /** Verified: this tick (`known` false: recorded once, this tick) or before (`known`: its kept document). */
  | {
      readonly _tag: 'Verified';
      readonly digest: Digest;
      readonly text: string;
      readonly document: D;
      readonly known: boolean;
    }
  /** Fail closed: it counts for nothing, and whatever it would open stays shut. */
  | { readonly _tag: 'Unverified'; readonly why: string };

export const READING_OFF = { _tag: 'Off' } as const;

const unverified = (why: string) => ({ _tag: 'Unverified', why }) as const;

/**
 * The HEAD's answer against the bookkeeping, at `nowMs`: no answer fails
 * closed; 404 is none (a kept one is withdrawn); any other failure is
 * unverified; the kept digest with a document that still parses is verified
 * already; anything else is read.
 */
export const judgeSignedAnswer = <D>(
  kind: SignedDocumentKind<D>,
  answer: E.Either<RegistryError, Resolution> | undefined,
  bookkeeping: Annotations,
  nowMs: number,
): SignedReading<D> => {
  if (answer === undefined) return unverified(`the registry port gave no answer for the ${kind.noun} tag`);
  const kept = { digest: bookkeeping[kind.digestKey], document: bookkeeping[kind.documentKey] };
  if (E.isLeft(answer)) {
    if (answer.left._tag !== 'NotFound')
      return unverified(`the ${kind.noun} tag could not be read (${describePortError(answer.left)})`);
    return kept.digest === undefined && kept.document === undefined
      ? { _tag: 'None' }
      : { _tag: 'Withdrawn', digest: kept.digest };
  }
  const { digest } = answer.right;
  if (!isWellFormedDigest(digest)) {
    return unverified(
      `the registry answered ${JSON.stringify(digest.slice(0, 100))} for the ${kind.noun} tag, which is not an OCI digest`,
    );
  }
  if (digest !== kept.digest || kept.document === undefined) return { _tag: 'Fetching', digest };
  const parsed = kind.parse(kept.document, nowMs);
  return E.isRight(parsed)
    ? { _tag: 'Verified', digest, text: kept.document, document: parsed.right, known: true }
    : { _tag: 'Fetching', digest, note: `the kept document no longer parses (${parsed.left})` };
};

/** The document the registry holds for the digest being read: parsed, or why it cannot count. */
export const signedDocumentRead = <D>(
  kind: SignedDocument<D>,
  reading: SignedReading<D>,
  answer: E.Either<RegistryError, FleetHaltDocument>,
  nowMs: number,
): SignedReading<D> => {
  if (reading._tag !== 'Fetching') return reading;
  if (E.isLeft(answer)) return unverified(`its document could not be read (${describePortError(answer.left)})`);
  if (answer.right._tag === 'Unusable') return unverified(answer.right.why);
  const parsed = kind.parse(answer.right.text, nowMs);
  return E.isLeft(parsed)
    ? unverified(`its document does not parse: ${parsed.left}`)
    : // Kept on one line: an annotation value `kubectl describe` shows whole.
      {
        _tag: 'Read',
        digest: reading.digest,
        text: JSON.stringify(JSON.parse(answer.right.text)),
        document: parsed.right,
      };
};

/** The signature check of the manifest digest: only Verified lets the document count. */
export const signedDocumentJudged = <D>(
  kind: SignedDocument<D>,
  reading: SignedReading<D>,
  answer: E.Either<RegistryError, SignatureVerdict> | undefined,
): SignedReading<D> => {
  if (reading._tag !== 'Read') return reading;
  if (answer === undefined) return unverified(`the signature port gave no answer for the ${kind.noun}`);
  if (E.isLeft(answer)) return unverified(`its signature could not be checked (${describePortError(answer.left)})`);
  if (answer.right._tag !== 'Verified') return unverified(`its signature did not verify: ${answer.right.why}`);
  return { _tag: 'Verified', digest: reading.digest, text: reading.text, document: reading.document, known: false };
};

/** Why a step of reading could not be taken: it fails closed, with the step named. */
export const signedStepFailed = (step: 'clock' | 'document' | 'signature', error: PortError) => {
  const because = describePortError(error);
  switch (step) {
    case 'clock':
      return unverified(`there is no clock to judge its expiry by (${because})`);
    case 'document':
      return unverified(`its document could not be read (${because})`);
    case 'signature':
      return unverified(`its signature could not be checked (${because})`);
  }
};

/** Reading stopped before a verdict (a step that could not be taken) is unverified: fail closed. */
export const isSignedUnverified = <D>(reading: SignedReading<D>): boolean =>
  reading._tag === 'Unverified' || reading._tag === 'Fetching' || reading._tag === 'Read';

/** The document that counts this tick: verified; undefined otherwise. */
export const verifiedDocumentOf = <D>(reading: SignedReading<D>): D | undefined =>
  reading._tag === 'Verified' ? reading.document : undefined;

/** The write a verdict asks for: one verified this tick is kept, a withdrawn one's record removed; otherwise none. */
export const signedWriteOf = <D>(
  kind: SignedDocumentKind<D>,
  reading: SignedReading<D>,
  bookkeeping: Annotations,
): BookkeepingChanges => {
  if (reading._tag === 'Verified' && !reading.known) {
    return { [kind.digestKey]: reading.digest, [kind.documentKey]: reading.text };
  }
  if (reading._tag !== 'Withdrawn') return {};
  return Object.fromEntries(
    [kind.digestKey, kind.documentKey].filter((key) => bookkeeping[key] !== undefined).map((key) => [key, null]),
  );
};

/** The manifest digest the reading is at: only while Fetching or Read (empty otherwise). */
export const readingDigestOf = <D>(reading: SignedReading<D>): string =>
  reading._tag === 'Fetching' || reading._tag === 'Read' ? reading.digest : '';
