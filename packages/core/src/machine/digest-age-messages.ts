import { formatDuration } from '../config/duration.js';
import type { TickConfig } from '../config/tick-config.js';
import { shortDigest } from '../domain/digest.js';
import type { AgeVerdict } from '../domain/digest-age.js';
import { rfc3339 } from '../domain/pending-digest.js';
import { describePortError, type PortError } from '../domain/port-error.js';
import { describeWorkload, type ImageName, imageSpec, workloadRef } from '../domain/workloads.js';
import type { TickEvent } from './tick-event.js';

// The operator's sentences of issue 17 (fleet-safe rollout): a waiting digest
// is said once per tick, its wait's start and end become Events
// (kubernetes-events.ts), and every fail-closed branch names its cause.

const jobsManager = (c: TickConfig): string => describeWorkload(workloadRef(c, 'jobs-manager'));

/** `1h`, `20m`, `0s`: whole seconds, as an operator reads an age. */
const words = (ms: number): string => {
  const whole = Math.max(0, Math.floor(ms / 1_000) * 1_000);
  return whole === 0 ? '0s' : formatDuration(whole);
};

/** `13:05` (UTC; seconds only when there are some, the date only when it is not today's). */
export const clockTime = (atMs: number, nowMs: number): string => {
  const [day = '', time = ''] = rfc3339(atMs).replace('Z', '').split('T');
  const hhmm = time.endsWith(':00') ? time.slice(0, 5) : time;
  return day === rfc3339(nowMs).split('T')[0] ? hhmm : `${day} ${hhmm}`;
};

/** `(MIN_DIGEST_AGE=1h, ring 1 × RING_DELAY=1h)`: where the required age comes from. */
const requiredWords = (c: TickConfig): string =>
  `(MIN_DIGEST_AGE=${words(c.minDigestAgeMs)}, ring ${c.rolloutRing} × RING_DELAY=${words(c.ringDelayMs)})`;

const named = (image: ImageName, digest: string): string => `${imageSpec(image).repo}@${shortDigest(digest)}`;

/**
 * `tracebloc/jobs-manager@sha256:… first seen 20m ago; acting after 13:05
 * (MIN_DIGEST_AGE=1h, ring 1 × RING_DELAY=1h)`: once per tick per waiting
 * digest; the first tick's line has its own code, which becomes an Event.
 */
export const digestSoaking = (
  c: TickConfig,
  v: Extract<AgeVerdict, { _tag: 'TooYoung' }>,
  nowMs: number,
): TickEvent => ({
  level: 'info',
  code: v.firstSighting ? 'DIGEST_SOAK_STARTED' : 'DIGEST_SOAKING',
  message: `${named(v.change.image, v.change.to)} first seen ${words(nowMs - v.pending.firstSeenMs)} ago; acting after ${clockTime(v.dueMs, nowMs)} ${requiredWords(c)}`,
});

/** The wait is over: the digest goes on to the next check (and, passing it, is rolled). */
export const digestSoaked = (
  c: TickConfig,
  v: Extract<AgeVerdict, { _tag: 'OldEnough' }>,
  nowMs: number,
): TickEvent => ({
  level: 'info',
  code: 'DIGEST_SOAKED',
  message: `${named(v.change.image, v.change.to)} first seen ${words(nowMs - v.pending.firstSeenMs)} ago: old enough on this edge ${requiredWords(c)}; acting now`,
});

export const pendingDigestUnparsable = (c: TickConfig, v: Extract<AgeVerdict, { _tag: 'TooYoung' }>): TickEvent => ({
  level: 'warn',
  code: 'PENDING_DIGEST_UNPARSABLE',
  message: `WARN: ${imageSpec(v.change.image).pendingKey} on ${jobsManager(c)} holds ${JSON.stringify(v.unparsable)}, not "<digest> <RFC 3339 time>"; counting ${shortDigest(v.change.to)} as first seen now.`,
});

export const pendingDigestsUnreadable = (c: TickConfig, e: PortError): TickEvent => ({
  level: 'warn',
  code: 'PENDING_DIGEST_UNREADABLE',
  message: `WARN: could not read the pending digests on ${jobsManager(c)} (${describePortError(e)}); a changed digest whose age is unknown is not acted on, so nothing is re-imaged this tick. Will retry next tick.`,
});

export const clockUnavailable = (e: PortError): TickEvent => ({
  level: 'warn',
  code: 'CLOCK_UNAVAILABLE',
  message: `WARN: could not read the clock (${describePortError(e)}); MIN_DIGEST_AGE / ROLLOUT_RING cannot judge a changed digest's age, so nothing is re-imaged this tick. Will retry next tick.`,
});

export const pendingDigestsWriteFailed = (c: TickConfig, e: PortError): TickEvent => ({
  level: 'warn',
  code: 'PENDING_DIGEST_WRITE_FAILED',
  message: `WARN: could not write the pending digests on ${jobsManager(c)} (${describePortError(e)}); a new digest stays held and counts as first seen on the next tick that records it.`,
});

export const startJitter = (c: TickConfig, delayMs: number): TickEvent => ({
  level: 'info',
  code: 'START_JITTER',
  message: `waiting ${formatDuration(delayMs)} before the registry (START_JITTER=${formatDuration(c.startJitterMs)}, derived from this edge's ${jobsManager(c)} uid)`,
});

export const startJitterFailed = (e: PortError): TickEvent => ({
  level: 'warn',
  code: 'START_JITTER_FAILED',
  message: `WARN: could not wait START_JITTER (${describePortError(e)}); resolving now.`,
});
