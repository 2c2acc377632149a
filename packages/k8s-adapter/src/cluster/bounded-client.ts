import { type PortError, transport } from '@image-refresh/core';
import { type Configuration, createConfiguration, type KubeConfig, ServerConfiguration } from '@kubernetes/client-node';
import * as E from 'fp-ts/lib/Either.js';
import { type RequestSignals, requestTimeout } from './request-timeout.js';

// Every generated client the adapter uses (apps/v1, events.k8s.io/v1) is
// built here, so each gets the same request bound (I17; client-node 1.4.0 has no per-call timeout) and the same
// list of secrets to keep out of messages.

export interface BoundedClient<Api> {
  readonly api: Api;
  readonly timeoutMs: number;
  /** Secrets to keep out of every message: the kubeconfig user's static token, if any. */
  readonly secrets: readonly string[];
}

export const createBoundedClient = <Api>(
  kubeConfig: KubeConfig,
  timeoutMs: number,
  build: (configuration: Configuration) => Api,
  /** The tick's signals: aborting them ends this client's requests (issue 13). */
  signals: RequestSignals = {},
): E.Either<PortError, BoundedClient<Api>> => {
  const cluster = kubeConfig.getCurrentCluster();
  if (cluster === null) {
    return E.left(transport('the kubeconfig names no current cluster; there is no API server to talk to'));
  }
  // Exactly one configured middleware: the generated client reverses the
  // configured array in place on every response (`middleware.reverse()`), so
  // with two their order would alternate between calls.
  const token = kubeConfig.getCurrentUser()?.token;
  // Filled as requests are made: the credential each one carried, by value —
  // a token read from a file (in-cluster) need not look like a JWT to be one.
  const secrets: string[] = token === undefined || token === '' ? [] : [token];
  const remember = (credential: string): void => {
    if (!secrets.includes(credential)) secrets.push(credential);
  };
  const configuration = createConfiguration({
    baseServer: new ServerConfiguration(cluster.server, {}),
    authMethods: { default: kubeConfig },
    middleware: [requestTimeout(timeoutMs, signals, remember)],
  });
  return E.right({ api: build(configuration), timeoutMs, secrets });
};
