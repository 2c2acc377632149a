import type { PortError } from '@image-refresh/core';
import { CoreV1Api, type KubeConfig } from '@kubernetes/client-node';
import * as E from 'fp-ts/lib/Either.js';
import type { TaskEither } from 'fp-ts/lib/TaskEither.js';
import { type BoundedClient, type CallOptions, createBoundedClient } from '../cluster/bounded-client.js';
import { classifyApiError } from '../cluster/classify-api-error.js';
import type { RequestKind, RequestSignals } from '../cluster/request-bound.js';

// The core/v1 client staging needs (pods: list, create, get, delete), bounded
// like every other (bounded-client.ts: API_TIMEOUT per request, the tick's end
// and, for a read, its interruption). Only PREPULL builds it: core/v1's
// generated client is large, so the CLI loads this part of the adapter from
// a file of its own, and only when PREPULL is on (README, Benchmarks).

export type CoreApi = BoundedClient<CoreV1Api>;

export const createCoreApi = (
  kubeConfig: KubeConfig,
  timeoutMs: number,
  signals: RequestSignals = {},
): E.Either<PortError, CoreApi> =>
  createBoundedClient(kubeConfig, timeoutMs, (configuration) => new CoreV1Api(configuration), signals);

/** One bounded core/v1 request as a TaskEither; its failure classified, naming the request. */
export const callCore =
  <A>(
    core: CoreApi,
    what: string,
    kind: RequestKind,
    request: (api: CoreV1Api, options: CallOptions) => Promise<A>,
  ): TaskEither<PortError, A> =>
  async () => {
    try {
      return E.right(await core.request(kind, request));
    } catch (e) {
      return E.left(classifyApiError(e, { what, timeoutMs: core.timeoutMs, secrets: core.secrets }));
    }
  };
