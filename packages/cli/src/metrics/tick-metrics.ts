import { type HeldReason, haltKeyOf, type TickConfig, type TickOutcome } from '@image-refresh/core';
import type { Gauge, Sample } from './exposition.js';
import { containerKey, liveDigestOf, type TickObservations } from './observations.js';
import { REQUEST_KINDS, type RequestKind } from './request-count.js';

// The metrics of one tick, as a pure function of what the tick ended with:
// its outcome, what its ports answered, the requests it made, the config and
// the clock. Names are a contract (docs/metrics.md).

export interface TickFacts {
  readonly outcome: TickOutcome;
  readonly observed: TickObservations;
  readonly requests: Readonly<Record<RequestKind, number>>;
  /** When the tick started and ended, in ms since the epoch. */
  readonly startedAtMs: number;
  readonly endedAtMs: number;
}

const gauge = (name: string, help: string, samples: readonly Sample[]): Gauge => ({ name, help, samples });
const single = (name: string, help: string, value: number | undefined): Gauge =>
  gauge(name, help, value === undefined ? [] : [{ value }]);

/** The digests the tick held back for `reason`: a fact of this tick, 0 when none (known on every tick that ran). */
const heldCount = (outcome: TickOutcome, reason: HeldReason): number =>
  (outcome.held ?? []).filter((h) => h.reason === reason).length;

/** Per image, the digests running now: what the tick read, with what it re-imaged and saw roll out on top. */
const liveDigests = (facts: TickFacts, config: TickConfig): Partial<Record<string, string[]>> => {
  const running = { ...facts.observed.live };
  for (const reimage of facts.outcome.reimages) {
    if (!reimage.rolledOut) continue;
    for (const { container, image } of reimage.images) running[containerKey(reimage.workload, container)] = image;
  }
  const live: Partial<Record<string, string[]>> = {};
  for (const reference of Object.values(running)) {
    const known = liveDigestOf(config.topology, reference);
    if (known === undefined) continue;
    const digests = live[known.image] ?? [];
    if (!digests.includes(known.digest)) live[known.image] = [...digests, known.digest];
  }
  return live;
};

/** Per image the tick asked the registry for: 1 unresolved, 0 resolved; none before it asked (I46). */
const resolveFailures = (facts: TickFacts, config: TickConfig): Sample[] => {
  const { unresolved } = facts.outcome;
  if (unresolved === undefined) return [];
  return config.topology.images.flatMap(({ name }) =>
    unresolved.includes(name)
      ? [{ labels: { image: name }, value: 1 }]
      : facts.observed.registry[name] === undefined
        ? []
        : [{ labels: { image: name }, value: 0 }],
  );
};

/** The image digests the tick knows, one series per (image, digest, state). */
const imageInfo = (facts: TickFacts, config: TickConfig): Sample[] => {
  const { observed } = facts;
  const live = liveDigests(facts, config);
  return config.topology.images.flatMap(({ name }) => {
    const recorded = observed.recorded[name];
    const registry = observed.registry[name];
    return [
      ...(recorded === undefined ? [] : [{ labels: { image: name, digest: recorded, state: 'recorded' }, value: 1 }]),
      ...(registry === undefined ? [] : [{ labels: { image: name, digest: registry, state: 'registry' }, value: 1 }]),
      ...(live[name] ?? []).map((digest) => ({ labels: { image: name, digest, state: 'live' }, value: 1 })),
    ];
  });
};

/** RFC 3339 as core writes and reads it (whole seconds and `Z` written; a fraction or an offset read). */
const RFC_3339 = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

/**
 * Unix seconds of an RFC 3339 time; undefined for anything else. Date.parse
 * alone takes `02-31` (as March 3rd) and `24:00`: the day must exist and the
 * hour be below 24.
 */
export const unixSecondsOf = (value: string): number | undefined => {
  const match = RFC_3339.exec(value);
  if (match === null) return undefined;
  const [year, month, day, hour] = match.slice(1, 5).map(Number) as [number, number, number, number];
  const date = new Date(Date.UTC(year, month - 1, day));
  const exists = date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
  const ms = Date.parse(value);
  return exists && hour < 24 && Number.isFinite(ms) ? ms / 1000 : undefined;
};

/**
 * docs/metrics.md, "Evidence for promotion": per image whose record this tick
 * knows, when this edge recorded that digest — only where the time was seen
 * with that very digest (read together, or written in one write) and parses;
 * otherwise 0 with `digest=""`, because the Pushgateway keeps a family a push
 * leaves out, and an earlier digest's time would then stand for the new one.
 */
