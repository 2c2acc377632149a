import type { PortError } from '@image-refresh/core';
import type { AppsV1Api } from '@kubernetes/client-node';
import * as E from 'fp-ts/lib/Either.js';
import type { TaskEither } from 'fp-ts/lib/TaskEither.js';
import type { AppsApi } from './apps-api.js';
import type { CallOptions } from './bounded-client.js';
import { classifyApiError } from './classify-api-error.js';
import type { RequestKind } from './request-bound.js';

/**
 * One bounded API request as a TaskEither: its failure, whatever it is,
 * classified into a PortError that names the request. A call that throws
 * synchronously (client-node validates parameters before it sends) is a
 * failure too. `request` must hand `options` to the generated method: they
 * carry the bound.
 */
export const callApi =
  <A>(
    apps: AppsApi,
    what: string,
    kind: RequestKind,
    request: (api: AppsV1Api, options: CallOptions) => Promise<A>,
  ): TaskEither<PortError, A> =>
  async () => {
    const failed = (e: unknown): E.Either<PortError, A> =>
      E.left(classifyApiError(e, { what, timeoutMs: apps.timeoutMs, secrets: apps.secrets }));
    try {
      return E.right(await apps.request(kind, request));
    } catch (e) {
      return failed(e);
    }
  };
