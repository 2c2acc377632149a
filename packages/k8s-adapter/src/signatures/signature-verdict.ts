import type { RegistryError, SignatureFormat, SignatureVerdict } from '@image-refresh/core';
import type * as E from 'fp-ts/lib/Either.js';

// What a signature check of one resolved digest ends in, as a value
// (docs/behaviour.md §3.4a step 3). A registry failure while fetching
// signatures is the Left: a resolution failure of that image (WARN, retry next
// tick), never a rejection and never "verified". A Right is the registry's
// final word, read and judged.

// The verdict's shape is core's (its SignaturePort carries it): one
// definition on both sides of the port.
export type { SignatureFormat, SignatureTarget, SignatureVerdict } from '@image-refresh/core';

/** A verdict, or the registry failure that left none (the image waits for the next tick). */
export type SignatureCheck = E.Either<RegistryError, SignatureVerdict>;

export const verified = (by: string, format: SignatureFormat): SignatureVerdict => ({ _tag: 'Verified', by, format });
export const notVerified = (why: string): SignatureVerdict => ({ _tag: 'NotVerified', why });
