import type { Either } from 'fp-ts/lib/Either.js';
import type { Option } from 'fp-ts/lib/Option.js';
import type { Task } from 'fp-ts/lib/Task.js';
import type { PortError } from './port-error.js';

export type RegistryError =
  | PortError
  /** HTTP 429 from the registry: the anonymous pull budget of this IP is spent. */
  | { readonly _tag: 'RateLimited'; readonly message: string };

export interface Resolution {
  /** The registry's `Docker-Content-Digest`, unvalidated: the tick checks it (I19). */
  readonly digest: string;
  /** `ratelimit-remaining` when the registry sent it. */
  readonly rateLimitRemaining: Option<number>;
}

export interface DigestRequest {
  readonly repo: string;
  readonly tag: string;
}

export interface RegistryPort {
  /**
   * Resolve every requested repo:tag to its current manifest digest. The
   * batch lets the adapter reuse one token for all repos; each repo's answer
   * stands alone, so one failure leaves the others' refresh unaffected (I15).
   * Answers come back in request order.
   */
  readonly resolveDigests: (requests: readonly DigestRequest[]) => Task<readonly Either<RegistryError, Resolution>[]>;
}
