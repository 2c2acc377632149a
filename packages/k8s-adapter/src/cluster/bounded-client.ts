import { type PortError, transport } from '@image-refresh/core';
import {
  type Configuration,
  type ConfigurationOptions,
  createConfiguration,
  IsomorphicFetchHttpLibrary,
  type KubeConfig,
  type ObservableMiddleware,
  ServerConfiguration,
} from '@kubernetes/client-node';
import * as E from 'fp-ts/lib/Either.js';
import { boundedCall } from '../bounds/bounded-call.js';
import {
  carrying,
  parentsOf,
  type RequestKind,
  type RequestSignals,
  refusingUnbounded,
  rememberingCredentials,
} from './request-bound.js';

// Every generated client the adapter uses (apps/v1, events.k8s.io/v1) is
// built here, so each gets the same request bound (I17; client-node 1.4.0 has no per-call timeout) and the same
// list of secrets to keep out of messages. The generated API is reachable only
// through `request`, which bounds the call; a request sent without the bound's
// signal is refused (request-bound.ts).

/** Per-call options of a generated method; a patch chains its content type onto them (`setHeaderOptions`). */
export type CallOptions = ConfigurationOptions<ObservableMiddleware>;

export interface BoundedClient<Api> {
  readonly timeoutMs: number;
  /** Secrets to keep out of every message: the kubeconfig user's static token, if any. */
  readonly secrets: readonly string[];
  /**
   * One request: `send` calls the generated method with `options` (or options
   * chained from them), which carry the request's signal — aborted at
   * `timeoutMs`, at the tick's end, and for a read at its interruption. The
   * bound lasts until `send` settles (the body is read by then) and is
   * cleared with it.
   */
  readonly request: <A>(kind: RequestKind, send: (api: Api, options: CallOptions) => Promise<A>) => Promise<A>;
}

export const createBoundedClient = <Api>(
  kubeConfig: KubeConfig,
  timeoutMs: number,
  build: (configuration: Configuration) => Api,
  /** The tick's signals: aborting them ends this client's requests. */
  signals: RequestSignals = {},
): E.Either<PortError, BoundedClient<Api>> => {
  const cluster = kubeConfig.getCurrentCluster();
  if (cluster === null) {
    return E.left(transport('the kubeconfig names no current cluster; there is no API server to talk to'));
  }
  const token = kubeConfig.getCurrentUser()?.token;
  // Filled as requests are made: the credential each one carried, by value —
  // a token read from a file (in-cluster) need not look like a JWT to be one.
  const secrets: string[] = token === undefined || token === '' ? [] : [token];
  const remember = (credential: string): void => {
    if (!secrets.includes(credential)) secrets.push(credential);
  };
  const api = build(
    createConfiguration({
      baseServer: new ServerConfiguration(cluster.server, {}),
      authMethods: { default: kubeConfig },
      httpApi: refusingUnbounded(new IsomorphicFetchHttpLibrary()),
      // Exactly one configured middleware: the generated client reverses the
      // configured array in place on a call without per-call middleware
      // (`middleware.reverse()`), so with two their order could alternate.
      middleware: [rememberingCredentials(remember)],
    }),
  );
  return E.right({
    timeoutMs,
    secrets,
    request: (kind, send) =>
      boundedCall({ timeoutMs, parents: parentsOf(kind, signals) }, (signal) => send(api, carrying(signal))),
  });
};
