import type { PortError } from '@image-refresh/core';
import { AppsV1Api, type KubeConfig, type PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import type * as E from 'fp-ts/lib/Either.js';
import { type BoundedClient, type CallOptions, createBoundedClient } from './bounded-client.js';
import type { RequestSignals } from './request-bound.js';

// The apps/v1 client every workload call of the adapter goes through.

export type AppsApi = BoundedClient<AppsV1Api>;

export const createAppsApi = (
  kubeConfig: KubeConfig,
  timeoutMs: number,
  signals: RequestSignals = {},
): E.Either<PortError, AppsApi> =>
  createBoundedClient(kubeConfig, timeoutMs, (configuration) => new AppsV1Api(configuration), signals);

/**
 * Per-call options forcing a patch's content type. client-node sends
 * `application/json-patch+json` unless told otherwise (client-node 1.4.0);
 * `setHeaderOptions` appends its middleware to `options` (`middlewareMergeStrategy:
 * 'append'`), so the request's bound (BoundedClient.request) still applies.
 */
export const patchAs = (strategy: PatchStrategy, options: CallOptions): CallOptions =>
  setHeaderOptions('Content-Type', strategy, options);