const recordedTimes = (facts: TickFacts, config: TickConfig): Sample[] =>
  config.topology.images.flatMap(({ name }) => {
    const digest = facts.observed.recorded[name];
    if (digest === undefined) return [];
    const pair = facts.observed.recordedAt[name];
    const seconds = pair === undefined || pair.digest !== digest ? undefined : unixSecondsOf(pair.at);
    return [
      seconds === undefined
        ? { labels: { image: name, digest: '' }, value: 0 }
        : { labels: { image: name, digest }, value: seconds },
    ];
  });

/**
 * docs/metrics.md, "Evidence for promotion": 1 per quarantined digest. A
 * tick that read the quarantine pushes one series per image — 0 with
 * `digest=""` where none is held — because the Pushgateway drops a family
 * without samples and would keep a lifted quarantine's series forever.
 */
const quarantinedDigests = (facts: TickFacts, config: TickConfig): Sample[] => {
  const { quarantined } = facts.observed;
  if (quarantined === undefined) return [];
  return config.topology.images.map((image) => {
    const digest = quarantined[image.name];
    const repository = haltKeyOf(image);
    return digest === undefined
      ? { labels: { image: image.name, digest: '', repository }, value: 0 }
      : { labels: { image: image.name, digest, repository }, value: 1 };
  });
};

/**
 * Every gauge of one tick. A gauge without samples is one the tick could not
 * know (its port was not asked, or failed): it is left out of the push, so
 * the Pushgateway keeps its last value. `image_refresh_last_success_timestamp_seconds`
 * is there only when the tick exited 0, so "no success for 2 h" can alert.
 */
