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
  /**
   * FLAP_LOCKOUT_EXIT=1: a tick in flap lockout with drift pending exits 1.
   * Off by default for drop-in compatibility: the reference exits 0 there
   * (SPEC §5, "green while frozen", noted in the seeds but left alone).
   */
  readonly flapLockoutIsFinding: boolean;
  /** Below this `ratelimit-remaining` (or after any 429) no re-image starts: every re-image makes nodes pull. */
  readonly registryBudgetFloor: number;
  /** IMAGE_REFRESH_EVENTS=0 turns off the Kubernetes Events a tick records. */
  readonly kubernetesEvents: boolean;
  /**
   * RECONCILE_LIVE (issue 7): compare each workload's live container images
   * with what image-refresh pinned — `report` says where a Helm re-render or a
   * hand edit undid a pin (or requests-proxy runs another build than
   * jobs-manager), `repair` also re-pins through the guarded re-image path.
   * `off` (the default) reads and writes exactly what the reference does.
   */
  readonly reconcileLive: 'off' | 'report' | 'repair';
  /**
   * DECOUPLED_REFRESH=1 (issue 7, the seeds' "decision 1", safe subset): an
   * unsettled jobs-manager still counts its skip streak exactly as before,
   * but requests-proxy and resource-monitor are refreshed if they are
   * settled themselves. pods-monitor, a sidecar of jobs-manager, never is.
   */
  readonly decoupledRefresh: boolean;
}

export type ConfigError = {
  readonly variable: string;
  /** The offending value, or undefined when the variable is missing. */
  readonly value: string | undefined;
  readonly problem: string;
};

export const describeConfigError = (e: ConfigError): string =>
  e.value === undefined ? `${e.variable}: ${e.problem}` : `${e.variable}=${JSON.stringify(e.value)}: ${e.problem}`;
