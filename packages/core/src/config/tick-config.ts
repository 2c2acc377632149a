import type { PinName } from '../domain/workloads.js';

/** Everything one tick needs to know, parsed and validated (see parseTickConfig). */
export interface TickConfig {
  readonly releaseName: string;
  readonly releaseNamespace: string;
  /** The jobs-manager Deployment; all bookkeeping annotations live on it. */
  readonly deploymentName: string;
  readonly requestsProxyDeployment: string;
  readonly resourceMonitorDaemonSet: string;
  readonly nodeAgentsNamespace: string;
  /** The registry the chart renders into pod images; anything but docker.io makes the tick inert (I14). */
  readonly imageRegistry: string;
  readonly imageTag: string;
  readonly rolloutTimeoutMs: number;
  readonly maxRefreshAttempts: number;
  readonly maxSkipTicks: number;
  readonly pins: Readonly<Record<PinName, boolean>>;
  /** The settled guard's window (the reference's `rollout status --timeout=10s`). */
  readonly settleTimeoutMs: number;
  /** Bound of every non-watch Kubernetes API request. */
  readonly apiTimeoutMs: number;
  /** Bound of every registry request. */
  readonly registryTimeoutMs: number;
  /** Registry API base the digests are resolved from. */
  readonly registryUrl: string;
}

export type ConfigError = {
  readonly variable: string;
  /** The offending value, or undefined when the variable is missing. */
  readonly value: string | undefined;
  readonly problem: string;
};

export const describeConfigError = (e: ConfigError): string =>
  e.value === undefined ? `${e.variable}: ${e.problem}` : `${e.variable}=${JSON.stringify(e.value)}: ${e.problem}`;
