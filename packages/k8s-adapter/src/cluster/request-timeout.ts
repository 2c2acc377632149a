import {
  Observable,
  type ObservableMiddleware,
  type RequestContext,
  type ResponseContext,
} from '@kubernetes/client-node';

// Every non-watch API request is bounded (docs/behaviour.md §3, I17). client-node 1.4.0 has
// no request-timeout option (client-node 1.4.0: `setRequestTimeoutOptions` does not
// exist), so the bound is an AbortSignal set on each request by a middleware.
// node-fetch honours the signal while waiting for headers and while reading
// the body, so a server that answers half an object is cut off too. The
// middleware must hand back client-node's Observable: the generated client
// calls `.toPromise()` on whatever `pre`/`post` return.

/**
 * The tick's signals (issue 13): `all` ends every request (the tick is over),
 * `reads` only reads (the tick was interrupted: a write already sent is
 * awaited within its bound, never cut off half-way).
 */
export interface RequestSignals {
  readonly all?: AbortSignal | undefined;
  readonly reads?: AbortSignal | undefined;
}

/** The request bound, with whichever of the tick's signals apply. */
export const requestSignal = (ms: number, signals: readonly (AbortSignal | undefined)[]): AbortSignal => {
  const given = signals.filter((s): s is AbortSignal => s !== undefined);
  return given.length === 0 ? AbortSignal.timeout(ms) : AbortSignal.any([AbortSignal.timeout(ms), ...given]);
};

const READS = new Set(['GET', 'HEAD']);

/** The credential a request carries (after `Bearer `), whichever auth method put it there. */
const credentialOf = (context: RequestContext): string | undefined => {
  const headers = context.getHeaders();
  const value = headers.Authorization ?? headers.authorization;
  if (value === undefined || value === '') return undefined;
  return value.replace(/^\s*(Bearer|Basic)\s+/i, '');
};

export const requestTimeout = (
  ms: number,
  signals: RequestSignals = {},
  /** Told the credential each request carries: redacted by value wherever it came from (a token file too; issue 13). */
  onCredential: (credential: string) => void = () => undefined,
): ObservableMiddleware => ({
  pre: (context: RequestContext) => {
    const credential = credentialOf(context);
    if (credential !== undefined) onCredential(credential);
    const isRead = READS.has(String(context.getHttpMethod()).toUpperCase());
    context.setSignal(requestSignal(ms, [signals.all, isRead ? signals.reads : undefined]));
    return new Observable(Promise.resolve(context));
  },
  post: (response: ResponseContext) => new Observable(Promise.resolve(response)),
});
