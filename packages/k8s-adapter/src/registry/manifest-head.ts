import {
  type DigestRequest,
  isWellFormedDigest,
  malformed,
  type RegistryError,
  type Resolution,
  unauthorized,
} from '@image-refresh/core';
import * as E from 'fp-ts/lib/Either.js';
import * as O from 'fp-ts/lib/Option.js';
import { basicOnceAsked, takesBasicNow } from './basic-auth.js';
import { describeRequest, exchange } from './http-exchange.js';
import { MANIFEST_ACCEPT } from './media-types.js';
import { rateLimitBudget } from './rate-limit.js';
import type { RegistryClient } from './registry-client.js';
import { statusError } from './status-error.js';
import { type BearerChallenge, bearerChallenge, isBasicChallenge } from './www-authenticate.js';

// One `HEAD /v2/<repo>/manifests/<tag>`: the only request that touches a
// manifest. Never a GET — on Docker Hub a GET counts as a pull against the
// 100 / 6 h budget and a HEAD does not (Docker Hub's rate-limit documentation).

export type HeadOutcome =
  /** The registry's final word on this repo:tag. */
  | { readonly _tag: 'Answered'; readonly answer: E.Either<RegistryError, Resolution> }
  /** 401 with a Bearer challenge we can answer with an anonymous token. */
  | { readonly _tag: 'Challenged'; readonly challenge: BearerChallenge; readonly what: string };

const answered = (answer: E.Either<RegistryError, Resolution>): HeadOutcome => ({ _tag: 'Answered', answer });

export const manifestUrl = (client: RegistryClient, { repo, tag }: DigestRequest): URL =>
  new URL(
    `v2/${repo.split('/').map(encodeURIComponent).join('/')}/manifests/${encodeURIComponent(tag)}`,
    client.baseUrl,
  );

const DIGEST_SHOWN = 100;

/** What a HEAD authenticates with: a bearer token when there is one, else Basic once this registry asked for it. */
const authorizationOf = (client: RegistryClient, token: O.Option<string>): O.Option<string> =>
  O.isSome(token) ? O.some(`Bearer ${token.value}`) : basicOnceAsked(client);

export const headManifest = async (
  client: RegistryClient,
  request: DigestRequest,
  token: O.Option<string>,
): Promise<HeadOutcome> => {
  const url = manifestUrl(client, request);
  const what = describeRequest('HEAD', url);
  const headers: Record<string, string> = { Accept: MANIFEST_ACCEPT };
  const authorization = authorizationOf(client, token);
  if (O.isSome(authorization)) headers.Authorization = authorization.value;
  const result = await exchange(client, 'HEAD', url, headers);
  if (E.isLeft(result)) return answered(result);
  const { status, headers: reply } = result.right;

  if (status === 401) {
    const sent = reply.get('www-authenticate');
    const challenge = bearerChallenge(sent);
    if (O.isSome(challenge)) return { _tag: 'Challenged', challenge: challenge.value, what };
    if (O.isNone(authorization) && takesBasicNow(client, sent)) return headManifest(client, request, token);
    const answer =
      sent === null
        ? 'no challenge'
        : isBasicChallenge(sent)
          ? 'a Basic challenge'
          : `a challenge other than Bearer or Basic (${sent.slice(0, DIGEST_SHOWN)})`;
    return answered(
      E.left(
        unauthorized(
          `${what} answered HTTP 401 with ${answer}${O.isSome(authorization) ? ' even with credentials' : ''}; ${client.credentialNote}`,
          401,
        ),
      ),
    );
  }

  const budget = rateLimitBudget(reply, request.repo);
  if (O.isSome(budget)) client.onRateLimit(budget.value);

  if (status !== 200) {
    // A HEAD carries no body: the status is all the registry said, so name what a 404 means here.
    const detail =
      status === 404 ? `manifest unknown (no tag ${request.tag} in ${request.repo}, or no such repository)` : undefined;
    return answered(E.left(statusError({ what, status, headers: reply, detail, budget })));
  }
  const digest = reply.get('docker-content-digest');
  if (digest === null)
    return answered(E.left(malformed(`${what} answered 200 without a Docker-Content-Digest header`)));
  // Defence in depth for I19: the tick checks it too, but a bad digest is a
  // bad answer from this registry and is reported as such, here.
  if (!isWellFormedDigest(digest)) {
    return answered(
      E.left(
        malformed(
          `${what} answered Docker-Content-Digest ${JSON.stringify(digest.slice(0, DIGEST_SHOWN))}, which is not an OCI digest`,
        ),
      ),
    );
  }
  return answered(E.right({ digest, rateLimitRemaining: O.map((b: { remaining: number }) => b.remaining)(budget) }));
};

/** A 401 that survived the token we fetched for it: the repository wants other credentials, or is not there. */
export const refusedAfterAuth = (
  client: RegistryClient,
  outcome: { challenge: BearerChallenge; what: string },
): RegistryError => {
  const error = O.getOrElse(() => 'no error code')(outcome.challenge.error);
  // Docker Hub answers a private and a missing repository alike: say both.
  return unauthorized(
    `${outcome.what} answered HTTP 401 (${error}) even with a pull token for it (${client.credentialNote}): the repository is private, not readable with these credentials, or does not exist`,
    401,
  );
};
