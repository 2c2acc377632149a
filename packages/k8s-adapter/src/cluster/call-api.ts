import type { PortError } from '@image-refresh/core';
import * as E from 'fp-ts/lib/Either.js';
import type { TaskEither } from 'fp-ts/lib/TaskEither.js';
import type { AppsApi } from './apps-api.js';
import { classifyApiError } from './classify-api-error.js';

/**
 * One API request as a TaskEither: its failure, whatever it is, classified
 * into a PortError that names the request. A call that throws synchronously
 * (client-node validates parameters before it sends) is a failure too.
 */
export const callApi =
  <A>(apps: AppsApi, what: string, request: (api: AppsApi['api']) => Promise<A>): TaskEither<PortError, A> =>
  async () => {
    const failed = (e: unknown): E.Either<PortError, A> =>
      E.left(classifyApiError(e, { what, timeoutMs: apps.timeoutMs, secrets: apps.secrets }));
    try {
      return E.right(await request(apps.api));
    } catch (e) {
      return failed(e);
    }
  };
