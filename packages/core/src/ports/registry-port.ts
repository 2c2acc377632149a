import type { Either } from 'fp-ts/lib/Either.js';
import type { Task } from 'fp-ts/lib/Task.js';
import type { RegistryError } from '../domain/port-error.js';
import type { DigestRequest, Resolution } from '../domain/registry-answer.js';

export type { DigestRequest, Resolution } from '../domain/registry-answer.js';

/**
 * Where a tick resolves floating tags to digests (docs/behaviour.md §3.3). One call per
 * tick, for the unpinned images only (I13). It never fails as a whole: each
 * answer is that image's own `Either`, in request order.
 */
export interface RegistryPort {
  /**
   * Resolve every requested repo:tag to its current manifest digest. The
   * batch lets the adapter reuse one token for all repos; each repo's answer
   * stands alone, so one failure leaves the others' refresh unaffected (I15).
   * Answers come back in request order.
   */
  readonly resolveDigests: (requests: readonly DigestRequest[]) => Task<readonly Either<RegistryError, Resolution>[]>;
}
