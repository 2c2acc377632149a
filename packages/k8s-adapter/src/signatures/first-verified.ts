import type { RegistryError } from '@image-refresh/core';
import * as E from 'fp-ts/lib/Either.js';
import { notVerified, type SignatureCheck, type SignatureFormat, verified } from './signature-verdict.js';

// Several candidate signatures (the layers of a `.sig` manifest, the bundles
// among the referrers), tried one after the other: the first that verifies
// wins (rotation, re-signing). When none does, a candidate the registry
// failed to serve might have been the valid one, so that failure — not a
// rejection — is the answer (docs/behaviour.md §3.4a step 3); otherwise every reason, in order.

/** One candidate's outcome: who verified it, why it does not count, or the registry failure. */
export type Attempt = E.Either<RegistryError, { readonly by: string } | { readonly why: string }>;

export const firstVerified = async <T>(
  candidates: readonly T[],
  attempt: (candidate: T) => Promise<Attempt>,
  label: (candidate: T, index: number) => string,
  format: SignatureFormat,
  where: string,
): Promise<SignatureCheck> => {
  const whys: string[] = [];
  let failure: RegistryError | undefined;
  for (const [index, candidate] of candidates.entries()) {
    const outcome = await attempt(candidate);
    if (E.isLeft(outcome)) failure ??= outcome.left;
    else if ('by' in outcome.right) return E.right(verified(outcome.right.by, format));
    else whys.push(`${label(candidate, index)}: ${outcome.right.why}`);
  }
  if (failure !== undefined) return E.left(failure);
  return E.right(notVerified(`${where}: ${whys.join('; ')}`));
};
