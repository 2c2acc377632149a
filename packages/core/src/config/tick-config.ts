import type { FleetHaltConfig } from './fleet-halt-config.js';
import type { FleetPromotionConfig } from './fleet-promotion-config.js';
import type { MaintenanceWindowConfig } from './maintenance-window-config.js';
import type { Topology } from './profile/topology.js';
import type { SignatureConfig } from './signature-config.js';
import type { StagingConfig } from './staging-config.js';

/** A pull-through mirror in front of the registries the images are resolved at. */
export interface MirrorConfig {
  /** `host[:port]`: pod images are `<host>/<repository path>`. */
  readonly host: string;
  /** MIRROR_MODE=follow-upstream: resolve upstream, pin `<host>/<path>@<digest>` once the mirror serves it. */
  readonly followUpstream: boolean;
}

/** Everything one tick needs to know, parsed and validated (see parseTickConfig). */
export interface TickConfig {
  /**
   * The topology the tick follows (docs/profiles.md): the profile's images,
   * workloads, gate and bookkeeping keys, with this edge's pins applied —
   * IMAGE_REFRESH_PROFILE's, or the chart's (DEFAULT_PROFILE) without one.
   */
  readonly topology: Topology;
  /**
   * Chart variables that are set but mean nothing because a profile names
   * the workloads (RELEASE_NAME, …, IMAGE_REGISTRY, the chart's `*_PINNED`):
   * the tick says each one, once (docs/profiles.md).
   */
  readonly ignoredVariables: readonly string[];
  /**
   * OWNERSHIP_CHECK (docs/behaviour.md §3.4c): `on` (the default) re-images a
   * container, and records an image's first digest, only while every
   * container the tick would touch runs the followed repository; `off`, the
   * script's behaviour, sets whatever the profile maps.
   */
  readonly ownershipCheck: boolean;
  /** The registry the chart renders into pod images (IMAGE_REGISTRY); docker.io with a profile, whose `mirror` says it. */
  readonly imageRegistry: string;
  /**
   * The pull-through mirror the pods pull through (the chart's IMAGE_REGISTRY
   * other than docker.io, or the profile's `mirror`), and whether the tick
   * follows the upstream through it (MIRROR_MODE=follow-upstream,
   * docs/behaviour.md §3.3); without MIRROR_MODE it is inert there (I14).
   */
  readonly mirror: MirrorConfig | undefined;
  /** IMAGE_TAG: the floating tag whose digest is followed. */
  readonly imageTag: string;
  /** ROLLOUT_TIMEOUT: the bound of each rollout wait (I17). */
  readonly rolloutTimeoutMs: number;
  /** MAX_REFRESH_ATTEMPTS: failed re-image ticks in a row before the flap lockout (I10). */
  readonly maxRefreshAttempts: number;
  /** MAX_SKIP_TICKS: unsettled ticks in a row before "IMAGE REFRESH IS FROZEN" (I3, I5). */
  readonly maxSkipTicks: number;
  /** The settled guard's window (the reference's `rollout status --timeout=10s`). */
  readonly settleTimeoutMs: number;
  /** Bound of every non-watch Kubernetes API request. */
  readonly apiTimeoutMs: number;
  /** Bound of every registry request. */
  readonly registryTimeoutMs: number;
  /** Registry API base the digests are resolved from. */
  readonly registryUrl: string;
  /**
   * IMAGE_REFRESH_AUTH_URL: the token realm of the registry, e.g.
   * `https://ghcr.io/token?service=ghcr.io` (a `service` query parameter is
   * sent as the token request's service). Known, a tick asks it for one token
   * before any HEAD instead of probing anonymously for the registry's
   * challenge. Undefined: Docker Hub's realm for Docker Hub's registry URL,
   * otherwise learned from the registry's 401 (docs/behaviour.md §3.3).
   */
  readonly authUrl: string | undefined;
  /**
   * FLAP_LOCKOUT_EXIT=1: a tick in flap lockout with drift pending exits 1.
   * Off by default for drop-in compatibility: the reference exits 0 there
   * (docs/behaviour.md §5, "green while frozen", noted in the seeds but left alone).
   */
  readonly flapLockoutIsFinding: boolean;
  /** Below this `ratelimit-remaining` (or after any 429) no re-image starts: every re-image makes nodes pull. */
  readonly registryBudgetFloor: number;
  /**
   * REGISTRY_BUDGET_FLOOR=off (docs/behaviour.md §5): false, no budget guard at
   * all — the script's behaviour: only the image that answered 429 is skipped, the
   * others are re-imaged. `0` keeps the guard: any 429 holds re-images back (I7b).
   */
  readonly registryBudgetGuard: boolean;
  /**
   * MAX_RESOLVE_FAILURE_TICKS: ticks in a row in which some followed image
   * could not be resolved (a 429 aside) before the tick says REGISTRY
   * UNREACHABLE and exits 1 (docs/behaviour.md §3.3, I46); `off` (the
   * script) counts nothing.
   */
  readonly maxResolveFailureTicks: number | 'off';
  /** IMAGE_REFRESH_EVENTS=0 turns off the Kubernetes Events a tick records. */
  readonly kubernetesEvents: boolean;
  /**
   * RECONCILE_LIVE (docs/behaviour.md §6, I23): compare each workload's live
   * container images with what image-refresh pinned — `report` says where a
   * Helm re-render or a hand edit undid a pin (or one workload runs another
   * build of an image than the others), `repair` also re-pins through the
   * guarded re-image path. `off` (the default) reads and writes exactly what
   * the reference does.
   */
  readonly reconcileLive: 'off' | 'report' | 'repair';
  /**
   * DECOUPLED_REFRESH=1 (#1964 "decision 1", safe subset; docs/behaviour.md §6, I24): an
   * unsettled gate still counts its skip streak exactly as before, but the
   * workloads the profile marks `decoupled` are refreshed if they are settled
   * themselves. The gate's own containers (a sidecar included) never are (I22).
   */
  readonly decoupledRefresh: boolean;
  /**
   * ON_ROLLOUT_FAILURE: `keep` (the default, the script's
   * behaviour) leaves a failed rollout half-rolled on the new digest;
   * `revert` sets every container the tick changed back to its last
   * recorded digest, waits for that rollout and quarantines the failed
   * digest (docs/behaviour.md §3.6, I29).
   */
  readonly onRolloutFailure: 'keep' | 'revert';
  /**
   * ROLLOUT_STABLE_FOR (docs/behaviour.md §3.6): how long a completed rollout must stay
   * complete before the re-image counts; 0 (the default, the script's
   * behaviour) counts it the moment it completes.
   */
  readonly rolloutStableForMs: number;
  /**
   * VERIFY_SIGNATURES and its trust: `off` (absent: the default,
   * the script's behaviour) checks nothing and calls nothing; `warn` and
   * `enforce` verify each new digest before it is re-imaged (docs/behaviour.md §3.4a).
   */
  readonly signatures?: SignatureConfig;
  /**
   * MIN_DIGEST_AGE: a changed digest is acted on only once this
   * edge has seen the tag answer it for this long (docs/behaviour.md §3.4a).
   * 0 (the default) passes at once: the script's behaviour.
   */
  readonly minDigestAgeMs: number;
  /** ROLLOUT_RING: this edge's ring; the digest must be `MIN_DIGEST_AGE + ring × RING_DELAY` old. 0 by default. */
  readonly rolloutRing: number;
  /** RING_DELAY: how much later each ring acts than the one before (1h). */
  readonly ringDelayMs: number;
  /**
   * START_JITTER: before its first registry request a tick waits a
   * delay in [0, START_JITTER) derived from the gate's uid
   * (docs/behaviour.md §3.3). 0 (the default): no wait.
   */
  readonly startJitterMs: number;
  /**
   * FLEET_HALT_REF, FLEET_HALT_EXIT (docs/behaviour.md §3.4b): the tag every
   * tick reads the fleet's signed halt from. Absent (the default, the
   * script's behaviour): no request, no annotation, no line (I35). Present,
   * `signatures` carries the trust it is verified with, whatever
   * VERIFY_SIGNATURES says.
   */
  readonly fleetHalt?: FleetHaltConfig;
  /**
   * FLEET_PROMOTION_REF (docs/fleet-promotion.md): the tag every tick reads
   * the fleet's signed promotion from; on an edge of ring ≥ 1 it replaces the
   * ring's ROLLOUT_RING × RING_DELAY wait. Absent (the default): the clock's
   * rings, nothing read. Present, `signatures` carries the trust.
   */
  readonly fleetPromotion?: FleetPromotionConfig;
  /**
   * PUSHGATEWAY_URL set: the record write carries each recorded digest's time
   * (`last-refreshed-<image>-at`), the canaries' evidence (docs/fleet-promotion.md).
   * Absent: the script's keys only.
   */
  readonly recordTimes?: true;
  /**
   * PLATFORM_CHECK and PREPULL ("stage, then switch"): absent when both are
   * `off` (the default, the script's behaviour), so the config is the one it
   * always was (I43); see docs/behaviour.md §3.4a step 4 and §3.5a.
   */
  readonly staging?: StagingConfig;
  /**
   * MAINTENANCE_WINDOW (docs/behaviour.md §3.4d): when a re-image may start,
   * and how much room it must leave. Absent when unset (the default, the
   * script's behaviour: any time), so the config is the one it always was.
   */
  readonly maintenanceWindow?: MaintenanceWindowConfig;
}

/** One problem with one environment variable, as `parseTickConfig` reports it. */
export type ConfigError = {
  /** The variable's name, e.g. `MAX_SKIP_TICKS`. */
  readonly variable: string;
  /** The offending value, or undefined when the variable is missing. */
  readonly value: string | undefined;
  /** What is wrong, worded to follow the variable: `must be a whole number of at least 1 …`. */
  readonly problem: string;
};

/** `MAX_SKIP_TICKS="abc": must be a whole number …` — one line an operator can act on. */
export const describeConfigError = (e: ConfigError): string =>
  e.value === undefined ? `${e.variable}: ${e.problem}` : `${e.variable}=${JSON.stringify(e.value)}: ${e.problem}`;
