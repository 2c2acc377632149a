import type { TaskEither } from 'fp-ts/lib/TaskEither.js';
import type { RegistryError } from '../domain/port-error.js';
import type { SignatureTarget, SignatureVerdict } from '../domain/signature-verdict.js';

export type { SignatureFormat, SignatureTarget, SignatureVerdict } from '../domain/signature-verdict.js';

// Is a resolved digest signed by a key (or
// identity) this edge trusts? The check is the adapter's (cosign's `.sig` tag,
// sigstore bundles, verified offline); the tick only asks, once per new digest,
// and decides what the answer means (docs/behaviour.md §3.4a step 3).

/**
 * Where a tick checks signatures (VERIFY_SIGNATURES ≠ off). Build it with the
 * k8s-adapter's `createSignatureVerifier`. A `Left` is a registry failure
 * that left no verdict: that image waits for the next tick, never rejected
 * and never verified. Every request is bounded by REGISTRY_TIMEOUT; the tick
 * bounds the whole call too (I17).
 */
export interface SignaturePort {
  readonly verify: (target: SignatureTarget) => TaskEither<RegistryError, SignatureVerdict>;
}
