import type { PortError } from '@image-refresh/core';
import { EventsV1Api, type KubeConfig } from '@kubernetes/client-node';
import type * as E from 'fp-ts/lib/Either.js';
import { type BoundedClient, createBoundedClient } from '../cluster/bounded-client.js';

// The events.k8s.io/v1 client, bounded the same way as the apps/v1 one.
// events.k8s.io rather than core/v1: the same objects (the apiserver serves
// both views, and `kubectl describe` shows them), with reportingController in
// their own words — and a generated client a few kB long, where core/v1's
// would add megabytes to a bundle that must fit a 64 MiB pod (README,
// benchmarks).

export type EventsApi = BoundedClient<EventsV1Api>;

export const createEventsApi = (
  kubeConfig: KubeConfig,
  timeoutMs: number,
  signal?: AbortSignal,
): E.Either<PortError, EventsApi> =>
  createBoundedClient(kubeConfig, timeoutMs, (configuration) => new EventsV1Api(configuration), { all: signal });
