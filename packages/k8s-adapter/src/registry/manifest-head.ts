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
import { describeRequest, exchange } from './http-exchange.js';
import { MANIFEST_ACCEPT } from './media-types.js';
import { rateLimitBudget } from './rate-limit.js';
import type { RegistryClient } from './registry-client.js';
import { statusError } from './status-error.js';
import { type BearerChallenge, bearerChallenge } from './www-authenticate.js';

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

export const headManifest = async (
  client: RegistryClient,
  request: DigestRequest,
  token: O.Option<string>,
): Promise<HeadOutcome> => {
  const url = manifestUrl(client, request);
  const what = describeRequest('HEAD', url);
  const headers: Record<string, string> = { Accept: MANIFEST_ACCEPT };
  if (O.isSome(token)) headers.Authorization = `Bearer ${token.value}`;
  const result = await exchange(client, 'HEAD', url, headers);
  if (E.isLeft(result)) return answered(result);
  const { status, headers: reply } = result.right;

  if (status === 401) {
    const challenge = bearerChallenge(reply.get('www-authenticate'));
    if (O.isSome(challenge)) return { _tag: 'Challenged', challenge: challenge.value, what };
    const sent = reply.get('www-authenticate');
    return answered(
      E.left(
        unauthorized(
          `${what} answered HTTP 401 with ${sent === null ? 'no challenge' : `a challenge other than an anonymous Bearer token (${sent.slice(0, DIGEST_SHOWN)})`}; this job only holds anonymous pull access`,
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

/** A 401 that survived the anonymous token we fetched for it: this job sent no credentials, and the repository wants some or is not there. */
export const refusedAfterAuth = (outcome: { challenge: BearerChallenge; what: string }): RegistryError => {
  const error = O.getOrElse(() => 'no error code')(outcome.challenge.error);
  // Docker Hub answers a private and a missing repository alike: say both.
  return unauthorized(
    `${outcome.what} answered HTTP 401 (${error}) even with an anonymous pull token for it (this job sends no credentials): the repository is private or does not exist`,
    401,
  );
};
