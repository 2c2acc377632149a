import { DEFAULTS, ENV, type Environment } from '../environment.js';
import { kubernetesName, NAMESPACE, OBJECT_NAME, type Problems, read, required } from '../read-environment.js';
import type { ChartNames } from './chart-profile.js';

// The chart's variables that name its topology (docs/behaviour.md §2): read
// only when no profile is given, to build DEFAULT_PROFILE; with a profile
// they mean nothing and each one set is said. With chart-profile.ts, the one
// place the library names the chart's workloads.

/** What each chart variable that names the topology means, for the variables' list (variables.ts). */
export const CHART_VARIABLE_MEANINGS = {
  releaseNamespace: 'the namespace of jobs-manager and requests-proxy',
  deploymentName: ['`<release>-jobs-manager`', 'the jobs-manager Deployment; the bookkeeping annotations live on it'],
  requestsProxyDeployment: ['`<release>-requests-proxy`', 'the requests-proxy Deployment'],
  resourceMonitorDaemonSet: ['`<release>-resource-monitor`', 'the resource-monitor DaemonSet'],
  nodeAgentsNamespace: 'the namespace of the resource-monitor DaemonSet',
  jobsManagerPinned: '`1`: jobs-manager is neither resolved nor re-imaged',
  podsMonitorPinned: '`1`: pods-monitor is neither resolved nor re-imaged',
  resourceMonitorPinned: '`1`: resource-monitor is neither resolved nor re-imaged',
  requestsProxyPinned: '`1`: requests-proxy does not follow the jobs-manager digest',
} as const;

/** The chart's variables that name its topology: with a profile they mean nothing, and a tick says so. */
export const CHART_TOPOLOGY_VARIABLES: readonly string[] = [
  ENV.releaseName,
  ENV.releaseNamespace,
  ENV.deploymentName,
  ENV.requestsProxyDeployment,
  ENV.resourceMonitorDaemonSet,
  ENV.nodeAgentsNamespace,
  ENV.imageRegistry,
  ENV.jobsManagerPinned,
  ENV.podsMonitorPinned,
  ENV.resourceMonitorPinned,
  ENV.requestsProxyPinned,
];

/**
 * The chart's names of its three workloads (docs/behaviour.md §2): RELEASE_NAME and
 * RELEASE_NAMESPACE required, the rest derived from the release unless set.
 */
export const chartNamesOf = (env: Environment, problems: Problems): ChartNames => {
  const releaseName = kubernetesName(
    problems,
    ENV.releaseName,
    required(env, problems, ENV.releaseName, 'the Helm release name'),
    OBJECT_NAME,
  );
  const releaseNamespace = kubernetesName(
    problems,
    ENV.releaseNamespace,
    required(env, problems, ENV.releaseNamespace, 'the namespace of the jobs-manager Deployment'),
    NAMESPACE,
  );
  const derived = (suffix: string): string => (releaseName === '' ? '' : `${releaseName}-${suffix}`);
  const objectName = (variable: string, suffix: string): string =>
    kubernetesName(problems, variable, read(env, variable) ?? derived(suffix), OBJECT_NAME);
  return {
    releaseName,
    releaseNamespace,
    deploymentName: objectName(ENV.deploymentName, 'jobs-manager'),
    requestsProxyDeployment: objectName(ENV.requestsProxyDeployment, 'requests-proxy'),
    resourceMonitorDaemonSet: objectName(ENV.resourceMonitorDaemonSet, 'resource-monitor'),
    nodeAgentsNamespace: kubernetesName(
      problems,
      ENV.nodeAgentsNamespace,
      read(env, ENV.nodeAgentsNamespace) ?? DEFAULTS.nodeAgentsNamespace,
      NAMESPACE,
    ),
  };
};
