import { CHART_NODE_AGENTS_NAMESPACE } from './profile/chart-profile.js';

// The chart's environment contract (docs/behaviour.md §2). Names are load-bearing: the
// CronJob template sets exactly these.
/**
 * The names of the environment variables a tick reads, by config field: the
 * chart's contract (docs/behaviour.md §2) plus ours. Build an {@link Environment} with them
 * rather than with string literals; the names never change within a major.
 */
export const ENV = {
  releaseName: 'RELEASE_NAME',
  releaseNamespace: 'RELEASE_NAMESPACE',
  deploymentName: 'DEPLOYMENT_NAME',
  requestsProxyDeployment: 'REQUESTS_PROXY_DEPLOYMENT',
  resourceMonitorDaemonSet: 'RESOURCE_MONITOR_DAEMONSET',
  nodeAgentsNamespace: 'NODE_AGENTS_NAMESPACE',
  imageRegistry: 'IMAGE_REGISTRY',
  imageTag: 'IMAGE_TAG',
  rolloutTimeout: 'ROLLOUT_TIMEOUT',
  maxRefreshAttempts: 'MAX_REFRESH_ATTEMPTS',
  maxSkipTicks: 'MAX_SKIP_TICKS',
  jobsManagerPinned: 'JOBS_MANAGER_PINNED',
  podsMonitorPinned: 'PODS_MONITOR_PINNED',
  resourceMonitorPinned: 'RESOURCE_MONITOR_PINNED',
  requestsProxyPinned: 'REQUESTS_PROXY_PINNED',
  // A topology of one's own (docs/profiles.md).
  profile: 'IMAGE_REFRESH_PROFILE',
  ownershipCheck: 'OWNERSHIP_CHECK',
  mirrorMode: 'MIRROR_MODE',
  // Ours, beyond the chart's.
  settleTimeout: 'SETTLE_TIMEOUT',
  apiTimeout: 'API_TIMEOUT',
  registryTimeout: 'REGISTRY_TIMEOUT',
  registryUrl: 'IMAGE_REFRESH_REGISTRY_URL',
  authUrl: 'IMAGE_REFRESH_AUTH_URL',
  flapLockoutExit: 'FLAP_LOCKOUT_EXIT',
  maxResolveFailureTicks: 'MAX_RESOLVE_FAILURE_TICKS',
  registryBudgetFloor: 'REGISTRY_BUDGET_FLOOR',
  kubernetesEvents: 'IMAGE_REFRESH_EVENTS',
  reconcileLive: 'RECONCILE_LIVE',
  decoupledRefresh: 'DECOUPLED_REFRESH',
  onRolloutFailure: 'ON_ROLLOUT_FAILURE',
  rolloutStableFor: 'ROLLOUT_STABLE_FOR',
  // Fleet-safe rollout (docs/behaviour.md §3.4a step 2, §3.3).
  minDigestAge: 'MIN_DIGEST_AGE',
  rolloutRing: 'ROLLOUT_RING',
  ringDelay: 'RING_DELAY',
  startJitter: 'START_JITTER',
  // The fleet halt (docs/behaviour.md §3.4b).
  fleetHaltRef: 'FLEET_HALT_REF',
  fleetHaltExit: 'FLEET_HALT_EXIT',
  // Promotion by evidence (docs/fleet-promotion.md).
  fleetPromotionRef: 'FLEET_PROMOTION_REF',
} as const;

/** Environment variables by name, as `process.env` holds them; unset and empty mean the same. */
export type Environment = Readonly<Record<string, string | undefined>>;

export const DEFAULTS = {
  imageRegistry: 'docker.io',
  nodeAgentsNamespace: CHART_NODE_AGENTS_NAMESPACE,
  rolloutTimeout: '10m',
  maxRefreshAttempts: 3,
  maxSkipTicks: 8,
  settleTimeout: '10s',
  apiTimeout: '15s',
  registryTimeout: '10s',
  registryUrl: 'https://registry-1.docker.io',
  registryBudgetFloor: 10,
  maxResolveFailureTicks: 8,
  rolloutStableFor: '0s',
  minDigestAge: '0s',
  rolloutRing: 0,
  ringDelay: '1h',
  startJitter: '0s',
} as const;
