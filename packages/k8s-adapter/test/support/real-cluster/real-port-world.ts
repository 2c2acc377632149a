import { PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { testConfig } from '../../cluster/cluster-test-kit.js';
import type { PortWorld, Refusal, StartWorld, WorkloadName } from '../../contract/port-world.js';
import type { JsonObject } from '../fake-api-patch.js';
import { asAdmin } from './admin.js';
import type { VerbRemoved } from './deploy-rbac.js';
import { JOBS_MANAGER, REQUESTS_PROXY, RESOURCE_MONITOR, SERVICE_ACCOUNT, startRealRelease } from './real-release.js';

// The port contract's world on the real control plane: a release of its own
// (real-release.ts), the shipped Roles as the only rights, the API proxy's
// record as "what the server saw". A refused verb is the shipped Role with
// that verb taken out, so the refusal is the apiserver's own.

/** Which shipped Role rule grants a resource (packages/cli/deploy/role-*.yaml). */
const RULE: Readonly<Record<Refusal['resource'], { role: string; rule: number }>> = {
  deployments: { role: SERVICE_ACCOUNT, rule: 0 },
  events: { role: SERVICE_ACCOUNT, rule: 1 },
  daemonsets: { role: `${SERVICE_ACCOUNT}-node-agents`, rule: 0 },
};

const removed = (refusal: Refusal): VerbRemoved => ({ ...RULE[refusal.resource], verb: refusal.verb });

/** What a JSON round trip makes of client-node's model objects: the wire shape the fake's objects have. */
const asJson = (object: unknown): JsonObject => JSON.parse(JSON.stringify(object)) as JsonObject;

export const startRealPortWorld: StartWorld = async (options = {}) => {
  const release = await startRealRelease({
    ...options,
    ...(options.refuse === undefined ? {} : { removeVerbs: options.refuse.map(removed) }),
  });
  const admin = asAdmin();
  const { namespaces } = release;
  const object = (name: WorkloadName) =>
    name === 'jobs-manager'
      ? { kind: 'Deployment' as const, name: JOBS_MANAGER, namespace: namespaces.release }
      : name === 'requests-proxy'
        ? { kind: 'Deployment' as const, name: REQUESTS_PROXY, namespace: namespaces.release }
        : { kind: 'DaemonSet' as const, name: RESOURCE_MONITOR, namespace: namespaces.agents };
  const world: PortWorld = {
    server: 'the real kube-apiserver',
    config: (overrides = {}) =>
      testConfig({ RELEASE_NAMESPACE: namespaces.release, NODE_AGENTS_NAMESPACE: namespaces.agents, ...overrides }),
    kubeConfig: () => release.kubeConfig(),
    requests: () => release.proxy.requests,
    resetLog: () => release.proxy.resetLog(),
    inject: (match, fault, times) => release.proxy.inject(match, fault, times),
    workload: async (name) =>
      asJson(
        name === 'jobs-manager'
          ? await release.jobsManager()
          : name === 'requests-proxy'
            ? await release.requestsProxy()
            : await release.resourceMonitor(),
      ),
    events: async () => (await admin.events.listNamespacedEvent({ namespace: namespaces.release })).items.map(asJson),
    humanAnnotates: async (key, value) => {
      await admin.apps.patchNamespacedDeployment(
        {
          name: JOBS_MANAGER,
          namespace: namespaces.release,
          body: { metadata: { annotations: { [key]: value } } },
          fieldManager: 'kubectl-annotate',
        },
        setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
      );
    },
    humanSetsImage: async (name, container, image) => {
      const target = object(name);
      const body = { spec: { template: { spec: { containers: [{ name: container, image }] } } } };
      const options = setHeaderOptions('Content-Type', PatchStrategy.StrategicMergePatch);
      if (target.kind === 'Deployment') {
        await admin.apps.patchNamespacedDeployment({ ...target, body, fieldManager: 'kubectl-set' }, options);
      } else {
        await admin.apps.patchNamespacedDaemonSet({ ...target, body, fieldManager: 'kubectl-set' }, options);
      }
    },
    close: () => release.close(),
  };
  return world;
};
