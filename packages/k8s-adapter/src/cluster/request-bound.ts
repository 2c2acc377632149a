import {
  type ConfigurationOptions,
  type HttpLibrary,
  Observable,
  type ObservableMiddleware,
  type RequestContext,
  type ResponseContext,
} from '@kubernetes/client-node';

// Every non-watch API request is bounded (docs/behaviour.md §3, I17). client-node 1.4.0 has
// no request-timeout option (`setRequestTimeoutOptions` does not exist there), so
// the bound is an AbortSignal put on each request by a per-call middleware.
// node-fetch honours it while waiting for headers and while reading the body,
// and the generated client reads the body after the middleware's `post`, so
// the signal comes from a boundedCall around the whole call (bounded-client.ts)
// — never a signal made in `pre`, whose bound nothing could clear when the call
// settles. A middleware must hand back client-node's Observable: the generated
// client calls `.toPromise()` on whatever `pre`/`post` return.

/**
 * The tick's signals (docs/behaviour.md §3, Signals): `all` ends every request
 * (the tick is over), `reads` only reads (the tick was interrupted: a write
 * already sent is awaited within its bound, never cut off half-way).
 */
export interface RequestSignals {
  readonly all?: AbortSignal | undefined;
  readonly reads?: AbortSignal | undefined;
}

/** What a request does: a read ends at the tick's interruption, a write only at the tick's end. */
export type RequestKind = 'read' | 'write';

/** The parents of one request's bound: the tick's end, and its interruption for a read. */
export const parentsOf = (kind: RequestKind, signals: RequestSignals): readonly (AbortSignal | undefined)[] => [
  signals.all,
  kind === 'read' ? signals.reads : undefined,
];

const passOn = (response: ResponseContext): Observable<ResponseContext> => new Observable(Promise.resolve(response));

/**
 * Per-call options that put `signal` on the request, after the client's own
 * middleware (`append`). With per-call middleware the generated client merges
 * into a new array, so the configured one is never reversed in place.
 */
export const carrying = (signal: AbortSignal): ConfigurationOptions<ObservableMiddleware> => ({
  middleware: [
    {
      pre: (context: RequestContext) => {
        context.setSignal(signal);
        return new Observable(Promise.resolve(context));
      },
      post: passOn,
    },
  ],
  middlewareMergeStrategy: 'append',
});

/**
 * The client's HTTP library, refusing a request that carries no signal: a
 * call that forgot `carrying(signal)` fails at once, loudly, instead of
 * waiting on a server that may never answer.
 */
export const refusingUnbounded = (inner: HttpLibrary): HttpLibrary => ({
  send: (request: RequestContext) =>
    request.getSignal() === undefined
      ? new Observable(
          Promise.reject(
            new Error(
              `refused to send ${request.getHttpMethod()} ${new URL(request.getUrl()).pathname} without a bound: every API request goes through BoundedClient.request`,
            ),
          ),
        )
      : inner.send(request),
});

/** The credential a request carries (after `Bearer `), whichever auth method put it there. */
const credentialOf = (context: RequestContext): string | undefined => {
  const headers = context.getHeaders();
  const value = headers.Authorization ?? headers.authorization;
  if (value === undefined || value === '') return undefined;
  return value.replace(/^\s*(Bearer|Basic)\s+/i, '');
};

/**
 * The client's one configured middleware: tells `onCredential` the credential
 * each request carries, redacted by value wherever it came from (a token file
 * too).
 */
export const rememberingCredentials = (onCredential: (credential: string) => void): ObservableMiddleware => ({
  pre: (context: RequestContext) => {
    const credential = credentialOf(context);
    if (credential !== undefined) onCredential(credential);
    return new Observable(Promise.resolve(context));
  },
  post: passOn,
});
