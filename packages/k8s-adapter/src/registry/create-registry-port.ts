import { type DigestRequest, type RegistryError, type RegistryPort, transport } from '@image-refresh/core';
import * as E from 'fp-ts/lib/Either.js';
import * as O from 'fp-ts/lib/Option.js';
import { type PingOutcome, pingApi } from './api-ping.js';
import { knownRealm } from './known-realm.js';
import { headManifest } from './manifest-head.js';
import { redactAnswer } from './redact.js';
import { type RegistryPortOptions, registryClient } from './registry-client.js';
import {
  type Answer,
  type FetchToken,
  type FollowChallenge,
  resolveOne,
  resolveWithKnownRealm,
  resolveWithOwnToken,
} from './resolve-one.js';
import { pullScope, requestToken } from './token-request.js';
import type { BearerChallenge } from './www-authenticate.js';

// core's RegistryPort on the OCI distribution API (docs/behaviour.md §3.3).
//
// Request budget of one resolveDigests(n repos), all answers 200:
//   - realm known before any 401 (Docker Hub's registry, or
//     IMAGE_REFRESH_AUTH_URL; known-realm.ts), or learned by an
//     earlier call on the same port: 1 token request carrying every repo's
//     scope, n HEADs with that token → n + 1 requests;
//   - realm unknown, no credential for the host: first 1 anonymous HEAD of
//     the first repo (it is the answer on an anonymous registry; on a token
//     registry it yields the 401 challenge), then as above → n + 2 requests;
//   - realm unknown, a credential for the host: 1 GET /v2/ learns the
//     challenge (api-ping.ts), then 1 token request and n HEADs → n + 2
//     requests, one HEAD per repo; with Basic, n HEADs after the ping;
//   - anonymous registry, realm unknown: n HEADs, no token.
// Tokens are not kept between calls: Docker Hub's live 300 s, a tick comes
// every 15 min. Realm and service are kept: they do not change.
//
// A known realm is a first guess: a 401 after its token whose challenge names
// another realm sends those repos through the challenge flow in the same call
// (a token from the challenge's realm, then HEADs).
//
// Each repo's answer stands alone (I15): a refused batched token falls back to
// a per-repo token for that repo; a failure of one repo is that repo's Left.
// After the token, repos resolve concurrently, so the pass takes at most 6
// request bounds (known token, HEAD, challenge's token, HEAD, own token,
// HEAD) — within core's 3 × n + 1 bound for n ≥ 2; for n = 1, where no
// own-token retry exists, at most 4.

type Requests = readonly DigestRequest[];

interface FirstRealm {
  readonly challenge: BearerChallenge;
  /** Chosen before this registry's 401 (known-realm.ts): a 401 naming another realm is followed. */
  readonly guessed: boolean;
}

const defect = (request: DigestRequest) => (error: unknown) =>
  E.left(
    transport(
      `unexpected failure resolving ${request.repo}:${request.tag}: ${error instanceof Error ? error.message : String(error)}`,
    ),
  );

/**
 * A 4xx or a 200 without a token may be the token server choking on several
 * scopes; a timeout, a dead connection, a 5xx or a 429 would only repeat per
 * repo, n times slower.
 */
const mayBeBatchRefusal = (error: RegistryError): boolean =>
  error._tag === 'Malformed' ||
  (error._tag !== 'RateLimited' && error.status !== undefined && error.status >= 400 && error.status < 500);

/** One repo's answer, whatever happens inside: a throw must not take the batch down (I15). */
const guarded = (request: DigestRequest, answer: () => Promise<Answer>): Promise<Answer> =>
  answer().catch(defect(request));

/**
 * Core's `RegistryPort` on the OCI distribution API (docs/behaviour.md §3.3): per repo a
 * manifest HEAD with the four manifest media types in one Accept, anonymous
 * bearer tokens (one for all repos when the token server allows) from a realm
 * known up front — Docker Hub's, or `options.authUrl` — else from the
 * registry's own challenge, learned with one anonymous HEAD, never a GET (a GET counts as a pull on Docker Hub).
 *
 * Promises: each repo's answer stands alone (I15) — a 429 is `RateLimited`,
 * 401 `Unauthorized`, 403 `Forbidden`, 404 `NotFound`, a request past `timeoutMs` `Timeout`,
 * a 200 without a digest or token `Malformed`, anything else `Transport`;
 * the digest comes back unvalidated (the tick
 * checks it, I19); tokens never appear in an error. The port may be reused
 * across ticks; it keeps only the registry's challenge, never a token.
 * A realm known up front that the registry's 401 contradicts gives way to the
 * registry's in the same call.
 *
 * @param options - the registry base URL (the config's `registryUrl`), the
 *   token realm if known (`authUrl`), the per-request bound, a fetch for
 *   tests, a rate-limit callback.
 */
