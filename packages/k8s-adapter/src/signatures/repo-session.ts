import { type RegistryError, timeout, unauthorized } from '@image-refresh/core';
import * as E from 'fp-ts/lib/Either.js';
import * as O from 'fp-ts/lib/Option.js';
import { basicOnceAsked, takesBasicNow } from '../registry/basic-auth.js';
import { serverMessage } from '../registry/error-body.js';
import { describeRequest, exchange } from '../registry/http-exchange.js';
import type { HeaderReader } from '../registry/http-transport.js';
import { rateLimitBudget } from '../registry/rate-limit.js';
import { REDACTED } from '../registry/redact.js';
import { isStopped, type RegistryClient } from '../registry/registry-client.js';
import { statusError } from '../registry/status-error.js';
import { pullScope, requestToken } from '../registry/token-request.js';
import { bearerChallenge } from '../registry/www-authenticate.js';

// The registry requests of one signature check, in one repository, on the
// registry port's own transport (REGISTRY_TIMEOUT and its AbortSignal per
// request, TLS always verified, http-exchange.ts) and its anonymous token flow
// (token-request.ts): the first 401 yields the challenge, one pull token for
// this repo is fetched and every later request carries it. Each request is
// counted, and each manifest GET separately: Docker Hub counts those as pulls.

/** What one request found: a 200's body, a 404, or a 200 whose body was longer than the cap. */
export type Found =
  | { readonly _tag: 'Found'; readonly body: string; readonly headers: HeaderReader; readonly what: string }
  | { readonly _tag: 'Absent'; readonly what: string }
  | { readonly _tag: 'TooLarge'; readonly what: string; readonly limit: number };

/** What one signature check cost on the wire. */
export interface RequestCount {
  /** Every request sent, token requests included. */
  requests: number;
  /** Manifest GETs: what Docker Hub counts against the pull budget (a HEAD does not count). */
  manifestGets: number;
}

export interface RepoSession {
  readonly count: RequestCount;
  head(path: string, accept: string): Promise<E.Either<RegistryError, Found>>;
  get(path: string, accept: string, maxBytes: number): Promise<E.Either<RegistryError, Found>>;
  /** `manifests/<reference>`, `blobs/<digest>`, `referrers/<digest>` under this repo. */
  path(kind: 'manifests' | 'blobs' | 'referrers', reference: string): string;
}

export const openRepoSession = (
  client: RegistryClient,
  repo: string,
  signal?: AbortSignal,
  /** What the reads are for, as a stopped read names it. */
  purpose = 'signature check',
): RepoSession => {
  const count: RequestCount = { requests: 0, manifestGets: 0 };
  const tokens: string[] = [...client.secrets];
  let token: O.Option<string> = O.none;
  const repoPath = repo.split('/').map(encodeURIComponent).join('/');

  const redact = (error: RegistryError): RegistryError => {
    const message = tokens.reduce((text, secret) => text.split(secret).join(REDACTED), error.message);
    return message === error.message ? error : { ...error, message };
  };

  const send = async (method: 'HEAD' | 'GET', path: string, accept: string, maxBytes: number | undefined) => {
    const url = new URL(path, client.baseUrl);
    const headers: Record<string, string> = { Accept: accept };
    if (O.isSome(token)) headers.Authorization = `Bearer ${token.value}`;
    else {
      const basic = basicOnceAsked(client);
      if (O.isSome(basic)) headers.Authorization = basic.value;
    }
    count.requests += 1;
    if (method === 'GET' && path.includes('/manifests/')) count.manifestGets += 1;
    // A blob's GET may be redirected to its storage (storage-redirect.ts).
    const followsStorageRedirect = method === 'GET' && path.includes('/blobs/');
    return {
      what: describeRequest(method, url),
      answer: await exchange(client, method, url, headers, maxBytes, followsStorageRedirect),
    };
  };

  const request = async (
    method: 'HEAD' | 'GET',
    path: string,
    accept: string,
    maxBytes: number | undefined,
  ): Promise<E.Either<RegistryError, Found>> => {
    // The tick's budget (the caller's signal, and the client's own: the tick
    // over or interrupted) is checked between requests; each request in
    // flight is bounded by REGISTRY_TIMEOUT on its own.
    if (signal?.aborted === true || isStopped(client))
      return E.left(timeout(`${purpose} of ${repo} stopped before ${method} ${path}: the tick's budget ran out`));
    let sent = await send(method, path, accept, maxBytes);
    if (E.isRight(sent.answer) && sent.answer.right.status === 401 && O.isNone(token)) {
      const offered = sent.answer.right.headers.get('www-authenticate');
      const challenge = bearerChallenge(offered);
      if (O.isNone(challenge) && takesBasicNow(client, offered)) {
        sent = await send(method, path, accept, maxBytes);
      } else if (O.isSome(challenge)) {
        count.requests += 1;
        const fetched = await requestToken(client, challenge.value, [pullScope(repo)]);
        if (E.isLeft(fetched)) return E.left(redact(fetched.left));
        tokens.push(fetched.right);
        token = O.some(fetched.right);
        sent = await send(method, path, accept, maxBytes);
      }
    }
    const { what, answer } = sent;
    if (E.isLeft(answer)) return E.left(redact(answer.left));
    const { status, headers, body } = answer.right;
    const budget = rateLimitBudget(headers, repo);
    if (O.isSome(budget)) client.onRateLimit(budget.value);
    if (status === 200) {
      if (maxBytes !== undefined && Buffer.byteLength(body) > maxBytes)
        return E.right({ _tag: 'TooLarge', what, limit: maxBytes });
      return E.right({ _tag: 'Found', body, headers, what });
    }
    if (status === 404) return E.right({ _tag: 'Absent', what });
    if (status === 401) {
      return E.left(
        unauthorized(
          `${what} answered HTTP 401${O.isSome(token) ? ' even with a pull token for it' : ' without a Bearer challenge'} (${client.credentialNote}): the repository is private, not readable with these credentials, or does not exist`,
          401,
        ),
      );
    }
    return E.left(redact(statusError({ what, status, headers, detail: serverMessage(body), budget })));
  };

  return {
    count,
    head: (path, accept) => request('HEAD', path, accept, undefined),
    get: (path, accept, maxBytes) => request('GET', path, accept, maxBytes),
    // A digest's `:` stays as it is: a reference is [A-Za-z0-9_.:-], anything else is escaped.
    path: (kind, reference) => `v2/${repoPath}/${kind}/${reference.replace(/[^A-Za-z0-9_.:-]/g, encodeURIComponent)}`,
  };
};
