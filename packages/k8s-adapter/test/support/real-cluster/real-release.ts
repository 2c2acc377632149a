import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig, type V1DaemonSet, type V1Deployment, type V1Pod } from '@kubernetes/client-node';
import { chartWorkloads } from '../fake-api-objects.js';
import type { JsonObject } from '../fake-api-patch.js';
import { asAdmin, controlPlane, eventually, isRolledOut } from './admin.js';
import { type ApiProxy, startApiProxy } from './api-proxy.js';
import { applyDeploy, type DeployComponent, type Namespaces, type VerbRemoved } from './deploy-rbac.js';

// One release of the chart on the real control plane, in namespaces of its
// own (so test files and tests never see each other's objects): the three
// workloads as the chart renders them, rolled out by the real Deployment and
// DaemonSet controllers onto kwok's nodes; the shipped RBAC of
// packages/cli/deploy/ applied with `kubectl apply -k`; a token for its
// ServiceAccount from the TokenRequest API; and a kubeconfig with that token
// pointed at an API proxy in front of the apiserver — the only credentials the
// code under test gets, so every call it makes is judged by the shipped
// Roles, and every request it sends is on the proxy's record.

export const RELEASE = 'stg';
export const SERVICE_ACCOUNT = `${RELEASE}-image-refresh`;
export const JOBS_MANAGER = `${RELEASE}-jobs-manager`;
export const REQUESTS_PROXY = `${RELEASE}-requests-proxy`;
export const RESOURCE_MONITOR = `${RELEASE}-resource-monitor`;

export interface RealReleaseOptions {
  /** Annotations the jobs-manager Deployment starts with. */
  readonly annotations?: Readonly<Record<string, string>>;
  /** The DaemonSet's update strategy (default RollingUpdate). */
  readonly daemonSetStrategy?: 'RollingUpdate' | 'OnDelete';
  /** spec.progressDeadlineSeconds of both Deployments (the chart's: 600). */
  readonly progressDeadlineSeconds?: number;
  /** Leave the jobs-manager Deployment out (a release without it). */
  readonly withoutJobsManager?: boolean;
  /** Verbs taken out of the shipped Roles (the RBAC proofs). */
  readonly removeVerbs?: readonly VerbRemoved[];
  /** Optional components of deploy/ applied with the base (`staging`: PREPULL's pods). */
  readonly components?: readonly DeployComponent[];
}

export interface RealRelease {
  readonly namespaces: Namespaces;
  readonly proxy: ApiProxy;
  /** The ServiceAccount's kubeconfig, through the proxy: what the port or the CLI is given. */
  readonly kubeconfig: { readonly path: string; readonly dir: string };
  /** client-node's KubeConfig of that same file. */
  kubeConfig(): KubeConfig;
  jobsManager(): Promise<V1Deployment>;
  requestsProxy(): Promise<V1Deployment>;
  resourceMonitor(): Promise<V1DaemonSet>;
  /** The pods of a workload, by its `app` label, as the real controllers made them. */
  podsOf(name: string, namespace?: string): Promise<V1Pod[]>;
  /** Waits until every workload of the release is rolled out (kubectl's rules). */
  settled(withinMs?: number): Promise<void>;
  close(): Promise<void>;
}

/** Who creates the release's objects: as on an edge, Helm owns every field until someone else sets one. */
const HELM = 'helm';

let serial = 0;

/** A chart object as a create request wants it: no status, no controller-owned annotation. */
const forCreate = (object: JsonObject): JsonObject => {
  const { status: _status, ...rest } = object;
  const metadata = { ...(rest.metadata as JsonObject) };
  const annotations = { ...((metadata.annotations as Record<string, string> | undefined) ?? {}) };
  delete annotations['deployment.kubernetes.io/revision'];
  delete annotations['deprecated.daemonset.template.generation'];
  return { ...rest, metadata: { ...metadata, annotations } };
};

