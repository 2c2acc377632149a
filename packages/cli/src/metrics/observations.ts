import {
  counterValue,
  IMAGES,
  type ImageName,
  isWellFormedDigest,
  type TickPorts,
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
  /** last-refreshed-<image>-digest after the tick (read, then recorded). */
  readonly recorded: Partial<Record<ImageName, string>>;
  /** The digest the registry answered this tick, where it was well-formed (I19). */
  readonly registry: Partial<Record<ImageName, string>>;
  /** The lowest ratelimit-remaining the registry reported this tick. */
  rateLimitRemaining?: number;
  /** `<kind>/<namespace>/<name>/<container>` → the image it runs, for each workload this tick read. */
  readonly live: Record<string, string>;
}

export const emptyObservations = (): TickObservations => ({ recorded: {}, registry: {}, live: {} });

const imageOfRepo = (repo: string): ImageName | undefined => IMAGES.find((i) => i.repo === repo)?.name;

/** `docker.io/tracebloc/jobs-manager@sha256:…` → its image and digest; a floating tag names no digest. */
export const liveDigestOf = (reference: string): { image: ImageName; digest: string } | undefined => {
  const at = reference.indexOf('@');
  if (at < 0) return undefined;
  const digest = reference.slice(at + 1);
  const path = reference.slice(0, at);
  const image = IMAGES.find((i) => path === i.repo || path.endsWith(`/${i.repo}`))?.name;
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

/** The same ports, each answer also noted in `seen`. */
export const observePorts = (ports: TickPorts, seen: TickObservations): TickPorts => {
  const { cluster, registry } = ports;
  return {
    ...ports,
    cluster: {
      ...cluster,
      readSkipStreak: () =>
        onRight(cluster.readSkipStreak(), (raw) => {
          seen.skipStreak = counterValue(raw);
        }),
      writeSkipStreak: (streak) =>
        onRight(cluster.writeSkipStreak(streak), () => {
          seen.skipStreak = streak;
        }),
      clearSkipStreak: () =>
        onRight(cluster.clearSkipStreak(), () => {
          seen.skipStreak = 0;
        }),
      readRefreshAttempt: () =>
        onRight(cluster.readRefreshAttempt(), (raw) => {
          seen.refreshAttempt = counterValue(raw);
        }),
      writeRefreshAttempt: (attempt) =>
        onRight(cluster.writeRefreshAttempt(attempt), () => {
          seen.refreshAttempt = attempt;
        }),
      clearFlapState: () =>
        onRight(cluster.clearFlapState(), () => {
          seen.refreshAttempt = 0;
        }),
      readRecordedDigests: () =>
        onRight(cluster.readRecordedDigests(), (recorded) => {
          for (const { name } of IMAGES) {
            const value = recorded[name];
            if (O.isSome(value)) seen.recorded[name] = value.value;
          }
        }),
      recordDigests: (digests, pins) =>
        onRight(pins === undefined ? cluster.recordDigests(digests) : cluster.recordDigests(digests, pins), () => {
          Object.assign(seen.recorded, digests);
        }),
      observeWorkload: (workload) =>
        onRight(cluster.observeWorkload(workload), (live) => {
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
              const image = imageOfRepo(requests[i]?.repo ?? '');
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
