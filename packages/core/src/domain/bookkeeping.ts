import * as O from 'fp-ts/lib/Option.js';
import { ANNOTATION, IMAGES, type ImageName } from './workloads.js';

// Every change image-refresh makes to its bookkeeping, as data: annotation key
// → new value, or `null` for "remove the key". The machine builds each change
// here once and hands exactly that object to ClusterPort.patchBookkeeping;
// the write the outcome reports is the same object (issue 12). The keys
// themselves are spelled in workloads.ts alone.

/** Annotation key → its new value, or `null` to remove it; one merge patch of the jobs-manager Deployment. */
export type BookkeepingChanges = Readonly<Record<string, string | null>>;

/** The streak just counted (docs/behaviour.md §3.2, I3). */
export const skipStreakSet = (streak: number): BookkeepingChanges => ({ [ANNOTATION.skipStreak]: String(streak) });

/** The streak is over: settled again (I6, #2007). */
export const skipStreakRemoved: BookkeepingChanges = { [ANNOTATION.skipStreak]: null };

/** refresh-attempt, persisted before any workload is touched (I9) or put back by a decoupled pass (I25). */
export const refreshAttemptSet = (attempt: number): BookkeepingChanges => ({
  [ANNOTATION.refreshAttempt]: String(attempt),
});

/** The attempt ceiling was reached (I10). */
export const flapMarked = (attempt: number): BookkeepingChanges => ({ [ANNOTATION.flapDetected]: String(attempt) });

/** The success reset (#626): both flap annotations go, in a write of their own (I12). */
export const flapStateRemoved: BookkeepingChanges = {
  [ANNOTATION.refreshAttempt]: null,
  [ANNOTATION.flapDetected]: null,
};

/** The record (docs/behaviour.md §3.8): every digest recorded this tick and (RECONCILE_LIVE) the pin markers, in one write. */
export const recordChanges = (
  digests: Readonly<Partial<Record<ImageName, string>>>,
  pins: Readonly<Partial<Record<ImageName, string>>>,
): Record<string, string> =>
  Object.fromEntries(
    IMAGES.flatMap(({ name, recordKey, pinKey }) => {
      const digest = digests[name];
      const pin = pins[name];
      return [...(digest === undefined ? [] : [[recordKey, digest]]), ...(pin === undefined ? [] : [[pinKey, pin]])];
    }),
  );

const describeChange = ([key, value]: readonly [string, string | null]): string =>
  value === null ? `${key}-` : `${key}=${value}`;

/** kubectl's spelling of a set of changes: `key=value` to set, `key-` to remove, in the order given. */
export const describeChanges = (changes: BookkeepingChanges): string =>
  Object.entries(changes).map(describeChange).join(' ');

/**
 * Whether one of the changes, spelled as kubectl does, starts with `scope`:
 * `refresh-attempt=` matches setting it, `refresh-attempt-` removing it,
 * `refresh-attempt` either, `last-refreshed-` any record key.
 */
export const changeMatches = (changes: BookkeepingChanges, scope: string): boolean =>
  Object.entries(changes).some((change) => describeChange(change).startsWith(scope));

/** The jobs-manager Deployment's annotations, as one read returned them. */
export type Annotations = Readonly<Record<string, string>>;

/** The raw skip streak; absent is `None` (counted as 0 by `counterValue`, I3). */
export const skipStreakOf = (annotations: Annotations): O.Option<string> =>
  O.fromNullable(annotations[ANNOTATION.skipStreak]);

/** The raw refresh-attempt count; absent is `None` (I11). */
export const refreshAttemptOf = (annotations: Annotations): O.Option<string> =>
  O.fromNullable(annotations[ANNOTATION.refreshAttempt]);

/**
 * One annotation value per image, raw: `None` when the annotation is absent,
 * `Some` with whatever it holds otherwise (validated by the tick, I19).
 * Absent is a value; a failed read is the port's `Left` — never this (#626).
 */
export type RecordedDigests = Readonly<Record<ImageName, O.Option<string>>>;

/** One raw annotation value per image, under each image's `recordKey` or `pinKey`. */
const perImage = (annotations: Annotations, key: 'recordKey' | 'pinKey' | 'quarantineKey'): RecordedDigests => {
  const [jobsManager, podsMonitor, resourceMonitor] = IMAGES.map((image) => O.fromNullable(annotations[image[key]]));
  return {
    'jobs-manager': jobsManager ?? O.none,
    'pods-monitor': podsMonitor ?? O.none,
    'resource-monitor': resourceMonitor ?? O.none,
  };
};

/** The `last-refreshed-<image>-digest` annotations, raw (validated by the tick, I19). */
export const recordedDigestsOf = (annotations: Annotations): RecordedDigests => perImage(annotations, 'recordKey');

/** The pin markers (RECONCILE_LIVE, I23), raw. */
export const pinMarkersOf = (annotations: Annotations): RecordedDigests => perImage(annotations, 'pinKey');

/** The quarantine annotations (ON_ROLLOUT_FAILURE=revert, issue 16), raw: the digest of each image that failed a rollout here. */
export const quarantinedDigestsOf = (annotations: Annotations): RecordedDigests =>
  perImage(annotations, 'quarantineKey');

/** `digest` is the one quarantined for `image` (I30): the admission check, a live re-pin and a rollback ask the same. */
export const isQuarantinedDigest = (quarantined: Partial<RecordedDigests>, image: ImageName, digest: string): boolean =>
  O.exists((q: string) => q === digest)(quarantined[image] ?? O.none);

/** The failed digests to quarantine after a rollback (I30), in one write. */
export const quarantineSet = (digests: Readonly<Partial<Record<ImageName, string>>>): BookkeepingChanges =>
  Object.fromEntries(
    IMAGES.flatMap(({ name, quarantineKey }) => {
      const digest = digests[name];
      return digest === undefined ? [] : [[quarantineKey, digest]];
    }),
  );

/** `rearm` lifts these quarantines (issue 16): each key removed. */
export const quarantinesRemoved = (images: readonly ImageName[]): BookkeepingChanges =>
  Object.fromEntries(
    IMAGES.filter(({ name }) => images.includes(name)).map(({ quarantineKey }) => [quarantineKey, null]),
  );

/** A change set that changes nothing: no write is made for it. */
export const changesNothing = (changes: BookkeepingChanges): boolean => Object.keys(changes).length === 0;