export const startRealRelease = async (options: RealReleaseOptions = {}): Promise<RealRelease> => {
  const admin = asAdmin();
  const plane = controlPlane();
  serial += 1;
  const tag = `${process.pid.toString(36)}${serial}${randomBytes(2).toString('hex')}`;
  const namespaces: Namespaces = { release: `rc-${tag}-tracebloc`, agents: `rc-${tag}-agents` };
  for (const name of [namespaces.release, namespaces.agents]) {
    await admin.core.createNamespace({
      body: { metadata: { name, labels: { 'image-refresh.test/real-cluster': 'true' } } },
    });
  }
  applyDeploy(plane.kubeconfig, namespaces, options.removeVerbs, options.components);

  const w = chartWorkloads({ release: RELEASE, namespace: namespaces.release, nodeAgentsNamespace: namespaces.agents });
  const deployment = (object: JsonObject, annotations: Readonly<Record<string, string>> = {}): V1Deployment => {
    const created = forCreate(object) as V1Deployment;
    if (created.metadata !== undefined)
      created.metadata.annotations = { ...created.metadata.annotations, ...annotations };
    if (options.progressDeadlineSeconds !== undefined && created.spec !== undefined) {
      created.spec.progressDeadlineSeconds = options.progressDeadlineSeconds;
    }
    return created;
  };
  if (options.withoutJobsManager !== true) {
    await admin.apps.createNamespacedDeployment({
      namespace: namespaces.release,
      body: deployment(w.jobsManager, options.annotations),
      fieldManager: HELM,
    });
  }
  await admin.apps.createNamespacedDeployment({
    namespace: namespaces.release,
    body: deployment(w.requestsProxy),
    fieldManager: HELM,
  });
  const daemonSet = forCreate(w.resourceMonitor) as V1DaemonSet;
  if (options.daemonSetStrategy === 'OnDelete' && daemonSet.spec !== undefined) {
    daemonSet.spec.updateStrategy = { type: 'OnDelete' };
  }
  await admin.apps.createNamespacedDaemonSet({ namespace: namespaces.agents, body: daemonSet, fieldManager: HELM });

  const read = {
    jobsManager: () => admin.apps.readNamespacedDeployment({ name: JOBS_MANAGER, namespace: namespaces.release }),
    requestsProxy: () => admin.apps.readNamespacedDeployment({ name: REQUESTS_PROXY, namespace: namespaces.release }),
    resourceMonitor: () => admin.apps.readNamespacedDaemonSet({ name: RESOURCE_MONITOR, namespace: namespaces.agents }),
  };
  const settled = async (withinMs = 60_000): Promise<void> => {
    const workloads = [
      ...(options.withoutJobsManager === true ? [] : [read.jobsManager]),
      read.requestsProxy,
      read.resourceMonitor,
    ];
    await eventually(
      `release ${RELEASE} in ${namespaces.release} rolled out`,
      async () => ((await Promise.all(workloads.map((r) => r()))).every(isRolledOut) ? true : undefined),
      withinMs,
    );
  };
  await settled();

  const { status } = await admin.core.createNamespacedServiceAccountToken({
    name: SERVICE_ACCOUNT,
    namespace: namespaces.release,
    body: { spec: { expirationSeconds: 3_600, audiences: [] } },
  });
  const token = status?.token;
  if (token === undefined) throw new Error(`TokenRequest for ${SERVICE_ACCOUNT} answered no token`);

  const proxy = await startApiProxy({
    upstream: plane.server,
    caFile: plane.caFile,
    certFile: join(plane.dir, 'apiserver.crt'),
    keyFile: join(plane.dir, 'apiserver.key'),
  });
  const dir = mkdtempSync(join(tmpdir(), 'image-refresh-real-kubeconfig-'));
  const path = join(dir, 'kubeconfig');
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromOptions({
    clusters: [{ name: 'real', server: proxy.url, caFile: plane.caFile }],
    users: [{ name: SERVICE_ACCOUNT, token }],
    contexts: [{ name: 'real', cluster: 'real', user: SERVICE_ACCOUNT, namespace: namespaces.release }],
    currentContext: 'real',
  });
  writeFileSync(path, kubeConfig.exportConfig(), { mode: 0o600 });

  return {
    namespaces,
    proxy,
    kubeconfig: { path, dir },
    kubeConfig: () => {
      const kc = new KubeConfig();
      kc.loadFromFile(path);
      return kc;
    },
    ...read,
    podsOf: async (name, namespace = name === RESOURCE_MONITOR ? namespaces.agents : namespaces.release) =>
      (await admin.core.listNamespacedPod({ namespace, labelSelector: `app=${name}` })).items,
    settled,
    close: async () => {
      await proxy.close();
      rmSync(dir, { recursive: true, force: true });
      // Not awaited to the end: the namespace controller finalizes in the background, and no later test sees these names.
      for (const name of [namespaces.release, namespaces.agents]) await admin.core.deleteNamespace({ name });
    },
  };
};
