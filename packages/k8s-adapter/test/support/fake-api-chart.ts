import { rmSync } from 'node:fs';
import type { RolloutBehaviour } from './fake-api-controller.js';
import { type FakeKubeconfig, writeFakeKubeconfig } from './fake-api-kubeconfig.js';
import { chartWorkloads } from './fake-api-objects.js';
import type { JsonObject } from './fake-api-patch.js';
import { type FakeApiServer, type FakeApiServerOptions, startFakeApiServer } from './fake-api-server.js';

// A fake API server holding one release of the chart (docs/behaviour.md §2, named as the
// core simulator's SIM_ENVIRONMENT names it), with a kubeconfig for it.

export const NS = 'tracebloc';
export const AGENTS_NS = 'tracebloc-node-agents';
export const JOBS_MANAGER = 'stg-jobs-manager';
export const REQUESTS_PROXY = 'stg-requests-proxy';
export const RESOURCE_MONITOR = 'stg-resource-monitor';

/** The chart's containers per workload object and the repository each runs (docs/behaviour.md §2). */
export const CHART_CONTAINERS: Readonly<Record<string, readonly { container: string; repo: string }[]>> = {
  [JOBS_MANAGER]: [
    { container: 'api', repo: 'tracebloc/jobs-manager' },
    { container: 'pods-monitor-container', repo: 'tracebloc/pods-monitor' },
  ],
  [REQUESTS_PROXY]: [{ container: 'proxy', repo: 'tracebloc/jobs-manager' }],
  [RESOURCE_MONITOR]: [{ container: 'tracebloc-resource-monitor', repo: 'tracebloc/resource-monitor' }],
};

/** The chart's containers of one workload object; throws for an object the chart does not render. */
export const chartContainersOf = (name: string): readonly { container: string; repo: string }[] => {
  const containers = CHART_CONTAINERS[name];
  if (containers === undefined) throw new Error(`no chart containers known for ${name}`);
  return containers;
};

export interface ChartCluster {
  readonly server: FakeApiServer;
  readonly kubeconfig: FakeKubeconfig;
  /** The jobs-manager Deployment as the server holds it now. */
  readonly jobsManager: () => JsonObject;
  readonly requestsProxy: () => JsonObject;
  readonly resourceMonitor: () => JsonObject;
  readonly close: () => Promise<void>;
}

export interface ChartOptions extends FakeApiServerOptions {
  readonly behaviour?: RolloutBehaviour;
  /** Annotations the jobs-manager Deployment starts with. */
  readonly annotations?: Readonly<Record<string, string>>;
  /** The DaemonSet's update strategy (default RollingUpdate). */
  readonly daemonSetStrategy?: string;
  /** Leave the jobs-manager Deployment out (a release without it). */
  readonly withoutJobsManager?: boolean;
  /** spec.progressDeadlineSeconds of both Deployments (the chart's: 600). */
  readonly progressDeadlineSeconds?: number;
}

const must = (object: JsonObject | undefined, what: string): JsonObject => {
  if (object === undefined) throw new Error(`the fake API server holds no ${what}`);
  return object;
};

export const startChartCluster = async (options: ChartOptions = {}): Promise<ChartCluster> => {
  const server = await startFakeApiServer(options);
  const w = chartWorkloads();
  const behaviour = options.behaviour ?? 'settles';
  if (options.annotations !== undefined) {
    const metadata = w.jobsManager.metadata as JsonObject;
    metadata.annotations = { ...(metadata.annotations as JsonObject), ...options.annotations };
  }
  if (options.progressDeadlineSeconds !== undefined) {
    for (const deployment of [w.jobsManager, w.requestsProxy]) {
      (deployment.spec as JsonObject).progressDeadlineSeconds = options.progressDeadlineSeconds;
    }
  }
  if (options.daemonSetStrategy !== undefined) {
    (w.resourceMonitor.spec as JsonObject).updateStrategy = { type: options.daemonSetStrategy };
  }
  if (options.withoutJobsManager !== true) server.store.put(w.jobsManager, behaviour);
  server.store.put(w.requestsProxy, behaviour);
  server.store.put(w.resourceMonitor, behaviour);
  const kubeconfig = writeFakeKubeconfig(server, { namespace: NS });
  return {
    server,
    kubeconfig,
    jobsManager: () => must(server.store.get('Deployment', NS, JOBS_MANAGER), JOBS_MANAGER),
    requestsProxy: () => must(server.store.get('Deployment', NS, REQUESTS_PROXY), REQUESTS_PROXY),
    resourceMonitor: () => must(server.store.get('DaemonSet', AGENTS_NS, RESOURCE_MONITOR), RESOURCE_MONITOR),
    close: async () => {
      await server.close();
      rmSync(kubeconfig.dir, { recursive: true, force: true });
    },
  };
};

/** Container name → image of a workload object. */
export const imagesOf = (object: JsonObject): Record<string, string> => {
  const containers = ((object.spec as JsonObject).template as JsonObject).spec as JsonObject;
  return Object.fromEntries(
    (containers.containers as JsonObject[]).map((c) => [String(c.name), String(c.image)] as const),
  );
};

export const annotationsOf = (object: JsonObject): Record<string, string> =>
  ((object.metadata as JsonObject).annotations ?? {}) as Record<string, string>;

export const generationOf = (object: JsonObject): number => Number((object.metadata as JsonObject).generation);

/**
 * The pod template: what a rollout changes. Only a set image (or a human's edit) moves it; a
 * Deployment's generation moves for an annotation too, so "not re-imaged" is asserted on this.
 */
export const templateOf = (object: JsonObject): JsonObject => (object.spec as JsonObject).template as JsonObject;
