import * as O from 'fp-ts/lib/Option.js';
import type { Topology } from '../config/profile/topology.js';

// Every change image-refresh makes to its bookkeeping, as data: annotation key
// → new value, or `null` for "remove the key". The machine builds each change
// here once and hands exactly that object to ClusterPort.patchBookkeeping;
// the write the outcome reports is the same object. The keys
// themselves are the topology's (config/profile/topology-keys.ts).

/** Annotation key → its new value, or `null` to remove it; one merge patch of the gate. */
export type BookkeepingChanges = Readonly<Record<string, string | null>>;

/** Image name → a digest: what one write records, pins or quarantines per image. */
export type DigestsByImage = Readonly<Partial<Record<string, string>>>;

/** The streak just counted (docs/behaviour.md §3.2, I3). */
export const skipStreakSet = (topology: Topology, streak: number): BookkeepingChanges => ({
  [topology.keys.skipStreak]: String(streak),
});

/** The registry silence streak this tick counted (I46). */
export const resolveFailureStreakSet = (topology: Topology, streak: number): BookkeepingChanges => ({
  [topology.keys.resolveFailureStreak]: String(streak),
});

/** The registry answered every image again: the silence streak is over. */
export const resolveFailureStreakRemoved = (topology: Topology): BookkeepingChanges => ({
  [topology.keys.resolveFailureStreak]: null,
});

/** The streak is over: settled again (I6, #2007). */
export const skipStreakRemoved = (topology: Topology): BookkeepingChanges => ({ [topology.keys.skipStreak]: null });

/** refresh-attempt, persisted before any workload is touched (I9) or put back by a decoupled pass (I25). */
export const refreshAttemptSet = (topology: Topology, attempt: number): BookkeepingChanges => ({
  [topology.keys.refreshAttempt]: String(attempt),
});

/** The attempt ceiling was reached (I10). */
export const flapMarked = (topology: Topology, attempt: number): BookkeepingChanges => ({
  [topology.keys.flapDetected]: String(attempt),
});

/** The success reset (#626): both flap annotations go, in a write of their own (I12). */
export const flapStateRemoved = (topology: Topology): BookkeepingChanges => ({
  [topology.keys.refreshAttempt]: null,
  [topology.keys.flapDetected]: null,
});

/** The record (docs/behaviour.md §3.8): every digest recorded this tick and (RECONCILE_LIVE) the pin markers, in one write. */
export const recordChanges = (
  topology: Topology,
  digests: DigestsByImage,
  pins: DigestsByImage,
): Record<string, string> =>
  Object.fromEntries(
    topology.images.flatMap(({ name, recordKey, pinKey }) => {
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

/** The gate's annotations, as one read returned them. */
export type Annotations = Readonly<Record<string, string>>;

/** The raw skip streak; absent is `None` (counted as 0 by `counterValue`, I3). */
export const skipStreakOf = (topology: Topology, annotations: Annotations): O.Option<string> =>
  O.fromNullable(annotations[topology.keys.skipStreak]);

/** The raw registry silence streak; absent is `None` (I46). */
export const resolveFailureStreakOf = (topology: Topology, annotations: Annotations): O.Option<string> =>
  O.fromNullable(annotations[topology.keys.resolveFailureStreak]);

/** The raw refresh-attempt count; absent is `None` (I11). */
export const refreshAttemptOf = (topology: Topology, annotations: Annotations): O.Option<string> =>
  O.fromNullable(annotations[topology.keys.refreshAttempt]);

/**
 * One annotation value per image of the topology, raw: `None` when the
 * annotation is absent, `Some` with whatever it holds otherwise (validated
 * by the tick, I19). Absent is a value; a failed read is the port's `Left` —
 * never this (#626). An image the map does not name reads as `None`
 * ({@link recordOf}).
 */
export type RecordedDigests = Readonly<Record<string, O.Option<string>>>;

/** One image's raw value; an image the map does not name is absent. */
export const recordOf = (recorded: Partial<RecordedDigests>, image: string): O.Option<string> =>
  recorded[image] ?? O.none;

/** One raw annotation value per image, under each image's `recordKey`, `pinKey` or `quarantineKey`. */
const perImage = (
  topology: Topology,
  annotations: Annotations,
  key: 'recordKey' | 'pinKey' | 'quarantineKey',
): RecordedDigests =>
  Object.fromEntries(topology.images.map((image) => [image.name, O.fromNullable(annotations[image[key]])]));

/** The `last-refreshed-<image>-digest` annotations, raw (validated by the tick, I19). */
export const recordedDigestsOf = (topology: Topology, annotations: Annotations): RecordedDigests =>
  perImage(topology, annotations, 'recordKey');

/** The pin markers (RECONCILE_LIVE, I23), raw. */
export const pinMarkersOf = (topology: Topology, annotations: Annotations): RecordedDigests =>
  perImage(topology, annotations, 'pinKey');

/** The quarantine annotations (ON_ROLLOUT_FAILURE=revert), raw: the digest of each image that failed a rollout here. */
export const quarantinedDigestsOf = (topology: Topology, annotations: Annotations): RecordedDigests =>
  perImage(topology, annotations, 'quarantineKey');

/** `digest` is the one quarantined for `image` (I30): the admission check, a live re-pin and a rollback ask the same. */
export const isQuarantinedDigest = (quarantined: Partial<RecordedDigests>, image: string, digest: string): boolean =>
  O.exists((q: string) => q === digest)(recordOf(quarantined, image));

/** The failed digests to quarantine after a rollback (I30), in one write. */
export const quarantineSet = (topology: Topology, digests: DigestsByImage): BookkeepingChanges =>
  Object.fromEntries(
    topology.images.flatMap(({ name, quarantineKey }) => {
      const digest = digests[name];
      return digest === undefined ? [] : [[quarantineKey, digest]];
    }),
  );

/** `rearm` lifts these quarantines (§3.6): each key removed. */
export const quarantinesRemoved = (topology: Topology, images: readonly string[]): BookkeepingChanges =>
  Object.fromEntries(
    topology.images.filter(({ name }) => images.includes(name)).map(({ quarantineKey }) => [quarantineKey, null]),
  );

/** A change set that changes nothing: no write is made for it. */
export const changesNothing = (changes: BookkeepingChanges): boolean => Object.keys(changes).length === 0;
