import { signatureModeOf } from '../config/signature-config.js';
import { isPlatformCheckOn, prepullOf } from '../config/staging-config.js';
import type { TickConfig } from '../config/tick-config.js';
import { requiredDigestAgeMs } from '../domain/digest-age.js';
import { activePromotionOf } from '../domain/promotion-switch.js';
import { BACKSTOP_GRACE_MS, portBounds } from './port-bounds.js';
import { wayBackWorstCaseMs } from './way-back-deadline.js';

// How long one tick can take at most, from its configuration alone
// (docs/behaviour.md §3, Bounds). The pod cannot read its Job's
// activeDeadlineSeconds (no RBAC for it), so the manifests are checked against
// this sum instead (packages/cli/deploy/, and a test on it), and the README
// says how to size the deadline from it.

/** Node's timers hold a signed 32-bit millisecond count; a longer delay fires at once (TimeoutOverflowWarning). */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * The most port calls of each bound one tick makes beyond those of its
 * topology, from the machine's named actors: every call of the machine that
 * is not a workload's or an image's is one API request (skip streak read ×2,
 * write or clear, recorded digests, attempt read, attempt write ×2, flap
 * mark, flap clear, record, pin markers, the topology fingerprint's write);
 * then one Event per reason
 * (kubernetes-events.ts): the 15 a tick of the chart could record and
 * RefreshInterrupted, with RefreshReimaged counted once, and the profile's
 * two (RefreshForeignImage, RefreshProfileWarning).
 */
export const MOST_CALLS_PER_TICK = {
  apiRequests: 12,
  events: 18,
} as const;

/**
 * What the topology adds (docs/profiles.md): each workload read at most once
 * — by the decoupled pass or the live pass, whose reads the ownership check
 * reuses, or by the check itself — set and waited for at most once, and
 * re-imaged under an Event of its own (RefreshReimaged, one already counted);
 * each image resolved, and its signature and its two manifests checked, once.
 */
const topologySize = (config: TickConfig) => ({
  workloads: config.topology.workloads.length,
  images: config.topology.images.length,
});

/**
 * MAX_RESOLVE_FAILURE_TICKS's calls (docs/behaviour.md §3.3), beyond the
 * rest: the resolve-failure streak's write or removal, and one Event reason
 * of its own (RefreshRegistryUnreachable); none with `off`, the script's bound.
 */
export const REGISTRY_SILENCE_CALLS_PER_TICK = { apiRequests: 1, events: 1 } as const;

const registrySilenceMs = (config: TickConfig): number => {
  if (config.maxResolveFailureTicks === 'off') return 0;
  const n = REGISTRY_SILENCE_CALLS_PER_TICK;
  return (n.apiRequests + n.events) * portBounds(config).apiMs;
};

/**
 * The calls of MIN_DIGEST_AGE / ROLLOUT_RING and START_JITTER (docs/behaviour.md
 * §3.4a step 2, §3.3), beyond MOST_CALLS_PER_TICK: the digest-age check's read
 * of the pending records, its clock read and its pending write; three Event
 * reasons of its own (RefreshDigestSoakStarted, RefreshDigestSoaked,
 * RefreshClockUnavailable); and the START_JITTER wait, bounded by its own
 * length plus the grace.
 */
export const FLEET_SAFE_CALLS_PER_TICK = { apiRequests: 3, events: 3 } as const;

/**
 * FLEET_HALT_REF's calls (docs/behaviour.md §3.4b), beyond the rest: one
 * more repository in the resolve batch, the clock read, the document read,
 * the halt's signature check and its record (or lift) write; the pins'
 * signature checks where VERIFY_SIGNATURES=off does not count them already;
 * two Event reasons of its own (RefreshHalted, RefreshHaltUnverified).
 */
export const FLEET_HALT_CALLS_PER_TICK = { apiRequests: 2, events: 2 } as const;

/**
 * MAINTENANCE_WINDOW's calls (docs/behaviour.md §3.4d), beyond the rest: the
 * admission check's clock read and the plan's, one more per rollout it times, and two Event
 * reasons of its own (RefreshWindowWait, RefreshWindowTooShort). Its
 * durations travel in the record write, which is counted already.
 */
export const WINDOW_CALLS_PER_TICK = { clockReads: 2, events: 2 } as const;

const windowMs = (config: TickConfig): number => {
  if (config.maintenanceWindow === undefined) return 0;
  const n = WINDOW_CALLS_PER_TICK;
  const bounds = portBounds(config);
  // PREPULL_OUTSIDE_WINDOW=on: a held plan's staging call, beside the one a halt's pin-back may make.
  const ahead = config.maintenanceWindow.stageOutside ? bounds.stagingMs : 0;
  return (n.clockReads + topologySize(config).workloads + n.events) * bounds.apiMs + ahead;
};

const fleetHaltMs = (config: TickConfig): number => {
  if (config.fleetHalt === undefined) return 0;
  const bounds = portBounds(config);
  const n = FLEET_HALT_CALLS_PER_TICK;
  const { images } = topologySize(config);
  const pins = signatureModeOf(config) === 'off' ? bounds.verifyMs(images) : 0;
  return (
    bounds.resolveMs(images + 1) -
    bounds.resolveMs(images) +
    bounds.haltReadMs +
    bounds.verifyMs(1) +
    pins +
    (n.apiRequests + n.events) * bounds.apiMs
  );
};

/**
 * FLEET_PROMOTION_REF on ring ≥ 1 (docs/fleet-promotion.md): one HEAD more in
 * the resolve batch, a clock read, and on a new digest its document, its
 * signature and one write — the halt's steps; 0 when no promotion is read.
 */
const fleetPromotionMs = (config: TickConfig): number => {
  if (activePromotionOf(config) === undefined) return 0;
  const bounds = portBounds(config);
  const { images } = topologySize(config);
  const halt = config.fleetHalt === undefined ? 0 : 1;
  return (
    bounds.resolveMs(images + halt + 1) -
    bounds.resolveMs(images + halt) +
    bounds.haltReadMs +
    bounds.verifyMs(1) +
    2 * bounds.apiMs
  );
};

const fleetSafeMs = (config: TickConfig): number => {
  const bounds = portBounds(config);
  const n = FLEET_SAFE_CALLS_PER_TICK;
  const soak = requiredDigestAgeMs(config) > 0 ? n.apiRequests * bounds.apiMs : 0;
  const jitter = config.startJitterMs > 0 ? config.startJitterMs + BACKSTOP_GRACE_MS : 0;
  // With the defaults neither runs: the bound is exactly the script's.
  return soak + jitter + (soak + jitter > 0 ? n.events * bounds.apiMs : 0);
};

/**
 * Stage, then switch (docs/behaviour.md §3.4a step 4, §3.5a), beyond the rest:
 * PLATFORM_CHECK reads two manifests per image (the new and the recorded) and
 * adds one Event reason (RefreshPlatformMismatch; a failed read is
 * RefreshResolveFailed, already counted); PREPULL makes one staging call, the
 * RefreshStaging Event before it and one reason after (RefreshStagingFailed).
 */
export const STAGING_CALLS_PER_TICK = { platformTargetsPerImage: 2, events: 1, stagingEvents: 2 } as const;

const stageThenSwitchMs = (config: TickConfig): number => {
  const bounds = portBounds(config);
  const n = STAGING_CALLS_PER_TICK;
  const targets = n.platformTargetsPerImage * topologySize(config).images;
  const platforms = isPlatformCheckOn(config) ? bounds.platformMs(targets) + n.events * bounds.apiMs : 0;
  const staging = prepullOf(config) === undefined ? 0 : bounds.stagingMs + n.stagingEvents * bounds.apiMs;
  // Both off (the defaults): 0, the script's bound (I43).
  return platforms + staging;
};

/** The longest a tick can run before its summary line: the sum of its bounds (I17), at the worst case. */
export const worstCaseTickMs = (config: TickConfig): number => {
  const bounds = portBounds(config);
  const n = MOST_CALLS_PER_TICK;
  const { workloads, images } = topologySize(config);
  return (
    workloads * bounds.observeMs +
    bounds.resolveMs(images) +
    workloads * (bounds.apiMs + bounds.rolloutMs) +
    n.apiRequests * bounds.apiMs +
    (n.events + workloads - 1) * bounds.apiMs +
    // MAX_RESOLVE_FAILURE_TICKS (I46); 0 with `off`.
    registrySilenceMs(config) +
    // ROLLOUT_STABLE_FOR and ON_ROLLOUT_FAILURE=revert (docs/behaviour.md §3.6); 0 at their defaults.
    wayBackWorstCaseMs(config, bounds, workloads) +
    // VERIFY_SIGNATURES ≠ off: one check of each image, and one Event more —
    // RefreshSignatureRejected (enforce) or RefreshSignatureNotVerified (warn),
    // never both (docs/behaviour.md §3.4a step 3).
    (signatureModeOf(config) === 'off' ? 0 : bounds.verifyMs(images) + bounds.apiMs) +
    // MIN_DIGEST_AGE / ROLLOUT_RING / START_JITTER (docs/behaviour.md §3.4a step 2, §3.3); 0 at their defaults.
    fleetSafeMs(config) +
    // FLEET_HALT_REF (docs/behaviour.md §3.4b); 0 when unset.
    fleetHaltMs(config) +
    // FLEET_PROMOTION_REF on ring ≥ 1 (docs/fleet-promotion.md); 0 when no promotion is read.
    fleetPromotionMs(config) +
    // PUSHGATEWAY_URL set: the record's clock read (docs/fleet-promotion.md).
    (config.recordTimes === true ? portBounds(config).apiMs : 0) +
    // PLATFORM_CHECK / PREPULL; 0 at their defaults.
    stageThenSwitchMs(config) +
    // MAINTENANCE_WINDOW; 0 when unset.
    windowMs(config)
  );
};
