import type { RegistryError } from '@image-refresh/core';
import type * as E from 'fp-ts/lib/Either.js';

// What a signature check of one resolved digest ends in, as a value (issue 15).
// A registry failure while fetching signatures is the Left: a resolution
// failure of that image (WARN, retry next tick), never a rejection and never
// "verified". A Right is the registry's final word, read and judged.

/** Where the verifying signature was found: cosign's `.sig` tag, or a sigstore bundle. */
export type SignatureFormat = 'cosign-sig-tag' | 'sigstore-bundle';

/** One image's resolved digest to check, e.g. `tracebloc/jobs-manager` and `sha256:…`. */
export interface SignatureTarget {
  /** The repository on the registry, without the registry host. */
  readonly repo: string;
  /** The manifest digest the tag resolved to; the payload must name exactly this. */
  readonly digest: string;
}

/** The registry's final word on one digest's signatures, judged: verified by whom, or why not. */
export type SignatureVerdict =
  /** A signature over a payload naming exactly this digest verified with `by` (a key id or an identity). */
  | { readonly _tag: 'Verified'; readonly by: string; readonly format: SignatureFormat }
  /** No signature verified; `why` names what was found and why each failed, for the finding. */
  | { readonly _tag: 'NotVerified'; readonly why: string };

/** A verdict, or the registry failure that left none (the image waits for the next tick). */
export type SignatureCheck = E.Either<RegistryError, SignatureVerdict>;

export const verified = (by: string, format: SignatureFormat): SignatureVerdict => ({ _tag: 'Verified', by, format });
export const notVerified = (why: string): SignatureVerdict => ({ _tag: 'NotVerified', why });
