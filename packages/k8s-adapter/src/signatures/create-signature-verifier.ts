import { transport } from '@image-refresh/core';
import * as E from 'fp-ts/lib/Either.js';
import { type RegistryPortOptions, registryClient } from '../registry/registry-client.js';
import { checkCosignSigTag } from './cosign-sig-tag.js';
import type { TrustedKey } from './public-keys.js';
import { openRepoSession, type RequestCount } from './repo-session.js';
import { DEFAULT_SIGNATURE_LIMITS, type SignatureLimits } from './signature-limits.js';
import { notVerified, type SignatureCheck, type SignatureTarget } from './signature-verdict.js';
import { checkSigstoreBundles } from './sigstore-bundle-referrers.js';
import type { KeylessTrust } from './verify-bundle.js';

// docs/behaviour.md §3.4a step 3: is this resolved digest signed by a key (or
// identity) we trust? The `.sig` tag is tried first (cosign's default, the
// cheapest: HEAD, GET, blob), the sigstore bundles only when it did not verify.
// The first signature that verifies ends the check. Either path failing on the
// registry leaves no verdict when the other did not verify: a signature that
// could not be read might have been the valid one.

/** What {@link createSignatureVerifier} needs: the registry, the trusted keys and/or keyless trust. */
export interface SignatureVerifierOptions {
  /** The registry port's own options: base URL, REGISTRY_TIMEOUT, transport. */
  readonly registry: RegistryPortOptions;
  /** SIGNATURE_PUBLIC_KEYS, parsed (parsePublicKeys); any one verifying is enough (rotation). */
  readonly keys: readonly TrustedKey[];
  /** SIGNATURE_IDENTITY / SIGNATURE_ISSUER / SIGSTORE_TRUSTED_ROOT, for keyless bundles. */
  readonly keyless?: KeylessTrust;
  readonly limits?: Partial<SignatureLimits>;
  /** Called after each check with what it cost on the wire (for a log line or a test). */
  readonly onRequests?: (target: SignatureTarget, count: Readonly<RequestCount>) => void;
}

/** Checks resolved digests for a signature that verifies. */
export interface SignatureVerifier {
  /**
   * One digest's verdict. Never throws; `signal` (the tick's budget) stops it
   * between requests — each request is bounded by REGISTRY_TIMEOUT anyway.
   */
  verify(target: SignatureTarget, signal?: AbortSignal): Promise<SignatureCheck>;
}

const SHA256 = /^sha256:[0-9a-f]{64}$/;

const joinWhys = (sig: string, bundle: string): string => `${sig}; ${bundle}`;

/**
 * A signature check of resolved digests: cosign's `sha256-<hex>.sig`
 * tag first, then sigstore bundles (referrers API, `sha256-<hex>` tag
 * fallback), on the registry port's transport and anonymous tokens, verified
 * offline. A signature counts only when its payload names exactly the digest.
 *
 * Promises: never throws; `Right(Verified)` names the key file or identity,
 * `Right(NotVerified)` says why; a registry failure on any signature request
 * that could have verified is a `Left` — no verdict, never a rejection.
 * `@sigstore/*` is loaded only when a bundle must be verified.
 */
export const createSignatureVerifier = (options: SignatureVerifierOptions): SignatureVerifier => {
  const client = registryClient(options.registry);
  const limits: SignatureLimits = { ...DEFAULT_SIGNATURE_LIMITS, ...options.limits };
  const trust = { keys: options.keys, keyless: options.keyless };
  const report = options.onRequests ?? (() => undefined);

  const check = async (target: SignatureTarget, signal: AbortSignal | undefined): Promise<SignatureCheck> => {
    if (!SHA256.test(target.digest)) return E.right(notVerified(`${target.digest} is not a sha256 digest`));
    const session = openRepoSession(client, target.repo, signal);
    try {
      const sig = await checkCosignSigTag(session, target, options.keys, limits);
      if (E.isRight(sig) && sig.right._tag === 'Verified') return sig;
      const bundle = await checkSigstoreBundles(session, target, trust, limits);
      if (E.isRight(bundle) && bundle.right._tag === 'Verified') return bundle;
      if (E.isLeft(sig)) return sig;
      if (E.isLeft(bundle)) return bundle;
      return E.right(
        notVerified(
          joinWhys(
            sig.right._tag === 'NotVerified' ? sig.right.why : '',
            bundle.right._tag === 'NotVerified' ? bundle.right.why : '',
          ),
        ),
      );
    } finally {
      report(target, { ...session.count });
    }
  };

  return {
    verify: (target, signal) =>
      check(target, signal).catch((error: unknown) =>
        // A defect is no verdict either: the image waits, WARN, next tick.
        E.left(
          transport(
            `unexpected failure checking the signature of ${target.repo}@${target.digest}: ${error instanceof Error ? error.message : String(error)}`,
          ),
        ),
      ),
  };
};
