import { malformed, type RegistryError, unauthorized } from '@image-refresh/core';
import * as E from 'fp-ts/lib/Either.js';
import * as O from 'fp-ts/lib/Option.js';
import { basicAuthorization } from './credentials.js';
import { serverMessage } from './error-body.js';
import { describeRequest, exchange } from './http-exchange.js';
import { mayCarryCredential, type RegistryClient } from './registry-client.js';
import { statusError } from './status-error.js';
import type { BearerChallenge } from './www-authenticate.js';

// The bearer-token flow of the distribution spec (its token authentication
// specification): GET the challenge's realm with its service and one `scope`
// per repository, take `token` (or the OAuth2 `access_token`). Anonymous,
// unless REGISTRY_AUTH_FILE holds the registry host's credential: then it is
// sent as Basic to the realm the registry named, over https only (a plain
// http realm gets no credential, and the tick says so). The token itself
// never goes into a message — a malformed answer is described by its keys only.

/** `repository:tracebloc/jobs-manager:pull` — read-only, per the spec's scope grammar. */
export const pullScope = (repo: string): string => `repository:${repo}:pull`;

export const tokenUrl = (challenge: BearerChallenge, scopes: readonly string[]): URL => {
  const url = new URL(challenge.realm);
  if (O.isSome(challenge.service)) url.searchParams.set('service', challenge.service.value);
  // Repeated `scope=` params, not one space-joined value: what Docker's own
  // client sends and what distribution's token servers parse.
  for (const scope of scopes) url.searchParams.append('scope', scope);
  return url;
};

const describeKeys = (json: unknown): string =>
  typeof json === 'object' && json !== null && !Array.isArray(json)
    ? `an object with keys ${JSON.stringify(Object.keys(json).slice(0, 10))}`
    : `a ${Array.isArray(json) ? 'list' : typeof json}`;

const tokenOf = (what: string, body: string): E.Either<RegistryError, string> => {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch (_notJson) {
    return E.left(malformed(`${what} answered 200 with a body that is not JSON`));
  }
  const record = typeof json === 'object' && json !== null ? (json as Record<string, unknown>) : {};
  for (const key of ['token', 'access_token']) {
    const value = record[key];
    if (typeof value === 'string' && value !== '') return E.right(value);
  }
  return E.left(
    malformed(`${what} answered 200 without a token (neither "token" nor "access_token"; got ${describeKeys(json)})`),
  );
};

/**
 * A token answer is a few kilobytes of JSON. Now that a realm can be named
 * (IMAGE_REFRESH_AUTH_URL) or followed from a 401, a broken or hostile one must
 * not stream into a tick's 64 MiB: past this the body is not read, and what was
 * read fails to parse (Malformed).
 */
const TOKEN_BODY_LIMIT = 64 * 1024;

/** Marks a failure as the token request's: the tick then says so in the script's words (core, RegistryRequest). */
const ofToken = (error: RegistryError): RegistryError => ({ ...error, failedAt: 'token' });

/** The token request's headers: with the registry host's credential when there is one and the realm is https. */
const tokenHeaders = (
  client: RegistryClient,
  url: URL,
  what: string,
): E.Either<RegistryError, Record<string, string>> => {
  const accept = { Accept: 'application/json' };
  if (O.isNone(client.credential)) return E.right(accept);
  if (!mayCarryCredential(url))
    return E.left(
      unauthorized(
        `${what}: the registry names a plain http token realm, and the credentials for ${client.baseUrl.host} are sent over https only; they were not sent`,
      ),
    );
  return E.right({ ...accept, Authorization: basicAuthorization(client.credential.value) });
};

const askToken = async (client: RegistryClient, url: URL, what: string): Promise<E.Either<RegistryError, string>> => {
  const sent = tokenHeaders(client, url, what);
  if (E.isLeft(sent)) return sent;
  const answer = await exchange(client, 'GET', url, sent.right, TOKEN_BODY_LIMIT);
  if (E.isLeft(answer)) return E.left({ ...answer.left, message: `token endpoint: ${answer.left.message}` });
  const { status, headers, body } = answer.right;
  if (status === 200) return tokenOf(what, body);
  return E.left(statusError({ what, status, headers, detail: serverMessage(body), budget: O.none }));
};

export const requestToken = async (
  client: RegistryClient,
  challenge: BearerChallenge,
  scopes: readonly string[],
): Promise<E.Either<RegistryError, string>> => {
  const url = tokenUrl(challenge, scopes);
  return E.mapLeft(ofToken)(await askToken(client, url, `token endpoint ${describeRequest('GET', url)}`));
};