export const createRegistryPort = (options: RegistryPortOptions): RegistryPort => {
  const client = registryClient(options);
  /** The realm the next call asks first; `guessed` until this registry's own 401 has named it. */
  const configured: O.Option<FirstRealm> = O.map((challenge: BearerChallenge) => ({ challenge, guessed: true }))(
    knownRealm(client.baseUrl, options.authUrl),
  );
  let first: O.Option<FirstRealm> = configured;
  const learned = (challenge: BearerChallenge): void => {
    first = O.some({ challenge, guessed: false });
  };

  /** One repo, once the batch's token from `challenge`'s realm has been asked for. */
  const withBatchToken = (
    fetchToken: FetchToken,
    request: DigestRequest,
    challenge: BearerChallenge,
    token: E.Either<RegistryError, string>,
    batched: boolean,
  ): Promise<Answer> => {
    if (E.isRight(token)) return resolveOne(client, fetchToken, request, O.some(token.right), batched);
    // The token server refused the batch: maybe the multi-scope bug, so this
    // repo asks for its own.
    return batched && mayBeBatchRefusal(token.left)
      ? resolveWithOwnToken(client, fetchToken, request, challenge)
      : Promise.resolve(token);
  };

  /**
   * After a guessed realm's token met a 401 naming another realm: that
   * realm's challenge flow, with one token for the batch's scopes shared by
   * every repo sent there.
   */
  const followerFor = (fetchToken: FetchToken, scopes: readonly string[], batched: boolean): FollowChallenge => {
    const tokens = new Map<string, Promise<E.Either<RegistryError, string>>>();
    return async (challenge, request) => {
      learned(challenge);
      const key = `${challenge.realm.href} ${O.getOrElse(() => '')(challenge.service)}`;
      const pending = tokens.get(key) ?? fetchToken(challenge, scopes);
      tokens.set(key, pending);
      const token = await pending;
      if (E.isLeft(token)) first = configured;
      return withBatchToken(fetchToken, request, challenge, token, batched);
    };
  };

  /**
   * One token for every repo from `challenge`'s realm, then a HEAD per repo.
   * `guessed`: the realm was not learned from this registry's 401, so a 401
   * naming another realm is followed rather than answered.
   */
  const resolveWithToken = async (
    challenge: BearerChallenge,
    requests: Requests,
    fetchToken: FetchToken,
    guessed: boolean,
  ): Promise<Answer[]> => {
    const scopes = [...new Set(requests.map(({ repo }) => pullScope(repo)))];
    const batched = scopes.length > 1;
    const token = await fetchToken(challenge, scopes);
    // Learn the challenge again next time: the realm may have moved.
    if (E.isLeft(token)) first = configured;
    const follow = followerFor(fetchToken, scopes, batched);
    return Promise.all(
      requests.map((request) =>
        guarded(request, () =>
          guessed && E.isRight(token)
            ? resolveWithKnownRealm(client, fetchToken, request, challenge, token.right, batched, follow)
            : withBatchToken(fetchToken, request, challenge, token, batched),
        ),
      ),
    );
  };

  const resolveAll = async (head: DigestRequest, requests: Requests, fetchToken: FetchToken): Promise<Answer[]> => {
    if (O.isSome(first)) {
      return resolveWithToken(first.value.challenge, requests, fetchToken, first.value.guessed);
    }
    // With a credential for this host, the challenge comes from GET /v2/ (api-ping.ts): one HEAD per image.
    const ping: PingOutcome = O.isSome(client.credential) ? await pingApi(client) : { _tag: 'Undecided' };
    if (ping._tag === 'Bearer') {
      learned(ping.challenge);
      return resolveWithToken(ping.challenge, requests, fetchToken, false);
    }
    if (ping._tag === 'Ready') {
      return Promise.all(
        requests.map((request) => guarded(request, () => resolveOne(client, fetchToken, request, O.none, true))),
      );
    }
    const probe = await headManifest(client, head, O.none).catch((error: unknown) => ({
      _tag: 'Answered' as const,
      answer: defect(head)(error),
    }));
    if (probe._tag === 'Answered') {
      // An anonymous registry (or a failure that carries no challenge): the
      // probe is the first repo's answer; the others try on their own.
      const rest = requests
        .slice(1)
        .map((request) => guarded(request, () => resolveOne(client, fetchToken, request, O.none, true)));
      return [probe.answer, ...(await Promise.all(rest))];
    }
    learned(probe.challenge);
    return resolveWithToken(probe.challenge, requests, fetchToken, false);
  };

  return {
    resolveDigests: (requests) => async () => {
      const [head] = requests;
      if (head === undefined) return [];
      const tokens: string[] = [];
      const fetchToken: FetchToken = async (challenge, scopes) => {
        const token = await requestToken(client, challenge, scopes);
        if (E.isRight(token)) tokens.push(token.right);
        return token;
      };
      const answers = await resolveAll(head, requests, fetchToken);
      return answers.map(redactAnswer([...tokens, ...client.secrets]));
    },
  };
};
