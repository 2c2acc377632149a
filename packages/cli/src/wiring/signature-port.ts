import type { SignaturePort, TickConfig } from '@image-refresh/core';
import type { KeylessTrust, RegistryCredentials, RegistryHosts, TrustedKey } from '@image-refresh/k8s-adapter';
import { createSignatureVerifier, endpointOf, perHost, routedSignaturePort } from '@image-refresh/k8s-adapter';

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
  /** How each registry host is reached (wiring/registry-hosts.ts); unset: Docker Hub's by the config's URLs. */
  readonly hosts?: RegistryHosts;
}

export const signaturePort = (
  config: TickConfig,
  trust: { readonly keys: readonly TrustedKey[]; readonly keyless?: KeylessTrust },
  signals: TickSignals = {},
): SignaturePort => {
  const { hosts = { dockerHub: { baseUrl: config.registryUrl, authUrl: config.authUrl } }, ...access } = signals;
  // Each digest's signatures are read on its image's own host; the registry
  // client's own signals stop a check between requests (repo-session.ts).
  const verifierOn = perHost((host) =>
    createSignatureVerifier({
      registry: { ...endpointOf(hosts, host), timeoutMs: config.registryTimeoutMs, ...access },
      keys: trust.keys,
      ...(trust.keyless === undefined ? {} : { keyless: trust.keyless }),
    }),
  );
  return routedSignaturePort((host) => ({ verify: (target) => () => verifierOn(host).verify(target) }));
};