export const tickMetrics = (facts: TickFacts, config: TickConfig): Gauge[] => {
  const { outcome, observed } = facts;
  const endedAt = facts.endedAtMs / 1000;
  const attempt = observed.refreshAttempt;
  return [
    single('image_refresh_last_run_timestamp_seconds', 'When the last tick ended (Unix time).', endedAt),
    single(
      'image_refresh_last_success_timestamp_seconds',
      'When the last tick that exited 0 ended (Unix time); pushed only by such a tick.',
      outcome.exitCode === 0 ? endedAt : undefined,
    ),
    single(
      'image_refresh_exit_code',
      "The last tick's exit code: 0 ok, 1 a finding, 143 / 130 stopped by SIGTERM / SIGINT (a configuration error, exit 2, pushes nothing).",
      outcome.exitCode,
    ),
    gauge(
      'image_refresh_tick_outcome',
      "1 for the last tick's outcome, the summary line's outcome= (complete, skipped, frozen, flapLockout, signatureRejected, rolledBack, quarantineHeld, soaking, halted, haltUnverified, awaitingPromotion, promotionUnverified, platformMismatch, notStaged, interrupted, ...).",
      [{ labels: { outcome: outcome.result }, value: 1 }],
    ),
    single(
      'image_refresh_tick_duration_seconds',
      'How long the last tick took, its Events included.',
      Math.max(0, facts.endedAtMs - facts.startedAtMs) / 1000,
    ),
    single('image_refresh_skip_streak', 'refresh-skip-streak after the last tick that read it.', observed.skipStreak),
    single(
      'image_refresh_max_skip_ticks',
      'MAX_SKIP_TICKS: unsettled ticks in a row before FROZEN.',
      config.maxSkipTicks,
    ),
    single('image_refresh_refresh_attempt', 'refresh-attempt after the last tick that read it.', attempt),
    single(
      'image_refresh_max_refresh_attempts',
      'MAX_REFRESH_ATTEMPTS: failed re-image ticks in a row before the flap lockout.',
      config.maxRefreshAttempts,
    ),
    single(
      'image_refresh_flap_locked_out',
      '1 while refresh-attempt has reached MAX_REFRESH_ATTEMPTS: no re-image until rearm.',
      attempt === undefined ? undefined : attempt >= config.maxRefreshAttempts ? 1 : 0,
    ),
    single(
      'image_refresh_resolve_failure_streak',
      'refresh-resolve-failure-streak after the last tick that read it: ticks in a row in which some image could not be resolved (a 429 aside).',
      observed.resolveFailureStreak,
    ),
    single(
      'image_refresh_max_resolve_failure_ticks',
      'MAX_RESOLVE_FAILURE_TICKS: silent ticks in a row before REGISTRY UNREACHABLE; absent with off.',
      config.maxResolveFailureTicks === 'off' ? undefined : config.maxResolveFailureTicks,
    ),
    gauge(
      'image_refresh_image_resolve_failed',
      'Per image the last tick asked the registry for: 1 when it could not be resolved (429 included), 0 when it was.',
      resolveFailures(facts, config),
    ),
    single(
      'image_refresh_rolled_back',
      'Workloads the last tick rolled back to their recorded digests after a failed rollout (ON_ROLLOUT_FAILURE=revert); 0 when it rolled nothing back.',
      (outcome.reverts ?? []).filter((r) => r.rolledOut).length,
    ),
    single(
      'image_refresh_quarantined_digests',
      'Digests quarantined on this edge after a rollback (quarantined-<image>-digest), as the last tick that read them left them; held until rearm.',
      observed.quarantined === undefined ? undefined : Object.keys(observed.quarantined).length,
    ),
    single(
      'image_refresh_signatures_rejected',
      'New digests the last tick did not re-image because their signature did not verify (VERIFY_SIGNATURES=enforce).',
      heldCount(outcome, 'signatureRejected'),
    ),
    single(
      'image_refresh_digests_soaking',
      'New digests the last tick held back because they are not yet old enough on this edge (MIN_DIGEST_AGE, ROLLOUT_RING).',
      heldCount(outcome, 'soaking'),
    ),
    // docs/behaviour.md §3.4d: only where MAINTENANCE_WINDOW is set and the tick judged a plan by it.
    single(
      'image_refresh_digests_waiting_for_window',
      'New digests the last tick held back for the maintenance window (MAINTENANCE_WINDOW): outside it, or without room left for the plan.',
      config.maintenanceWindow === undefined ? undefined : heldCount(outcome, 'outsideWindow'),
    ),
    // docs/fleet-promotion.md: only where a promotion is read (FLEET_PROMOTION_REF on ring ≥ 1).
    single(
      'image_refresh_digests_waiting_for_promotion',
      "New digests the last tick held back waiting for a verified promotion to this edge's ring (FLEET_PROMOTION_REF on ring >= 1), an unverified promotion included.",
      outcome.promotion === undefined
        ? undefined
        : heldCount(outcome, 'awaitingPromotion') + heldCount(outcome, 'promotionUnverified'),
    ),
    single(
      'image_refresh_window_next_open_timestamp_seconds',
      'When the maintenance window the last tick waited for opens next (MAINTENANCE_WINDOW), in Unix seconds; pushed only by a tick that waited.',
      outcome.window?._tag === 'Closed' || outcome.window?._tag === 'NoRoom'
        ? Math.floor(outcome.window.opensMs / 1000)
        : undefined,
    ),
    gauge(
      'image_refresh_image_info',
      '1 per digest the tick knows, by image and state: recorded (on the gate), registry (what the tag answered), live (running in a workload the tick read or re-imaged).',
      imageInfo(facts, config),
    ),
    single(
      'image_refresh_registry_ratelimit_remaining',
      'The lowest ratelimit-remaining the registry reported in the last tick that resolved.',
      observed.rateLimitRemaining,
    ),
    // docs/behaviour.md §3.4b: only where FLEET_HALT_REF is set and the tick read the halt (a tick that
    // ended before it, or an edge that does not watch one, pushes none: no series claiming "no halt").
    single(
      'image_refresh_fleet_halt',
      '1 while a verified, unexpired fleet halt (FLEET_HALT_REF) is in force on this edge, 0 otherwise; pushed only with FLEET_HALT_REF set.',
      outcome.halt === undefined ? undefined : outcome.halt.state === 'inForce' ? 1 : 0,
    ),
    single(
      'image_refresh_rollout_ring',
      "ROLLOUT_RING: this edge's ring (0, the default, is a canary); promote reads ring 0's evidence (docs/fleet-promotion.md).",
      config.rolloutRing,
    ),
    gauge(
      'image_refresh_digest_recorded_timestamp_seconds',
      'When this edge recorded the digest it rolled out and records now (last-refreshed-<image>-at, Unix time); 0 with digest="" where the record has no time of its own (a first observation, a record made without a push).',
      recordedTimes(facts, config),
    ),
    gauge(
      'image_refresh_quarantined_digest',
      'Per image: 1 for the digest quarantined on this edge after a rollback (quarantined-<image>-digest), repository as a fleet halt names it; 0 with digest="" when none is, so a lifted quarantine leaves no series behind.',
      quarantinedDigests(facts, config),
    ),
    gauge(
      'image_refresh_tick_requests',
      'HTTP requests of the last tick, by kind: kubernetes, events, registry, token.',
      REQUEST_KINDS.map((kind) => ({ labels: { kind }, value: facts.requests[kind] })),
    ),
  ];
};
