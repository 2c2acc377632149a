import type { SignaturePort, TickConfig } from '@image-refresh/core';
import type { KeylessTrust, RegistryCredentials, TrustedKey } from '@image-refresh/k8s-adapter';
import { createSignatureVerifier } from '@image-refresh/k8s-adapter';

// The signature check (docs/behaviour.md §3.4a step 3) on the registry the tick
// resolves from, with the same REGISTRY_TIMEOUT per request and the tick's
// signals (its end, its interruption), which end a request in flight and stop a
// check between requests. Built only when VERIFY_SIGNATURES ≠ off; @sigstore/*
// is imported only when a bundle must be verified.

/** The tick's end and its interruption, and the registry access of the tick, as the registry port takes them (RegistryPortOptions). */
export interface TickSignals {
  readonly signal?: AbortSignal;
  readonly abortReads?: AbortSignal;
  readonly credentials?: RegistryCredentials;
  readonly ca?: string;
}

export const signaturePort = (
  config: TickConfig,
  trust: { readonly keys: readonly TrustedKey[]; readonly keyless?: KeylessTrust },
  signals: TickSignals = {},
): SignaturePort => {
  const verifier = createSignatureVerifier({
    registry: {
      baseUrl: config.registryUrl,
      authUrl: config.authUrl,
      timeoutMs: config.registryTimeoutMs,
      ...signals,
    },
    keys: trust.keys,
    ...(trust.keyless === undefined ? {} : { keyless: trust.keyless }),
  });
  // The registry client's own signals stop a check between requests (repo-session.ts).
  return { verify: (target) => () => verifier.verify(target) };
};
