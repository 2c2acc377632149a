import { type PortError, transport } from '@image-refresh/core';
import { createConfiguration, EventsV1Api, type KubeConfig, ServerConfiguration } from '@kubernetes/client-node';
import * as E from 'fp-ts/lib/Either.js';
import { requestTimeout } from '../cluster/request-timeout.js';

// The events.k8s.io/v1 client, bounded the same way as the apps/v1 one (one
// configured middleware setting an AbortSignal per request). events.k8s.io
// rather than core/v1: the same objects (the apiserver serves both views, and
// `kubectl describe` shows them), with reportingController in their own
// words — and a generated client a few kB long, where core/v1's would add
// megabytes to a bundle that must fit a 64 MiB pod (README, benchmarks).

export interface EventsApi {
  readonly api: EventsV1Api;
  readonly timeoutMs: number;
  readonly secrets: readonly string[];
}

export const createEventsApi = (kubeConfig: KubeConfig, timeoutMs: number): E.Either<PortError, EventsApi> => {
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
    api: new EventsV1Api(configuration),
    timeoutMs,
    secrets: token === undefined || token === '' ? [] : [token],
  });
};
