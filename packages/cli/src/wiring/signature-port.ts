import type { SignaturePort, TickConfig } from '@image-refresh/core';
import type { KeylessTrust, TrustedKey } from '@image-refresh/k8s-adapter';
import { createSignatureVerifier } from '@image-refresh/k8s-adapter';

// Issue 15: the signature check on the registry the tick resolves from,
// with the same REGISTRY_TIMEOUT per request and the tick's signal, which
// stops a check between requests. Built only when VERIFY_SIGNATURES ≠ off;
// @sigstore/* is imported only when a bundle must be verified.

export const signaturePort = (
  config: TickConfig,
  trust: { readonly keys: readonly TrustedKey[]; readonly keyless?: KeylessTrust },
  signal?: AbortSignal,
): SignaturePort => {
  const verifier = createSignatureVerifier({
    registry: {
      baseUrl: config.registryUrl,
      authUrl: config.authUrl,
      timeoutMs: config.registryTimeoutMs,
      ...(signal === undefined ? {} : { signal }),
    },
    keys: trust.keys,
    ...(trust.keyless === undefined ? {} : { keyless: trust.keyless }),
  });
  return { verify: (target) => () => verifier.verify(target, signal) };
};
