import * as E from 'fp-ts/lib/Either.js';
import type { Environment } from '../config/environment.js';
import { parseTickConfig } from '../config/parse-config.js';
import type { Profile } from '../config/profile/profile.js';
import type { TickConfig } from '../config/tick-config.js';

/** The environment the chart renders for a release `stg` in namespace `tracebloc`. */
export const SIM_ENVIRONMENT: Environment = {
  RELEASE_NAME: 'stg',
  RELEASE_NAMESPACE: 'tracebloc',
  DEPLOYMENT_NAME: 'stg-jobs-manager',
  REQUESTS_PROXY_DEPLOYMENT: 'stg-requests-proxy',
  RESOURCE_MONITOR_DAEMONSET: 'stg-resource-monitor',
  NODE_AGENTS_NAMESPACE: 'tracebloc-node-agents',
  IMAGE_REGISTRY: 'docker.io',
  IMAGE_TAG: 'stg',
  ROLLOUT_TIMEOUT: '10m',
  MAX_REFRESH_ATTEMPTS: '3',
  MAX_SKIP_TICKS: '8',
  JOBS_MANAGER_PINNED: '0',
  PODS_MONITOR_PINNED: '0',
  RESOURCE_MONITOR_PINNED: '0',
  REQUESTS_PROXY_PINNED: '0',
};

/** The environment beside a profile (docs/profiles.md): the tag and ceilings, none of the chart's names. */
export const SIM_PROFILE_ENVIRONMENT: Environment = {
  IMAGE_TAG: 'stg',
  ROLLOUT_TIMEOUT: '10m',
  MAX_REFRESH_ATTEMPTS: '3',
  MAX_SKIP_TICKS: '8',
};

/**
 * A valid config for the simulator, with variables overridden as given: the
 * chart's topology under {@link SIM_ENVIRONMENT}, or — with `profile` — that
 * profile's under {@link SIM_PROFILE_ENVIRONMENT}.
 */
export const simConfig = (overrides: Environment = {}, profile?: Profile): TickConfig => {
  const parsed =
    profile === undefined
      ? parseTickConfig({ ...SIM_ENVIRONMENT, ...overrides })
      : parseTickConfig({ ...SIM_PROFILE_ENVIRONMENT, ...overrides }, profile);
  if (E.isLeft(parsed)) {
    throw new Error(
      `simConfig: invalid overrides: ${parsed.left.map((e) => `${e.variable}: ${e.problem}`).join('; ')}`,
    );
  }
  return parsed.right;
};
