import type { Profile } from './profile.js';

// The topology of the Helm chart this project replaces a script of
// (tracebloc/client, client/templates/image-refresh-cronjob.yaml): three
// images in three workloads, the bookkeeping on the jobs-manager Deployment
// under `tracebloc.io/` (docs/behaviour.md §2). It is the default profile: a
// tick without IMAGE_REFRESH_PROFILE follows exactly this, named from the
// chart's variables. The container names are contractual with the chart's
// pod templates. This is the one file of the library that names the vendor.

/** NODE_AGENTS_NAMESPACE unset: where the chart runs its node agents. */
export const CHART_NODE_AGENTS_NAMESPACE = 'tracebloc-node-agents';

/** The chart's names, as its variables give them (RELEASE_NAME, …; docs/behaviour.md §2). */
export interface ChartNames {
  /** RELEASE_NAME. */
  readonly releaseName: string;
  /** RELEASE_NAMESPACE: where jobs-manager and requests-proxy run. */
  readonly releaseNamespace: string;
  /** DEPLOYMENT_NAME (default `<release>-jobs-manager`): the gate. */
  readonly deploymentName: string;
  /** REQUESTS_PROXY_DEPLOYMENT (default `<release>-requests-proxy`). */
  readonly requestsProxyDeployment: string;
  /** RESOURCE_MONITOR_DAEMONSET (default `<release>-resource-monitor`). */
  readonly resourceMonitorDaemonSet: string;
  /** NODE_AGENTS_NAMESPACE: where the resource-monitor DaemonSet runs. */
  readonly nodeAgentsNamespace: string;
}

/**
 * The chart's topology as a {@link Profile}, named from its variables: the
 * jobs-manager Deployment (containers `api` and `pods-monitor-container`)
 * gates the tick and keeps the bookkeeping; requests-proxy runs the
 * jobs-manager image in `proxy` and may be pinned on its own
 * (REQUESTS_PROXY_PINNED); the resource-monitor DaemonSet runs in the node
 * agents' namespace; the three images are pinned by the chart's `*_PINNED`
 * variables. requests-proxy and resource-monitor may be refreshed past an
 * unsettled jobs-manager (DECOUPLED_REFRESH); pods-monitor, a sidecar of
 * jobs-manager, may not.
 */
export const DEFAULT_PROFILE = (names: ChartNames): Profile => ({
  annotationPrefix: 'tracebloc.io',
  gate: 'jobs-manager',
  release: names.releaseName,
  // The script's own words, kept for whoever greps a Job's log for them.
  nouns: { images: 'client images', workloads: 'control-plane workloads' },
  frozenHint: [
    'Most likely the jobs-manager pod is Running but never Ready, which the readiness probe reports and nothing kills:',
    `  kubectl -n ${names.releaseNamespace} get pods -l app.kubernetes.io/component=jobs-manager`,
    `  kubectl -n ${names.releaseNamespace} logs deployment/${names.deploymentName} -c api | grep -i 'ingestion HTTP server'`,
    "A 'Failed to start ingestion HTTP server' line means 8080 never opened: check ingestion-authz.yaml parses, that the DB user may create the ingestion_runs table, and that 8080 is free. Refresh resumes by itself once the pod goes Ready.",
  ].join('\n'),
  images: [
    { name: 'jobs-manager', repository: 'tracebloc/jobs-manager', pinnedBy: 'JOBS_MANAGER_PINNED' },
    { name: 'pods-monitor', repository: 'tracebloc/pods-monitor', pinnedBy: 'PODS_MONITOR_PINNED' },
    { name: 'resource-monitor', repository: 'tracebloc/resource-monitor', pinnedBy: 'RESOURCE_MONITOR_PINNED' },
  ],
  workloads: [
    {
      id: 'jobs-manager',
      kind: 'Deployment',
      namespace: names.releaseNamespace,
      name: names.deploymentName,
      containers: { api: 'jobs-manager', 'pods-monitor-container': 'pods-monitor' },
    },
    {
      id: 'requests-proxy',
      kind: 'Deployment',
      namespace: names.releaseNamespace,
      name: names.requestsProxyDeployment,
      containers: { proxy: 'jobs-manager' },
      pinnedBy: 'REQUESTS_PROXY_PINNED',
      decoupled: true,
    },
    {
      id: 'resource-monitor',
      kind: 'DaemonSet',
      namespace: names.nodeAgentsNamespace,
      name: names.resourceMonitorDaemonSet,
      containers: { 'tracebloc-resource-monitor': 'resource-monitor' },
      decoupled: true,
    },
  ],
});

/**
 * What the script tells an operator behind a private mirror (IMAGE_REGISTRY,
 * a chart variable: a profile names its registries itself), in its words:
 * how the chart's images are updated there instead (docs/behaviour.md §3.1).
 */
export const CHART_MIRROR_HINTS: readonly string[] = [
  "Update the images by syncing your mirror and restarting the workloads, or pin each image by digest in the chart's values.",
  '(That restart does re-pull: behind a mirror the chart renders imagePullPolicy=Always on the images it does not pin, so an edge whose refresh is inert still has an update path.)',
];
