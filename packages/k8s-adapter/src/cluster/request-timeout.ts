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

export const requestTimeout = (ms: number): ObservableMiddleware => ({
  pre: (context: RequestContext) => {
    context.setSignal(AbortSignal.timeout(ms));
    return new Observable(Promise.resolve(context));
  },
  post: (response: ResponseContext) => new Observable(Promise.resolve(response)),
});
