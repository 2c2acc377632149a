import type { TickConfig } from '../../src/config/tick-config.js';
import { type ImageSpec, imageOf, type WorkloadRef, workloadOf } from '../../src/domain/workloads.js';
import { simConfig } from '../../src/sim/sim-config.js';

// The chart's topology in the words the example tests speak: the default
// profile's images, workloads and bookkeeping keys (docs/behaviour.md §2),
// taken from the simulator's config so that a test names what the tick
// follows, never a second copy of it. The property suite (test/spec/) takes
// all of it from the edge's own `config.topology` instead, so that it holds
// for any profile.

/** The chart's three images. */
export type ImageName = 'jobs-manager' | 'pods-monitor' | 'resource-monitor';
/** The chart's three workloads; requests-proxy runs the jobs-manager image. */
export type WorkloadId = 'jobs-manager' | 'requests-proxy' | 'resource-monitor';

const CHART = simConfig().topology;

/** The chart's images, in the order a tick resolves them. */
export const IMAGES = CHART.images;

/** The chart's tick-wide bookkeeping keys (`tracebloc.io/refresh-attempt`, …). */
export const ANNOTATION = CHART.keys;

/** One of the chart's images. */
export const imageSpec = (name: string): ImageSpec => imageOf(CHART, name);

/** Where a workload lives under a config: its identity as a patch and a rollout name it. */
export const workloadRef = (config: TickConfig, id: string): WorkloadRef => {
  const { kind, name, namespace } = workloadOf(config.topology, id);
  return { id, kind, name, namespace };
};

/** An image pinned under this config (its `*_PINNED=1`, I13). */
const isImagePinned = (config: TickConfig, image: string): boolean => imageOf(config.topology, image).pinned;

/** The chart's names as a config resolved them (RELEASE_NAME and friends, docs/behaviour.md §2). */
export const chartNamesOf = (config: TickConfig) => ({
  releaseNamespace: workloadOf(config.topology, 'jobs-manager').namespace,
  deploymentName: workloadOf(config.topology, 'jobs-manager').name,
  requestsProxyDeployment: workloadOf(config.topology, 'requests-proxy').name,
  resourceMonitorDaemonSet: workloadOf(config.topology, 'resource-monitor').name,
  nodeAgentsNamespace: workloadOf(config.topology, 'resource-monitor').namespace,
});

/** The chart's four pins as a config resolved them. */
export const chartPinsOf = (config: TickConfig) => ({
  jobsManager: isImagePinned(config, 'jobs-manager'),
  podsMonitor: isImagePinned(config, 'pods-monitor'),
  resourceMonitor: isImagePinned(config, 'resource-monitor'),
  requestsProxy: workloadOf(config.topology, 'requests-proxy').pinned,
});

/** The chart's topology under the simulator's names: what bookkeeping helpers are handed in tests. */
export const CHART_TOPOLOGY = CHART;
