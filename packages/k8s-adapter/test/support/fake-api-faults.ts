import type { FakeKind } from './fake-api-objects.js';

// Faults the fake API server can answer a request with instead of serving it,
// armed per route: every HTTP status class with the body a real apiserver (or
// the proxy in front of it) sends, a hang, a body that never ends, malformed
// or unexpected JSON, a dropped connection, a slow answer.

export type FakeRoute = 'version' | 'discovery' | 'namespace' | 'get' | 'list' | 'watch' | 'patch' | 'event';

export type Fault =
  /** A Kubernetes Status object with this code, reason and message. */
  | { readonly kind: 'status'; readonly code: number; readonly reason?: string; readonly message?: string }
  /** Any body with any content type (a proxy's plain-text 502, an HTML error page…). */
  | { readonly kind: 'raw'; readonly code: number; readonly contentType: string; readonly body: string }
  /** Never answers at all. */
  | { readonly kind: 'hang' }
  /** Sends 200 and the first bytes of the object, then nothing more. */
  | { readonly kind: 'hangBody' }
  /** 200 with a body that is not JSON although it says it is. */
  | { readonly kind: 'malformed' }
  /** 200 with well-formed JSON that is not the object asked for. */
  | { readonly kind: 'wrongShape'; readonly body: string }
  /** Drops the connection without an answer. */
  | { readonly kind: 'reset' }
  /** Serves the request normally after a delay. */
  | { readonly kind: 'delay'; readonly ms: number };

export interface FaultMatch {
  readonly route?: FakeRoute;
  readonly method?: string;
  readonly kind?: FakeKind;
  readonly name?: string;
  /** Only a request whose body contains this text (a PATCH naming one annotation, say). */
  readonly bodyIncludes?: string;
}

export interface ArmedFault {
  readonly match: FaultMatch;
  readonly fault: Fault;
  remaining: number;
}

export interface RouteFacts {
  readonly route: FakeRoute;
  readonly method: string;
  readonly kind?: FakeKind | undefined;
  readonly name?: string | undefined;
  readonly body?: string | undefined;
}

export const matches = (match: FaultMatch, facts: RouteFacts): boolean =>
  (match.route === undefined || match.route === facts.route) &&
  (match.method === undefined || match.method === facts.method) &&
  (match.kind === undefined || match.kind === facts.kind) &&
  (match.name === undefined || match.name === facts.name) &&
  (match.bodyIncludes === undefined || (facts.body ?? '').includes(match.bodyIncludes));

const REASONS: Readonly<Record<number, string>> = {
  400: 'BadRequest',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'NotFound',
  409: 'Conflict',
  422: 'Invalid',
  429: 'TooManyRequests',
  500: 'InternalError',
  503: 'ServiceUnavailable',
  504: 'Timeout',
};

/** The Status body the apiserver sends with an error code. */
export const statusBody = (code: number, message: string, reason = REASONS[code] ?? 'Unknown'): string =>
  JSON.stringify({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, code });
