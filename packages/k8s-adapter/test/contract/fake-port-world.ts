import { kubeConfigFor, testConfig } from '../cluster/cluster-test-kit.js';
import {
  AGENTS_NS,
  JOBS_MANAGER,
  NS,
  REQUESTS_PROXY,
  RESOURCE_MONITOR,
  startChartCluster,
} from '../support/fake-api-chart.js';
import type { FaultMatch } from '../support/fake-api-faults.js';
import type { FakeKind } from '../support/fake-api-objects.js';
import type { PortWorld, Refusal, StartWorld, WorkloadName } from './port-world.js';

// The port contract's world on the fake API server: the chart's release in
// `tracebloc`, kubeconfig with the server's token. A refused verb is a 403 with
// the words a real apiserver's RBAC uses (the real world proves them).

const OBJECTS: Readonly<Record<WorkloadName, { kind: FakeKind; namespace: string; name: string }>> = {
  'jobs-manager': { kind: 'Deployment', namespace: NS, name: JOBS_MANAGER },
  'requests-proxy': { kind: 'Deployment', namespace: NS, name: REQUESTS_PROXY },
  'resource-monitor': { kind: 'DaemonSet', namespace: AGENTS_NS, name: RESOURCE_MONITOR },
};

const SUBJECT = 'system:serviceaccount:tracebloc:stg-image-refresh';

const refusalMatch = (refusal: Refusal): FaultMatch =>
  refusal.resource === 'events'
    ? { route: 'event', method: refusal.verb === 'create' ? 'POST' : 'PATCH' }
    : {
        route: refusal.verb === 'get' ? 'get' : 'patch',
        kind: refusal.resource === 'deployments' ? 'Deployment' : 'DaemonSet',
      };

const refusalMessage = (refusal: Refusal): string => {
  const group = refusal.resource === 'events' ? 'events.k8s.io' : 'apps';
  const namespace = refusal.resource === 'daemonsets' ? AGENTS_NS : NS;
  return `${refusal.resource}.${group} is forbidden: User "${SUBJECT}" cannot ${refusal.verb} resource "${refusal.resource}" in API group "${group}" in the namespace "${namespace}"`;
};

export const startFakePortWorld: StartWorld = async (options = {}) => {
  const cluster = await startChartCluster({
    stepMs: 40,
    ...(options.annotations === undefined ? {} : { annotations: options.annotations }),
    ...(options.daemonSetStrategy === undefined ? {} : { daemonSetStrategy: options.daemonSetStrategy }),
    ...(options.progressDeadlineSeconds === undefined
      ? {}
      : { progressDeadlineSeconds: options.progressDeadlineSeconds }),
    ...(options.withoutJobsManager === undefined ? {} : { withoutJobsManager: options.withoutJobsManager }),
  });
  for (const refusal of options.refuse ?? []) {
    cluster.server.inject(
      refusalMatch(refusal),
      { kind: 'status', code: 403, reason: 'Forbidden', message: refusalMessage(refusal) },
      Number.POSITIVE_INFINITY,
    );
  }
  const world: PortWorld = {
    server: 'the fake API server',
    config: (overrides = {}) => testConfig(overrides),
    kubeConfig: () => kubeConfigFor(cluster),
    requests: () => cluster.server.requests,
    resetLog: () => cluster.server.resetLog(),
    inject: (match, fault, times) => cluster.server.inject(match, fault, times),
    workload: async (name) => {
      const { kind, namespace, name: object } = OBJECTS[name];
      const found = cluster.server.store.get(kind, namespace, object);
      if (found === undefined) throw new Error(`the fake API server holds no ${kind} ${namespace}/${object}`);
      return found;
    },
    events: async () => cluster.server.events.allEventsV1(),
    humanAnnotates: async (key, value) => {
      cluster.server.store.patch(
        'Deployment',
        NS,
        JOBS_MANAGER,
        'merge',
        { metadata: { annotations: { [key]: value } } },
        'kubectl-annotate',
      );
    },
    humanSetsImage: async (name, container, image) => {
      const { kind, namespace, name: object } = OBJECTS[name];
      cluster.server.store.patch(
        kind,
        namespace,
        object,
        'strategic',
        { spec: { template: { spec: { containers: [{ name: container, image }] } } } },
        'kubectl-set',
      );
    },
    close: () => cluster.close(),
  };
  return world;
};
