import {
  Observable,
  type ObservableMiddleware,
  type RequestContext,
  type ResponseContext,
} from '@kubernetes/client-node';

// Every non-watch API request is bounded (SPEC §3, I17). client-node 1.4.0 has
// no request-timeout option (NOTES: `setRequestTimeoutOptions` does not
// exist), so the bound is an AbortSignal set on each request by a middleware.
// node-fetch honours the signal while waiting for headers and while reading
// the body, so a server that answers half an object is cut off too. The
// middleware must hand back client-node's Observable: the generated client
// calls `.toPromise()` on whatever `pre`/`post` return.

/** The request bound, and the tick's own signal when given: a tick that is over (or interrupted) leaves nothing in flight (issue 13). */
export const requestSignal = (ms: number, tick: AbortSignal | undefined): AbortSignal =>
  tick === undefined ? AbortSignal.timeout(ms) : AbortSignal.any([AbortSignal.timeout(ms), tick]);

export const requestTimeout = (ms: number, tick?: AbortSignal): ObservableMiddleware => ({
  pre: (context: RequestContext) => {
    context.setSignal(requestSignal(ms, tick));
    return new Observable(Promise.resolve(context));
  },
  post: (response: ResponseContext) => new Observable(Promise.resolve(response)),
});
