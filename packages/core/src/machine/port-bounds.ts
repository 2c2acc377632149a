import { prepullOf } from '../config/staging-config.js';
import type { TickConfig } from '../config/tick-config.js';

// The longest each port call may take (I17). The adapters bound every request
// on their own; these are the sums the tick holds them to, with a grace so the
// adapter's own timeout — which names the request — fires first.
export const BACKSTOP_GRACE_MS = 2_000;

/** Registry requests per repo in the worst case: HEAD → 401, token, HEAD again. */
const REGISTRY_REQUESTS_PER_REPO = 3;
/**
 * Plus one for the whole pass: a token realm known before the first 401
 * (docs/behaviour.md §3.3) that the registry's 401 contradicts costs its token and a HEAD
 * before the challenge's own token and HEAD — four in a row for one repo.
 */
const REGISTRY_REQUESTS_PER_PASS = 1;

/**
 * Registry requests one signature check makes at most (docs/behaviour.md §3,
 * Bounds): 37 with the adapter's default caps (16 `.sig` layers, 8 bundles),
 * plus its own anonymous probe and pull token.
 */
export const SIGNATURE_REQUESTS_PER_CHECK = 39;

/**
 * Registry requests reading a fleet halt's document makes at most
 * (docs/behaviour.md §3.4b): the session's anonymous probe and pull token,
 * then the manifest and its one document layer, each possibly once more
 * after a 401 naming another challenge.
 */
export const FLEET_HALT_READ_REQUESTS = 6;

/**
 * Registry requests one platform target costs at most (PLATFORM_CHECK): its
 * manifest GET and, for a single image, its config blob GET, plus the
 * repository's anonymous probe and pull token should it be the first of its
 * repository this tick.
 */
export const PLATFORM_REQUESTS_PER_TARGET = 4;

export interface PortBounds {
  readonly apiMs: number;
  readonly observeMs: number;
  readonly rolloutMs: number;
  /** ROLLOUT_STABLE_FOR's watch (§3.6): the window plus the read that may be in flight when it closes. */
  readonly stabilityMs: number;
  readonly resolveMs: (repos: number) => number;
  /** VERIFY_SIGNATURES ≠ off: the signature checks of `digests` digests, one after the other. */
  readonly verifyMs: (digests: number) => number;
  /** FLEET_HALT_REF: reading one halt document (its manifest and its layer). */
  readonly haltReadMs: number;
  /** PLATFORM_CHECK=on: the platform reads of `targets` manifests, one after the other. */
  readonly platformMs: (targets: number) => number;
  /**
   * PREPULL=on: the one staging call — PREPULL_TIMEOUT, the request in flight
   * when it passes, and the deletion of the staging pods (in parallel, one
   * request's bound) — plus the grace; 0 with PREPULL=off.
   */
  readonly stagingMs: number;
}

export const portBounds = (config: TickConfig): PortBounds => ({
  apiMs: config.apiTimeoutMs + BACKSTOP_GRACE_MS,
  // The settle window, plus the request that may be in flight when it closes.
  observeMs: config.settleTimeoutMs + config.apiTimeoutMs + BACKSTOP_GRACE_MS,
  rolloutMs: config.rolloutTimeoutMs + config.apiTimeoutMs + BACKSTOP_GRACE_MS,
  stabilityMs: config.rolloutStableForMs + config.apiTimeoutMs + BACKSTOP_GRACE_MS,
  resolveMs: (repos) =>
    config.registryTimeoutMs * (REGISTRY_REQUESTS_PER_REPO * Math.max(repos, 1) + REGISTRY_REQUESTS_PER_PASS) +
    BACKSTOP_GRACE_MS,
  verifyMs: (digests) =>
    config.registryTimeoutMs * SIGNATURE_REQUESTS_PER_CHECK * Math.max(digests, 1) + BACKSTOP_GRACE_MS,
  haltReadMs: config.registryTimeoutMs * FLEET_HALT_READ_REQUESTS + BACKSTOP_GRACE_MS,
  platformMs: (targets) =>
    config.registryTimeoutMs * PLATFORM_REQUESTS_PER_TARGET * Math.max(targets, 1) + BACKSTOP_GRACE_MS,
  stagingMs: stagingBoundMs(config),
});

/** PREPULL_TIMEOUT + two request bounds (the one in flight at the deadline, the deletions) + the grace. */
const stagingBoundMs = (config: TickConfig): number => {
  const prepull = prepullOf(config);
  return prepull === undefined ? 0 : prepull.timeoutMs + 2 * config.apiTimeoutMs + BACKSTOP_GRACE_MS;
};
