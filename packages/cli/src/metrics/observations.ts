import {
  type BookkeepingChanges,
  counterValue,
  type ImageSpec,
  isWellFormedDigest,
  recordedDigestsOf,
  refreshAttemptOf,
  resolveFailureStreakOf,
  skipStreakOf,
  type TickPorts,
  type Topology,
  type WorkloadRef,
} from '@image-refresh/core';
import * as E from 'fp-ts/lib/Either.js';
import * as O from 'fp-ts/lib/Option.js';
import type { TaskEither } from 'fp-ts/lib/TaskEither.js';

// What the tick's own port calls answered, kept for its metrics. The ports are
// wrapped, never called: a metric costs no request of its own (a steady tick
// stays at one Kubernetes request, docs/behaviour.md §2). What the tick did
// not ask this time is not known, and its metric is not pushed — the
// Pushgateway keeps the last pushed value (POST semantics).

/** The bookkeeping and digests as this tick left them, where it saw them. */
export interface TickObservations {
  /** refresh-skip-streak after the tick (read, then written or cleared). */
  skipStreak?: number;
  /** refresh-attempt after the tick (read, then written or cleared by the success reset). */
  refreshAttempt?: number;
  /** refresh-resolve-failure-streak after the tick (read, then written or cleared, I46). */
  resolveFailureStreak?: number;
  /** last-refreshed-<image>-digest after the tick (read, then recorded). */
  readonly recorded: Partial<Record<string, string>>;
  /** The digest the registry answered this tick, where it was well-formed (I19). */
  readonly registry: Partial<Record<string, string>>;
  /** The lowest ratelimit-remaining the registry reported this tick. */
  rateLimitRemaining?: number;
  /** `<kind>/<namespace>/<name>/<container>` → the image it runs, for each workload this tick read. */
  readonly live: Record<string, string>;
  /** quarantined-<image>-digest after the tick, per image (read, then written by a rollback); absent until read. */
  quarantined?: Partial<Record<string, string>>;
  /**
   * last-refreshed-<image>-at (raw, as on the gate) beside the digest it was
   * seen with: read in the same read as that digest, or written in the same
   * write. Only ever the time of the digest in `recorded` (docs/metrics.md,
   * "Evidence for promotion").
   */
  readonly recordedAt: Partial<Record<string, RecordedAt>>;
}

/** A time as written beside a record, and the digest its value names (the metric pairs it only with that digest). */
export interface RecordedAt {
  readonly digest: string;
  readonly at: string;
}

export const emptyObservations = (): TickObservations => ({ recorded: {}, registry: {}, live: {}, recordedAt: {} });

const imageOfRepo = (topology: Topology, repo: string): string | undefined =>
  topology.images.find((i) => i.repo === repo)?.name;

/** `docker.io/tracebloc/jobs-manager@sha256:…` → its image and digest; a floating tag names no digest. */
export const liveDigestOf = (topology: Topology, reference: string): { image: string; digest: string } | undefined => {
  const at = reference.indexOf('@');
  if (at < 0) return undefined;
  const digest = reference.slice(at + 1);
  const path = reference.slice(0, at);
  const image = topology.images.find((i) => path === i.repo || path.endsWith(`/${i.repo}`))?.name;
  return image === undefined || !isWellFormedDigest(digest) ? undefined : { image, digest };
};

/** The key of one container of one workload in {@link TickObservations.live}. */
export const containerKey = (workload: WorkloadRef, container: string): string =>
  `${workload.kind}/${workload.namespace}/${workload.name}/${container}`;

/** Runs `then` on a successful answer; the answer itself goes back to the tick untouched. */
const onRight =
  <L, A>(task: TaskEither<L, A>, then: (a: A) => void): TaskEither<L, A> =>
  () =>
    task().then((answer) => {
      if (E.isRight(answer)) then(answer.right);
      return answer;
    });

const counterAfter = (value: string | null): number => (value === null ? 0 : counterValue(O.some(value)));

/** A quarantine written (a rollback) or removed, on top of what the tick read. */
const noteQuarantine = (topology: Topology, seen: TickObservations, key: string, value: string | null): void => {
  const image = topology.images.find((i) => i.quarantineKey === key);
  if (image === undefined || seen.quarantined === undefined) return;
  const { [image.name]: _, ...others } = seen.quarantined;
  seen.quarantined = value === null ? others : { ...others, [image.name]: value };
};

/**
 * A write that touches an image's record or its time: the time stays paired
 * only with a digest written in this same write. A digest written without
 * its time, a time written or removed without its digest, a record removed:
 * the pair is no longer known.
 */
