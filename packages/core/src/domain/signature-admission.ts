import type { Either } from 'fp-ts/lib/Either.js';
import type { SignatureMode } from '../config/signature-config.js';
import { type Holds, unheldVerdicts, withHold } from './admission.js';
import type { RecordedDigests } from './bookkeeping.js';
import type { Digest } from './digest.js';
import type { ImageResolution } from './plan.js';
import type { RegistryError } from './port-error.js';
import type { SignatureFormat, SignatureVerdict } from './signature-verdict.js';
import { type ImageName, imageSpec } from './workloads.js';

// docs/behaviour.md §3.4a step 3 (issue 15), as data: which digests the
// signature check asks about, and what each answer does. A changed digest
// is gated: under `enforce` only a Verified one may go on; a registry
// failure holds it under `warn` and `enforce` alike (never a rejection,
// never "verified"). A first observation is checked report-only: recording
// a baseline rolls no pod (I8), so nothing needs admitting, and a fresh
// install on an edge already running an unsigned image must not fail every
// tick for something it did not deploy.

/** One digest the signature check asks about. */
export interface SignatureSubject {
  readonly image: ImageName;
  readonly repo: string;
  readonly digest: Digest;
  /** A changed digest (gated); false: a first observation, checked report-only. */
  readonly gated: boolean;
}

/** What the check said of one digest: for the log, the re-image Event and `status`. */
export type SignatureResult =
  | { readonly _tag: 'Verified'; readonly by: string; readonly format: SignatureFormat }
  | { readonly _tag: 'NotVerified'; readonly why: string }
  /** A registry failure left no verdict. */
  | { readonly _tag: 'CheckFailed'; readonly error: RegistryError };

/** One digest's check, as the tick outcome reports it. */
export interface SignatureCheckReport {
  readonly image: ImageName;
  readonly repo: string;
  readonly digest: Digest;
  readonly gated: boolean;
  readonly result: SignatureResult;
}

/**
 * The digests to check this tick, in the images' order: every changed digest
 * no earlier admission check held back, and every first observation
 * (report-only). An unchanged digest was checked when it changed.
 */
export const signatureSubjects = (
  resolutions: readonly ImageResolution[],
  recorded: RecordedDigests,
  holds: Holds,
): readonly SignatureSubject[] =>
  unheldVerdicts(resolutions, recorded, holds).flatMap((verdict): SignatureSubject[] => {
    if (verdict._tag === 'Unchanged') return [];
    const digest = verdict._tag === 'Drift' ? verdict.to : verdict.digest;
    return [{ image: verdict.image, repo: imageSpec(verdict.image).repo, digest, gated: verdict._tag === 'Drift' }];
  });

/** The port's answer (a missing one is no verdict: fail closed) as a result. */
export const signatureResultOf = (answer: Either<RegistryError, SignatureVerdict> | undefined): SignatureResult => {
  if (answer === undefined) {
    return {
      _tag: 'CheckFailed',
      error: { _tag: 'Malformed', message: 'the signature port gave no answer for this digest' },
    };
  }
  if (answer._tag === 'Left') return { _tag: 'CheckFailed', error: answer.left };
  return answer.right._tag === 'Verified'
    ? { _tag: 'Verified', by: answer.right.by, format: answer.right.format }
    : { _tag: 'NotVerified', why: answer.right.why };
};

/** Why a gated digest is held back under `mode`, or undefined when it may go on. */
export const signatureHoldOf = (
  mode: SignatureMode,
  result: SignatureResult,
): { readonly why: string; readonly check: 'NotVerified' | 'CheckFailed' } | undefined => {
  if (result._tag === 'CheckFailed') {
    return { why: `${result.error._tag}: ${result.error.message}`, check: 'CheckFailed' };
  }
  return result._tag === 'NotVerified' && mode === 'enforce' ? { why: result.why, check: 'NotVerified' } : undefined;
};

/** The holds the reports add: gated digests that may not go on (docs/behaviour.md §3.4a). */
export const signatureHolds = (mode: SignatureMode, holds: Holds, reports: readonly SignatureCheckReport[]): Holds =>
  reports.reduce((acc, { image, digest, gated, result }) => {
    const hold = gated ? signatureHoldOf(mode, result) : undefined;
    return hold === undefined ? acc : withHold(acc, { _tag: 'SignatureNotVerified', image, digest, ...hold });
  }, holds);
