import * as O from 'fp-ts/lib/Option.js';
import type { BearerChallenge } from './www-authenticate.js';

// Which token realm a tick may ask before it has seen the registry's 401
// (docs/behaviour.md §3.3). Knowing it saves the anonymous HEAD that would only learn the
// challenge: the operator names one (IMAGE_REFRESH_AUTH_URL), or the registry
// is Docker Hub's, whose realm and service the script hard-codes
// (`https://auth.docker.io/token?service=registry.docker.io`). Anything else
// stays unknown and is learned from the registry's challenge, as before. A
// realm chosen here is only a first guess: a 401 that names another realm
// wins (create-registry-port.ts).

/** Docker Hub's registry API host: the chart's default IMAGE_REFRESH_REGISTRY_URL. */
export const DOCKER_HUB_REGISTRY_HOST = 'registry-1.docker.io';

/** Docker Hub's token realm, as the script asks it. */
export const DOCKER_HUB_REALM: BearerChallenge = {
  realm: new URL('https://auth.docker.io/token'),
  service: O.some('registry.docker.io'),
  scope: O.none,
  error: O.none,
};

/**
 * `https://host/token?service=x` → realm `https://host/token`, service `x`;
 * other query parameters stay. Throws on a URL that is not http(s), as
 * `registryClient` does on a bad base URL: the config has validated it, so
 * this is a caller's mistake, never a reason to guess.
 */
const realmOf = (authUrl: string): BearerChallenge => {
  const realm = new URL(authUrl);
  if (realm.protocol !== 'https:' && realm.protocol !== 'http:') {
    throw new TypeError(`a token realm must be an http(s) URL, not ${realm.protocol}`);
  }
  const service = realm.searchParams.get('service');
  realm.searchParams.delete('service');
  return { realm, service: O.fromNullable(service), scope: O.none, error: O.none };
};

/**
 * The realm to ask for a token before the first HEAD, if one is known:
 * `authUrl` when given (the config's IMAGE_REFRESH_AUTH_URL, validated
 * there), else Docker Hub's for Docker Hub's registry over https, else none.
 */
export const knownRealm = (registryUrl: URL, authUrl: string | undefined): O.Option<BearerChallenge> => {
  if (authUrl !== undefined) return O.some(realmOf(authUrl));
  return registryUrl.protocol === 'https:' && registryUrl.hostname === DOCKER_HUB_REGISTRY_HOST
    ? O.some(DOCKER_HUB_REALM)
    : O.none;
};

/**
 * Whether a 401's challenge sends the client elsewhere than the realm its
 * token came from: another realm URL (query aside), or another service. Then
 * the token was the wrong one and the challenge's realm is asked instead; the
 * same realm again means the token lacked this repository's scope.
 */
export const namesAnotherRealm = (asked: BearerChallenge, challenge: BearerChallenge): boolean => {
  const where = (url: URL): string => `${url.origin}${url.pathname}`;
  if (where(asked.realm) !== where(challenge.realm)) return true;
  return O.isSome(challenge.service) && O.getOrElse(() => '')(asked.service) !== challenge.service.value;
};
