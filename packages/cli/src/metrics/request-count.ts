import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import type { ClientRequest } from 'node:http';

// The requests of one tick by kind, counted where they leave the process:
// Node's `http.client.request.start` diagnostics channel sees every request
// made with node:http/https — client-node's (through node-fetch) and the
// registry adapter's alike — so what is counted is what went on the wire,
// retries and rollout polls included, without a counter threaded through the
// adapters. Kinds by path: the Kubernetes Events API, the rest of the
// Kubernetes API, the registry's /v2/ API, and anything else (the token realm).

export type RequestKind = 'kubernetes' | 'events' | 'registry' | 'token';

export const REQUEST_KINDS: readonly RequestKind[] = ['kubernetes', 'events', 'registry', 'token'];

export const requestKindOf = (pathAndQuery: string): RequestKind => {
  // A proxy may mount either API under a prefix (/k8s/clusters/c-1/api/…, /registry/v2/…).
  const path = pathAndQuery.split('?', 1)[0] ?? '';
  if (path.includes('/apis/events.k8s.io/')) return 'events';
  if (path.includes('/v2/') || path.endsWith('/v2')) return 'registry';
  if (path.includes('/api/') || path.includes('/apis/')) return 'kubernetes';
  return 'token';
};

const CHANNEL = 'http.client.request.start';

export interface RequestCounter {
  /** Requests so far, by kind (every kind present, 0 when none). */
  readonly counts: () => Readonly<Record<RequestKind, number>>;
  /** Stop counting (before the push, which is not one of the tick's requests). */
  readonly stop: () => void;
}

export const countRequests = (): RequestCounter => {
  const counts: Record<RequestKind, number> = { kubernetes: 0, events: 0, registry: 0, token: 0 };
  const onStart = (message: unknown): void => {
    const { request } = message as { request: ClientRequest };
    counts[requestKindOf(request.path)] += 1;
  };
  subscribe(CHANNEL, onStart);
  return { counts: () => ({ ...counts }), stop: () => unsubscribe(CHANNEL, onStart) };
};
