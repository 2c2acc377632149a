import { type RegistryError, timeout, transport } from '@image-refresh/core';
import * as E from 'fp-ts/lib/Either.js';
import { boundedCall } from '../bounds/bounded-call.js';
import type { HeaderReader } from './http-transport.js';
import { isStopped, type RegistryClient } from './registry-client.js';
import { isRedirect, redirectedRequest } from './storage-redirect.js';

// One HTTP request, bounded on its own (docs/behaviour.md §2 REGISTRY_TIMEOUT, I17): the
// signal covers connecting, the headers and the body, and it is boundedCall's —
// a composed platform signal can be collected mid-request on Node 20. TLS verification is
// Node's default — on, always; nothing here may pass a dispatcher or agent
// that could turn it off (http-transport.ts).

export interface Exchange {
  readonly status: number;
  readonly headers: HeaderReader;
  /** '' for a HEAD, or when the body was not asked for. */
  readonly body: string;
}

/** Method and URL without query or credentials: safe for a log line. */
export const describeRequest = (method: string, url: URL): string => `${method} ${url.origin}${url.pathname}`;

const causeOf = (error: unknown): string => {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause;
  // undici says "fetch failed" and keeps the useful part (ECONNREFUSED,
  // ENOTFOUND, a certificate error) in the cause.
  if (cause instanceof Error) {
    const code = (cause as { code?: unknown }).code;
    return typeof code === 'string' && !cause.message.includes(code)
      ? `${error.message}: ${code} ${cause.message}`
      : `${error.message}: ${cause.message}`;
  }
  return error.message;
};

const isAbort = (error: unknown): boolean =>
  error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError');

export const exchange = async (
  client: RegistryClient,
  method: 'HEAD' | 'GET',
  url: URL,
  headers: Readonly<Record<string, string>>,
  /** Read at most about this much of the body (see HttpInit.maxBodyBytes); unbounded when absent. */
  maxBodyBytes?: number,
  /** A GET of a blob: a redirect to its storage is followed once, in the same bound (storage-redirect.ts). */
  followsStorageRedirect = false,
): Promise<E.Either<RegistryError, Exchange>> => {
  const what = describeRequest(method, url);
  try {
    // The body is read inside the bound: a server that sends headers and then
    // stalls is cut off at the same REGISTRY_TIMEOUT.
    const answer = await boundedCall({ timeoutMs: client.timeoutMs, parents: client.signals }, async (signal) => {
      const ask = (target: URL, sent: Readonly<Record<string, string>>) =>
        client.fetch(target, {
          method,
          headers: sent,
          signal,
          ...(maxBodyBytes === undefined ? {} : { maxBodyBytes }),
        });
      let response = await ask(url, headers);
      if (followsStorageRedirect && isRedirect(response.status)) {
        const next = redirectedRequest(url, response.headers.get('location'), headers);
        if (E.isLeft(next)) throw new Error(`answered HTTP ${response.status}, ${next.left}, not followed`);
        response = await ask(next.right.url, next.right.headers);
      }
      const body = method === 'HEAD' ? '' : await response.text();
      return { status: response.status, headers: response.headers, body };
    });
    return E.right(answer);
  } catch (error) {
    return E.left(
      isStopped(client)
        ? transport(`${what} was aborted: the tick is over or interrupted`)
        : isAbort(error)
          ? timeout(`${what} did not answer within ${client.timeoutMs} ms`)
          : transport(`${what} failed: ${causeOf(error)}`),
    );
  }
};
