import type { PortError } from '@image-refresh/core';
import type { KubeConfig } from '@kubernetes/client-node';
import * as E from 'fp-ts/lib/Either.js';
import type { TaskEither } from 'fp-ts/lib/TaskEither.js';
import { type BoundedClient, type CallOptions, createBoundedClient } from '../cluster/bounded-client.js';
import { classifyApiError } from '../cluster/classify-api-error.js';
import type { RequestKind, RequestSignals } from '../cluster/request-bound.js';
import { PodsApi } from './pods-api.js';

// The core/v1 requests staging needs (pods: list, create, get, delete:
// pods-api.ts), bounded like every other (bounded-client.ts: API_TIMEOUT per
// request, the tick's end and, for a read, its interruption). Only PREPULL
// builds it.

export type CoreApi = BoundedClient<PodsApi>;

export const createCoreApi = (
  kubeConfig: KubeConfig,
  timeoutMs: number,
  signals: RequestSignals = {},
): E.Either<PortError, CoreApi> =>
  createBoundedClient(kubeConfig, timeoutMs, (configuration) => new PodsApi(configuration), signals);

/** One bounded core/v1 request as a TaskEither; its failure classified, naming the request. */
export const callCore =
  <A>(
    core: CoreApi,
    what: string,
    kind: RequestKind,
    request: (api: PodsApi, options: CallOptions) => Promise<A>,
  ): TaskEither<PortError, A> =>
  async () => {
    try {
      return E.right(await core.request(kind, request));
    } catch (e) {
      return E.left(classifyApiError(e, { what, timeoutMs: core.timeoutMs, secrets: core.secrets }));
    }
  };
