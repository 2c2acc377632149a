import type { Topology } from '../config/profile/topology.js';
import type { Annotations, BookkeepingChanges } from './bookkeeping.js';
import { isWellFormedDigest } from './digest.js';
import { imageOf } from './workloads.js';

// Fleet-safe rollout (docs/behaviour.md §3.4a step 2): the first
// time this edge sees a tag answer a changed digest, it writes that down in
// `<prefix>/pending-<image>-digest` = `<digest> <RFC 3339 time first
// seen>`; the digest is acted on once it is MIN_DIGEST_AGE + ROLLOUT_RING ×
// RING_DELAY old by that record. This file spells the value and builds every
// change of it, as data the machine hands to the port unchanged.

/** What one pending annotation says: which digest this edge first saw, and when. */
export interface PendingDigest {
  readonly digest: string;
  /** Milliseconds since the epoch, whole seconds (RFC 3339 as written here has no fraction). */
  readonly firstSeenMs: number;
}

const RFC_3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

/** Whole seconds: the value written and the value read back judge the same age. */
export const toWholeSeconds = (ms: number): number => Math.floor(ms / 1_000) * 1_000;

/** `2026-12-01T13:05:00Z` (pure: a Date built from a number reads no clock, I20). */
export const rfc3339 = (ms: number): string => new Date(toWholeSeconds(ms)).toISOString().replace(/\.\d{3}Z$/, 'Z');

/** The annotation's value: `<digest> <RFC 3339 time first seen>`. */
export const formatPendingDigest = (pending: PendingDigest): string =>
  `${pending.digest} ${rfc3339(pending.firstSeenMs)}`;

/** The annotation's value read back; undefined for anything that is not a well-formed digest and an RFC 3339 time. */
export const parsePendingDigest = (value: string): PendingDigest | undefined => {
  const [digest, time, ...rest] = value.split(' ');
  if (digest === undefined || time === undefined || rest.length > 0) return undefined;
  if (!isWellFormedDigest(digest) || !RFC_3339.test(time)) return undefined;
  const firstSeenMs = Date.parse(time);
  return Number.isFinite(firstSeenMs) ? { digest, firstSeenMs } : undefined;
};

/** The raw pending annotation of one image, as a read returned it. */
export const pendingDigestOf = (topology: Topology, annotations: Annotations, image: string): string | undefined =>
  annotations[imageOf(topology, image).pendingKey];

/** Whether any image has a pending record: only then can one be superseded. */
export const hasPendingDigests = (topology: Topology, annotations: Annotations): boolean =>
  topology.images.some(({ pendingKey }) => annotations[pendingKey] !== undefined);

/** First sighting (or a tag that moved again): this digest, seen now. One write, on that tick only. */
export const pendingDigestSet = (topology: Topology, image: string, pending: PendingDigest): BookkeepingChanges => ({
  [imageOf(topology, image).pendingKey]: formatPendingDigest(pending),
});

/**
 * The pending annotations of these images go: recorded, superseded — or
 * quarantined ({@link withPendingClearedFor} folds that into the quarantine
 * write, §3.6).
 */
export const pendingDigestsRemoved = (topology: Topology, images: readonly string[]): BookkeepingChanges =>
  Object.fromEntries(images.map((image) => [imageOf(topology, image).pendingKey, null]));

/**
 * The record write, with the pending annotation of every image it records
 * removed where one is there (folded into the one write, docs/behaviour.md
 * §3.8): a digest recorded no longer soaks. Unchanged when there is none,
 * so with the defaults the record is exactly the script's.
 */
export const withPendingCleared = (
  topology: Topology,
  record: Readonly<Record<string, string>>,
  bookkeeping: Annotations,
): BookkeepingChanges => {
  const recorded = topology.images
    .filter(({ recordKey, pendingKey }) => record[recordKey] !== undefined && bookkeeping[pendingKey] !== undefined)
    .map(({ name }) => name);
  return recorded.length === 0 ? record : { ...record, ...pendingDigestsRemoved(topology, recorded) };
};

/**
 * A write that ends these images' soak — the quarantine after a rollback
 * (§3.6) — with their pending records removed in the same write, where
 * one is there: a quarantined digest no longer soaks, and `status` must not
 * show it as coming due (docs/behaviour.md §3.4a).
 */
export const withPendingClearedFor = (
  topology: Topology,
  changes: BookkeepingChanges,
  images: readonly string[],
  bookkeeping: Annotations,
): BookkeepingChanges => {
  const soaking = images.filter((image) => bookkeeping[imageOf(topology, image).pendingKey] !== undefined);
  return soaking.length === 0 ? changes : { ...changes, ...pendingDigestsRemoved(topology, soaking) };
};