const noteRecordedAt = (seen: TickObservations, image: ImageSpec, changes: BookkeepingChanges): void => {
  const digest = changes[image.recordKey];
  const at = changes[image.recordedAtKey];
  if (digest === undefined && at === undefined) return;
  delete seen.recordedAt[image.name];
  const pair = typeof at === 'string' ? recordedAtOf(at) : undefined;
  if (typeof digest === 'string' && pair !== undefined) seen.recordedAt[image.name] = pair;
};

/**
 * `<digest> <RFC 3339>` as the tick writes it (docs/fleet-promotion.md): the
 * digest the time belongs to, and the time as written (checked where it is
 * turned into seconds); undefined for any other shape.
 */
const recordedAtOf = (value: string): RecordedAt | undefined => {
  const [digest, at, ...rest] = value.split(' ');
  return digest === undefined || at === undefined || rest.length > 0 ? undefined : { digest, at };
};

/** What a successful bookkeeping write changed, in `seen`'s terms. */
const noteChanges = (topology: Topology, seen: TickObservations, changes: BookkeepingChanges): void => {
  for (const [key, value] of Object.entries(changes)) {
    if (key === topology.keys.skipStreak) seen.skipStreak = counterAfter(value);
    else if (key === topology.keys.refreshAttempt) seen.refreshAttempt = counterAfter(value);
    else if (key === topology.keys.resolveFailureStreak) seen.resolveFailureStreak = counterAfter(value);
    else if (topology.images.some((i) => i.quarantineKey === key)) noteQuarantine(topology, seen, key, value);
    else {
      const image = topology.images.find((i) => i.recordKey === key);
      if (image !== undefined && value !== null) seen.recorded[image.name] = value;
    }
  }
  for (const image of topology.images) noteRecordedAt(seen, image, changes);
};

/** The same ports, each answer also noted in `seen`. */
export const observePorts = (ports: TickPorts, seen: TickObservations, topology: Topology): TickPorts => {
  const { cluster, registry } = ports;
  return {
    ...ports,
    cluster: {
      ...cluster,
      // Every read of the gate carries all its annotations: the bookkeeping as the tick found it.
      readGate: (settleWithinMs) =>
        onRight(cluster.readGate(settleWithinMs), ({ annotations }) => {
          seen.skipStreak = counterValue(skipStreakOf(topology, annotations));
          seen.refreshAttempt = counterValue(refreshAttemptOf(topology, annotations));
          seen.resolveFailureStreak = counterValue(resolveFailureStreakOf(topology, annotations));
          const recorded = recordedDigestsOf(topology, annotations);
          for (const { name, recordedAtKey } of topology.images) {
            const value = recorded[name];
            if (value !== undefined && O.isSome(value)) seen.recorded[name] = value.value;
            // The time read beside the digest it was read with; no digest or no time, no pair.
            const raw = annotations[recordedAtKey];
            const pair = raw === undefined ? undefined : recordedAtOf(raw);
            if (value !== undefined && O.isSome(value) && pair !== undefined) seen.recordedAt[name] = pair;
            else delete seen.recordedAt[name];
          }
          seen.quarantined = Object.fromEntries(
            topology.images.flatMap((i) => {
              const digest = annotations[i.quarantineKey];
              return digest === undefined ? [] : [[i.name, digest]];
            }),
          );
        }),
      // A write the tick made is the bookkeeping as it left it: exactly the changes it sent.
      patchBookkeeping: (changes) =>
        onRight(cluster.patchBookkeeping(changes), () => noteChanges(topology, seen, changes)),
      // The window goes through as the tick asked: 0, the ownership check's one read (§3.4c).
      observeWorkload: (workload, settleWithinMs) =>
        onRight(cluster.observeWorkload(workload, settleWithinMs), (live) => {
          for (const [container, image] of Object.entries(live.images))
            seen.live[containerKey(workload, container)] = image;
        }),
    },
    registry: {
      resolveDigests: (requests) => () =>
        registry
          .resolveDigests(requests)()
          .then((answers) => {
            answers.forEach((answer, i) => {
              const image = imageOfRepo(topology, requests[i]?.repo ?? '');
              if (image === undefined || E.isLeft(answer)) return;
              if (isWellFormedDigest(answer.right.digest)) seen.registry[image] = answer.right.digest;
              const remaining = answer.right.rateLimitRemaining;
              if (O.isSome(remaining))
                seen.rateLimitRemaining = Math.min(seen.rateLimitRemaining ?? remaining.value, remaining.value);
            });
            return answers;
          }),
    },
  };
};
