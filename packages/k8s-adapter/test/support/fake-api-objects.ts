import type { JsonObject } from './fake-api-patch.js';

// Seed objects shaped like the ones the chart renders (docs/behaviour.md §2), settled:
// a fresh install runs repo:tag and every rollout has finished.

export type FakeKind = 'Deployment' | 'DaemonSet';

export interface ContainerSeed {
  readonly name: string;
  readonly image: string;
}

export interface DeploymentSeed {
  readonly namespace: string;
  readonly name: string;
  readonly containers: readonly ContainerSeed[];
  readonly replicas?: number;
  readonly annotations?: Readonly<Record<string, string>>;
}

export interface DaemonSetSeed {
  readonly namespace: string;
  readonly name: string;
  readonly containers: readonly ContainerSeed[];
  /** `RollingUpdate` (the default) or `OnDelete`. */
  readonly updateStrategy?: string;
  /** Nodes the DaemonSet runs on. */
  readonly nodes?: number;
}

const podTemplate = (app: string, containers: readonly ContainerSeed[]): JsonObject => ({
  metadata: { labels: { app } },
  spec: {
    containers: containers.map((c) => ({
      name: c.name,
      image: c.image,
      imagePullPolicy: 'IfNotPresent',
      resources: {},
      terminationMessagePath: '/dev/termination-log',
      terminationMessagePolicy: 'File',
    })),
    restartPolicy: 'Always',
    dnsPolicy: 'ClusterFirst',
    schedulerName: 'default-scheduler',
    terminationGracePeriodSeconds: 30,
  },
});

export const deploymentObject = (seed: DeploymentSeed): JsonObject => {
  const replicas = seed.replicas ?? 1;
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: {
      name: seed.name,
      namespace: seed.namespace,
      labels: { app: seed.name, 'app.kubernetes.io/managed-by': 'Helm' },
      annotations: { 'deployment.kubernetes.io/revision': '1', ...seed.annotations },
    },
    spec: {
      replicas,
      selector: { matchLabels: { app: seed.name } },
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' } },
      progressDeadlineSeconds: 600,
      revisionHistoryLimit: 10,
      template: podTemplate(seed.name, seed.containers),
    },
    status: {
      observedGeneration: 1,
      replicas,
      updatedReplicas: replicas,
      readyReplicas: replicas,
      availableReplicas: replicas,
      conditions: [
        { type: 'Available', status: 'True', reason: 'MinimumReplicasAvailable' },
        { type: 'Progressing', status: 'True', reason: 'NewReplicaSetAvailable' },
      ],
    },
  };
};

export const daemonSetObject = (seed: DaemonSetSeed): JsonObject => {
  const nodes = seed.nodes ?? 3;
  const type = seed.updateStrategy ?? 'RollingUpdate';
  return {
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: {
      name: seed.name,
      namespace: seed.namespace,
      labels: { app: seed.name, 'app.kubernetes.io/managed-by': 'Helm' },
      annotations: { 'deprecated.daemonset.template.generation': '1' },
    },
    spec: {
      selector: { matchLabels: { app: seed.name } },
      updateStrategy: type === 'RollingUpdate' ? { type, rollingUpdate: { maxUnavailable: 1, maxSurge: 0 } } : { type },
      revisionHistoryLimit: 10,
      template: podTemplate(seed.name, seed.containers),
    },
    status: {
      observedGeneration: 1,
      currentNumberScheduled: nodes,
      desiredNumberScheduled: nodes,
      numberMisscheduled: 0,
      numberReady: nodes,
      updatedNumberScheduled: nodes,
      numberAvailable: nodes,
    },
  };
};

/** The release `stg` of docs/behaviour.md §2, as the core simulator's SIM_ENVIRONMENT names it. */
export const chartWorkloads = (
  options: { release?: string; namespace?: string; nodeAgentsNamespace?: string; tag?: string } = {},
) => {
  const release = options.release ?? 'stg';
  const namespace = options.namespace ?? 'tracebloc';
  const tag = options.tag ?? 'stg';
  return {
    jobsManager: deploymentObject({
      namespace,
      name: `${release}-jobs-manager`,
      containers: [
        { name: 'api', image: `docker.io/tracebloc/jobs-manager:${tag}` },
        { name: 'pods-monitor-container', image: `docker.io/tracebloc/pods-monitor:${tag}` },
      ],
    }),
    requestsProxy: deploymentObject({
      namespace,
      name: `${release}-requests-proxy`,
      containers: [{ name: 'proxy', image: `docker.io/tracebloc/jobs-manager:${tag}` }],
    }),
    resourceMonitor: daemonSetObject({
      namespace: options.nodeAgentsNamespace ?? 'tracebloc-node-agents',
      name: `${release}-resource-monitor`,
      containers: [{ name: 'tracebloc-resource-monitor', image: `docker.io/tracebloc/resource-monitor:${tag}` }],
    }),
  };
};
