import { type PortError, transport } from '@image-refresh/core';
import { CoreV1Api, createConfiguration, type KubeConfig, ServerConfiguration } from '@kubernetes/client-node';
import * as E from 'fp-ts/lib/Either.js';
import { requestTimeout } from '../cluster/request-timeout.js';

// The core/v1 client for Events, bounded the same way as the apps/v1 one
// (one configured middleware setting an AbortSignal per request).

export interface CoreApi {
  readonly api: CoreV1Api;
  readonly timeoutMs: number;
  readonly secrets: readonly string[];
}

export const createCoreApi = (kubeConfig: KubeConfig, timeoutMs: number): E.Either<PortError, CoreApi> => {
  const cluster = kubeConfig.getCurrentCluster();
  if (cluster === null) {
    return E.left(transport('the kubeconfig names no current cluster; there is no API server to talk to'));
  }
  const configuration = createConfiguration({
    baseServer: new ServerConfiguration(cluster.server, {}),
    authMethods: { default: kubeConfig },
    middleware: [requestTimeout(timeoutMs)],
  });
  const token = kubeConfig.getCurrentUser()?.token;
  return E.right({
    api: new CoreV1Api(configuration),
    timeoutMs,
    secrets: token === undefined || token === '' ? [] : [token],
  });
};
