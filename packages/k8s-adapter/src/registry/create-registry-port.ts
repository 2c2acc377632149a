import { type DigestRequest, type RegistryError, type RegistryPort, transport } from '@image-refresh/core';
import * as E from 'fp-ts/lib/Either.js';
import * as O from 'fp-ts/lib/Option.js';
import { headManifest } from './manifest-head.js';
import { redactAnswer } from './redact.js';
import { type RegistryPortOptions, registryClient } from './registry-client.js';
import { type Answer, type FetchToken, resolveOne, resolveWithOwnToken } from './resolve-one.js';
import { pullScope, requestToken } from './token-request.js';
import type { BearerChallenge } from './www-authenticate.js';

// core's RegistryPort on the OCI distribution API (SPEC §3.3).
//
// Request budget of one resolveDigests(n repos), all answers 200:
//   - challenge unknown (the CronJob's only tick per process): 1 anonymous
//     HEAD of the first repo (it is the answer on an anonymous registry; on a
//     token registry it yields the 401 challenge), 1 token request carrying
//     every repo's scope, n HEADs with that token → n + 2 requests;
//   - challenge known (a later call on the same port): 1 token + n HEADs.
//   - anonymous registry: n HEADs, no token.
// Tokens are not kept between calls: Docker Hub's live 300 s, a tick comes
// every 15 min. Realm and service are kept: they do not change.
//
// Each repo's answer stands alone (I15): a refused batched token falls back to
// a per-repo token for that repo; a failure of one repo is that repo's Left.
// After the token, repos resolve concurrently, so the pass takes at most 5
// request bounds (probe, token, HEAD, own token, HEAD) — within core's
// 3 × n bound for n ≥ 2, and 3 for n = 1, where no own-token retry exists.

type Requests = readonly DigestRequest[];

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
 * Core's `RegistryPort` on the OCI distribution API (SPEC §3.3): per repo a
 * manifest HEAD with the four manifest media types in one Accept, anonymous
 * bearer tokens fetched from the registry's own challenge (one token for all
 * repos when it allows), never a GET (a GET counts as a pull on Docker Hub).
 *
 * Promises: each repo's answer stands alone (I15) — a 429 is `RateLimited`,
 * 401/403 `Forbidden`, 404 `NotFound`, a request past `timeoutMs` `Timeout`,
 * a 200 without a digest or token `Malformed`, anything else `Transport`;
 * the digest comes back unvalidated (the tick
 * checks it, I19); tokens never appear in an error. The port may be reused
 * across ticks; it keeps only the registry's challenge, never a token.
 *
 * @param options - the registry base URL (the config's `registryUrl`), the
 *   per-request bound, a fetch for tests, a rate-limit callback.
 */
export const createRegistryPort = (options: RegistryPortOptions): RegistryPort => {
  const client = registryClient(options);
  let knownChallenge: O.Option<BearerChallenge> = O.none;

  const resolveAll = async (first: DigestRequest, requests: Requests, fetchToken: FetchToken): Promise<Answer[]> => {
    let challenge: BearerChallenge;
    if (O.isSome(knownChallenge)) {
      challenge = knownChallenge.value;
    } else {
      const probe = await headManifest(client, first, O.none).catch((error: unknown) => ({
        _tag: 'Answered' as const,
        answer: defect(first)(error),
      }));
      if (probe._tag === 'Answered') {
        // An anonymous registry (or a failure that carries no challenge): the
        // probe is the first repo's answer; the others try on their own.
        const rest = requests
          .slice(1)
          .map((request) => guarded(request, () => resolveOne(client, fetchToken, request, O.none, true)));
        return [probe.answer, ...(await Promise.all(rest))];
      }
      challenge = probe.challenge;
      knownChallenge = O.some(challenge);
    }

    const scopes = [...new Set(requests.map(({ repo }) => pullScope(repo)))];
    const batched = scopes.length > 1;
    const token = await fetchToken(challenge, scopes);
    if (E.isRight(token)) {
      return Promise.all(
        requests.map((request) =>
          guarded(request, () => resolveOne(client, fetchToken, request, O.some(token.right), batched)),
        ),
      );
    }
    // Learn the challenge again next time: the realm may have moved.
    knownChallenge = O.none;
    if (!batched || !mayBeBatchRefusal(token.left)) return requests.map(() => token);
    // The token server refused the batch: maybe the multi-scope bug, so each
    // repo asks for its own.
    return Promise.all(
      requests.map((request) => guarded(request, () => resolveWithOwnToken(client, fetchToken, request, challenge))),
    );
  };

  return {
    resolveDigests: (requests) => async () => {
      const [first] = requests;
      if (first === undefined) return [];
      const tokens: string[] = [];
      const fetchToken: FetchToken = async (challenge, scopes) => {
        const token = await requestToken(client, challenge, scopes);
        if (E.isRight(token)) tokens.push(token.right);
        return token;
      };
      const answers = await resolveAll(first, requests, fetchToken);
      return answers.map(redactAnswer(tokens));
    },
  };
};
