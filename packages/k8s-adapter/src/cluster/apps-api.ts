import { type PortError, transport } from '@image-refresh/core';
import {
  AppsV1Api,
  createConfiguration,
  type KubeConfig,
  type PatchStrategy,
  ServerConfiguration,
  setHeaderOptions,
} from '@kubernetes/client-node';
import * as E from 'fp-ts/lib/Either.js';
import { requestTimeout } from './request-timeout.js';

// The apps/v1 client every call of the adapter goes through, with the
// request bound installed once, as configured middleware (NOTES).

export interface AppsApi {
  readonly api: AppsV1Api;
  readonly timeoutMs: number;
  /** Secrets to keep out of every message: the kubeconfig user's static token, if any. */
  readonly secrets: readonly string[];
}

export const createAppsApi = (kubeConfig: KubeConfig, timeoutMs: number): E.Either<PortError, AppsApi> => {
  const cluster = kubeConfig.getCurrentCluster();
  if (cluster === null) {
    return E.left(transport('the kubeconfig names no current cluster; there is no API server to talk to'));
  }
  // Exactly one configured middleware: the generated client reverses the
  // configured array in place on every response (`middleware.reverse()`), so
  // with two their order would alternate between calls.
  const configuration = createConfiguration({
    baseServer: new ServerConfiguration(cluster.server, {}),
    authMethods: { default: kubeConfig },
    middleware: [requestTimeout(timeoutMs)],
  });
  const token = kubeConfig.getCurrentUser()?.token;
  return E.right({
    api: new AppsV1Api(configuration),
    timeoutMs,
    secrets: token === undefined || token === '' ? [] : [token],
  });
};

/**
 * Per-call options forcing a patch's content type. client-node sends
 * `application/json-patch+json` unless told otherwise (NOTES);
 * `setHeaderOptions` appends its middleware (`middlewareMergeStrategy:
 * 'append'`), so the request bound configured above still applies.
 */
export const patchAs = (strategy: PatchStrategy) => setHeaderOptions('Content-Type', strategy);
