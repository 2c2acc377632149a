import type { PortError, WorkloadRef } from '@image-refresh/core';
import type { KubeConfig } from '@kubernetes/client-node';
import { pipe } from 'fp-ts/lib/function.js';
import * as TE from 'fp-ts/lib/TaskEither.js';
import { createAppsApi } from './apps-api.js';
import { readWorkload } from './workload-api.js';
import type { WorkloadSnapshot } from './workload-snapshot.js';

/**
 * One workload as a plain snapshot — settledness by kubectl's rules, images
 * by container, annotations, and who owns its containers' fields — for the
 * CLI's `status` and `rearm`, a dashboard, a live reconcile. One GET, bounded
 * by `apiTimeoutMs` and classified like every other call of the adapter
 * (`Left` PortError: NotFound, Unauthorized, Forbidden, Timeout, Transport, Malformed).
 * Reads only; no settle window (the answer is the state right now).
 */
export const inspectWorkload = (
  kubeConfig: KubeConfig,
  ref: WorkloadRef,
  options: { readonly apiTimeoutMs: number },
): TE.TaskEither<PortError, WorkloadSnapshot> =>
  pipe(
    TE.fromEither(createAppsApi(kubeConfig, options.apiTimeoutMs)),
    TE.chain((apps) => readWorkload(apps, ref)),
  );
