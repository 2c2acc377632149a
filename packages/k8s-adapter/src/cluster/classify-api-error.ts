import { forbidden, malformed, notFound, type PortError, timeout, transport, unauthorized } from '@image-refresh/core';
import { AbortError, ApiException, FetchError } from '@kubernetes/client-node';
import { redactSecrets } from './redact-secrets.js';

// Every failure of a request becomes one of core's PortError tags, with the
// server's own words in it (#571: the operator must see the real cause) and
// no secret. Nothing is swallowed and nothing defaults to success: whatever
// is not recognised is still a failure, a Transport one, with its text.

/** Enough of a server's error text for a log line. */
const MAX_MESSAGE = 500;

const truncate = (text: string): string =>
  text.length <= MAX_MESSAGE ? text : `${text.slice(0, MAX_MESSAGE)}… (${text.length - MAX_MESSAGE} more chars)`;

/** The `message` of a Status object, or undefined when the text is not one. */
const statusMessage = (text: string): string | undefined => {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (_notJson) {
    // Not JSON (a proxy's plain text, an HTML page): the caller keeps the raw text.
    return undefined;
  }
  const message = (parsed as { message?: unknown } | null)?.message;
  return typeof message === 'string' && message !== '' ? message : undefined;
};

/** A Status object's `message`, else the raw body, else what the code means. */
const serverMessage = (code: number, body: unknown): string => {
  const text = typeof body === 'string' ? body : Buffer.isBuffer(body) ? body.toString('utf8') : '';
  // client-node drops the body of a 401 (ApiException(401, "Unauthorized", undefined)).
  if (text.trim() === '') return code === 401 ? 'Unauthorized' : `HTTP ${code} with an empty body`;
  return statusMessage(text) ?? text.trim();
};

const fromHttpStatus = (code: number, message: string): PortError => {
  if (code === 404) return notFound(message, code);
  // 401: the token was not taken (expired, of another cluster); 403: RBAC.
  if (code === 401) return unauthorized(message, code);
  if (code === 403) return forbidden(message, code);
  // 504 is the apiserver (or its gateway) saying the request timed out there.
  if (code === 504 || code === 408) return timeout(message, code);
  // 429 is API priority and fairness shedding load; 5xx the server failing;
  // any other code (400, 409, 415, 422…) a refusal this port cannot act on.
  return transport(message, code);
};

const isAbort = (e: unknown): boolean =>
  e instanceof AbortError || (e instanceof Error && (e.name === 'AbortError' || e.name === 'TimeoutError'));

/** Failures to read a 2xx body: JSON.parse and client-node's content-type check. */
const isUnparseable = (e: unknown): e is Error =>
  e instanceof SyntaxError ||
  (e instanceof Error &&
    (e.message.startsWith('Cannot parse content') || /^The mediaType .* is not supported/.test(e.message)));

export interface RequestFacts {
  /** What was asked, for the message: `GET deployment/stg-jobs-manager`. */
  readonly what: string;
  readonly timeoutMs: number;
  /** Secrets that must not appear in any message (the kubeconfig's token). */
  readonly secrets: readonly string[];
}

export const classifyApiError = (e: unknown, facts: RequestFacts): PortError => {
  const clean = (p: PortError): PortError => ({ ...p, message: redactSecrets(truncate(p.message), facts.secrets) });
  if (e instanceof ApiException) {
    const code = typeof e.code === 'number' ? e.code : 0;
    return clean(fromHttpStatus(code, `${facts.what}: ${serverMessage(code, e.body)}`));
  }
  if (isAbort(e)) {
    return clean(
      timeout(`${facts.what}: no answer within ${facts.timeoutMs} ms (API_TIMEOUT); the request was aborted`),
    );
  }
  if (e instanceof FetchError) {
    const code = typeof e.code === 'string' ? ` [${e.code}]` : '';
    return clean(transport(`${facts.what}: ${e.message}${code}`));
  }
  if (isUnparseable(e)) {
    return clean(malformed(`${facts.what}: the API server's answer cannot be read: ${e.name}: ${e.message}`));
  }
  // Anything else failed before or around the request (an unreadable token
  // file, a refused plain-http server config): still a failure, named.
  const text = e instanceof Error ? `${e.name}: ${e.message}` : String(e);
  return clean(transport(`${facts.what}: ${text}`));
};
