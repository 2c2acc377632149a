import {
  type DigestRequest,
  type FleetHaltPort,
  malformed,
  type PlatformPort,
  type RegistryError,
  type RegistryPort,
  type Resolution,
  type SignaturePort,
} from '@image-refresh/core';
import * as E from 'fp-ts/lib/Either.js';

// Every image is asked where it lives (docs/configuration.md, "The
// registry"): a repository's host is also its registry API's host
// (`https://<host>`), except Docker Hub's, which keeps
// IMAGE_REFRESH_REGISTRY_URL and IMAGE_REFRESH_AUTH_URL — they belong to
// Docker Hub alone. REGISTRY_PLAIN_HTTP names the hosts reached over plain
// http, as containerd's insecure registries; credentials never go there
// (credentials.ts sends them over https only).

/** Docker Hub's canonical host, as an image reference names it. */
export const DOCKER_HUB_HOST = 'docker.io';

/** Where one registry is reached: its API base, and its token realm when known up front. */
export interface RegistryEndpoint {
  readonly baseUrl: string;
  readonly authUrl?: string | undefined;
}

/** How each registry host is reached. */
export interface RegistryHosts {
  /** Docker Hub's API base and realm (IMAGE_REFRESH_REGISTRY_URL, IMAGE_REFRESH_AUTH_URL). */
  readonly dockerHub: RegistryEndpoint;
  /** REGISTRY_PLAIN_HTTP: `host[:port]`s reached over http://, every other host over https://. */
  readonly plainHttp?: readonly string[];
}

/** Where `host` (`docker.io`, `ghcr.io`, `harbor.example:8443`) is reached. */
export const endpointOf = (hosts: RegistryHosts, host: string): RegistryEndpoint =>
  host === DOCKER_HUB_HOST
    ? hosts.dockerHub
    : { baseUrl: `${hosts.plainHttp?.includes(host) === true ? 'http' : 'https'}://${host}` };

/**
 * One of `make`'s per host, made when a host is first asked for and kept: a
 * registry port keeps what it learned of its registry (the token realm)
 * between calls.
 */
export const perHost = <T>(make: (host: string) => T): ((host: string) => T) => {
  const made = new Map<string, T>();
  return (host) => {
    const known = made.get(host);
    if (known !== undefined) return known;
    const fresh = make(host);
    made.set(host, fresh);
    return fresh;
  };
};

type Answer = E.Either<RegistryError, Resolution>;

const unanswered = (request: DigestRequest): Answer =>
  E.left(malformed(`the registry port of ${request.host} gave no answer for ${request.repo}:${request.tag}`));

/**
 * A RegistryPort that asks each request's own host: one batch per host (one
 * token request per host where the registry wants one), the hosts at once,
 * the answers in the order of the requests.
 */
export const routedRegistryPort = (portFor: (host: string) => RegistryPort): RegistryPort => ({
  resolveDigests: (requests) => async () => {
    const hosts = [...new Set(requests.map((r) => r.host))];
    const batches = await Promise.all(
      hosts.map((host) => portFor(host).resolveDigests(requests.filter((r) => r.host === host))()),
    );
    const answered = new Map(hosts.map((host, i) => [host, [...(batches[i] ?? [])]]));
    return requests.map((request) => answered.get(request.host)?.shift() ?? unanswered(request));
  },
});

/** A SignaturePort that reads each digest's signatures on its image's own host. */
export const routedSignaturePort = (portFor: (host: string) => SignaturePort): SignaturePort => ({
  verify: (target) => portFor(target.host).verify(target),
});

/** A FleetHaltPort that reads the halt's document on the host it is published on. */
export const routedFleetHaltPort = (portFor: (host: string) => FleetHaltPort): FleetHaltPort => ({
  readDocument: (target) => portFor(target.host).readDocument(target),
});

/** A PlatformPort that reads each manifest on its image's own host. */
export const routedPlatformPort = (portFor: (host: string) => PlatformPort): PlatformPort => ({
  read: (target) => portFor(target.host).read(target),
});
