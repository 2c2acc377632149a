import type { WorkloadRef } from '@image-refresh/core';
import {
  AGENTS_NS,
  JOBS_MANAGER,
  NS,
  REQUESTS_PROXY,
  RESOURCE_MONITOR,
} from '../../../../k8s-adapter/test/support/fake-api-chart.js';

// The names the switch stories assert on, spelled out rather than imported
// from core: they are the drop-in contract (annotation keys operators and the
// chart rely on), so a rename in core must redden a story, not follow it.

export const JM = 'tracebloc/jobs-manager';
export const PM = 'tracebloc/pods-monitor';
export const RM = 'tracebloc/resource-monitor';

export const RECORD = {
  jm: 'tracebloc.io/last-refreshed-jobs-manager-digest',
  pm: 'tracebloc.io/last-refreshed-pods-monitor-digest',
  rm: 'tracebloc.io/last-refreshed-resource-monitor-digest',
} as const;
/** The registry's silence streak (docs/behaviour.md §3.3, I46): ticks in a row some image went unanswered. */
export const RESOLVE_FAILURE_STREAK = 'tracebloc.io/refresh-resolve-failure-streak';
/** RECONCILE_LIVE's marker: image-refresh itself pinned jobs-manager's containers to this digest. */
export const PIN_JM = 'tracebloc.io/pinned-jobs-manager-digest';
export const ATTEMPT = 'tracebloc.io/refresh-attempt';
export const FLAP = 'tracebloc.io/refresh-flap-detected';
export const STREAK = 'tracebloc.io/refresh-skip-streak';

export const JM_REF: WorkloadRef = { id: 'jobs-manager', kind: 'Deployment', name: JOBS_MANAGER, namespace: NS };
export const RP_REF: WorkloadRef = { id: 'requests-proxy', kind: 'Deployment', name: REQUESTS_PROXY, namespace: NS };
export const RM_REF: WorkloadRef = {
  id: 'resource-monitor',
  kind: 'DaemonSet',
  name: RESOURCE_MONITOR,
  namespace: AGENTS_NS,
};

export const pinned = (repo: string, digest: string): string => `docker.io/${repo}@${digest}`;

/** Every container as a fresh install renders it: repo:tag. */
export const ON_TAG = {
  'stg-jobs-manager': {
    api: 'docker.io/tracebloc/jobs-manager:stg',
    'pods-monitor-container': 'docker.io/tracebloc/pods-monitor:stg',
  },
  'stg-requests-proxy': { proxy: 'docker.io/tracebloc/jobs-manager:stg' },
  'stg-resource-monitor': { 'tracebloc-resource-monitor': 'docker.io/tracebloc/resource-monitor:stg' },
} as const;

export const REIMAGED_BOTH = 're-images=2 (deployment/stg-jobs-manager, deployment/stg-requests-proxy)';

/** The summary of a successful re-image tick that re-imaged both Deployments. */
export const REIMAGE_SUMMARY = `[image-refresh] summary: outcome=complete exit=0 findings=0 writes=3 (writeRefreshAttempt, clearFlapState, recordDigests) ${REIMAGED_BOTH} unresolved=0`;

/** The summary of a tick with nothing to do: no finding, no write, no re-image. */
export const STEADY_SUMMARY =
  '[image-refresh] summary: outcome=complete exit=0 findings=0 writes=0 re-images=0 unresolved=0';

/** A log line's text without its prefix: what an Event's message must equal. */
export const withoutPrefix = (line: string): string => line.replace(/^\[image-refresh\] /, '');
