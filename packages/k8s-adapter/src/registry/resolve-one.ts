import type { DigestRequest, RegistryError, Resolution } from '@image-refresh/core';
import * as E from 'fp-ts/lib/Either.js';
import * as O from 'fp-ts/lib/Option.js';
import { namesAnotherRealm } from './known-realm.js';
import { type HeadOutcome, headManifest, refusedAfterAuth } from './manifest-head.js';
import type { RegistryClient } from './registry-client.js';
import { pullScope } from './token-request.js';
import type { BearerChallenge } from './www-authenticate.js';

// One repo's resolution once the batch has decided which token to start with.
// At most three requests, one after the other: HEAD, (on 401) a token for
// this repo alone, HEAD again — the per-repo fallback for a batched token the
// registry refused (Docker Hub has had bugs with multi-scope tokens). Core
// bounds the whole pass at three requests per repo (port-bounds.ts).

export type Answer = E.Either<RegistryError, Resolution>;

export type FetchToken = (
  challenge: BearerChallenge,
  scopes: readonly string[],
) => Promise<E.Either<RegistryError, string>>;

/** Fetch a token for this repo alone, then HEAD with it. A 401 after that is a refusal. */
export const resolveWithOwnToken = async (
  client: RegistryClient,
  fetchToken: FetchToken,
  request: DigestRequest,
  challenge: BearerChallenge,
): Promise<Answer> => {
  const token = await fetchToken(challenge, [pullScope(request.repo)]);
  if (E.isLeft(token)) return token;
  const head = await headManifest(client, request, O.some(token.right));
  return head._tag === 'Answered' ? head.answer : E.left(refusedAfterAuth(client, head));
};

/** What follows a HEAD: its answer, or on a 401 a token of this repo's own when allowed, else a refusal. */
const afterHead = async (
  client: RegistryClient,
  fetchToken: FetchToken,
  request: DigestRequest,
  head: HeadOutcome,
  mayFetchOwnToken: boolean,
): Promise<Answer> => {
  if (head._tag === 'Answered') return head.answer;
  return mayFetchOwnToken
    ? resolveWithOwnToken(client, fetchToken, request, head.challenge)
    : E.left(refusedAfterAuth(client, head));
};

/**
 * HEAD with `token` (none: anonymously). On a 401 challenge, fall back to a
 * token of this repo's own when `mayFetchOwnToken` — i.e. when the token we
 * started with was not already exactly that.
 */
export const resolveOne = async (
  client: RegistryClient,
  fetchToken: FetchToken,
  request: DigestRequest,
  token: O.Option<string>,
  mayFetchOwnToken: boolean,
): Promise<Answer> =>
  afterHead(client, fetchToken, request, await headManifest(client, request, token), mayFetchOwnToken);

/** The challenge flow of another realm, for one repo (create-registry-port.ts). */
export type FollowChallenge = (challenge: BearerChallenge, request: DigestRequest) => Promise<Answer>;

/**
 * As {@link resolveOne}, with a token from a realm known before any 401
 * (known-realm.ts): a 401 whose challenge names another realm is
 * handed to `follow`, the challenge flow of that realm.
 */
export const resolveWithKnownRealm = async (
  client: RegistryClient,
  fetchToken: FetchToken,
  request: DigestRequest,
  asked: BearerChallenge,
  token: string,
  mayFetchOwnToken: boolean,
  follow: FollowChallenge,
): Promise<Answer> => {
  const head = await headManifest(client, request, O.some(token));
  if (head._tag === 'Challenged' && namesAnotherRealm(asked, head.challenge)) return follow(head.challenge, request);
  return afterHead(client, fetchToken, request, head, mayFetchOwnToken);
};
