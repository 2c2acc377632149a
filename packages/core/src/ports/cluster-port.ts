import type { Option } from 'fp-ts/lib/Option.js';
import type { TaskEither } from 'fp-ts/lib/TaskEither.js';
import type { Settledness } from '../domain/settledness.js';
import type { ImageName, WorkloadRef } from '../domain/workloads.js';
import type { PortError } from './port-error.js';

// What a tick needs from the cluster, as logical operations. Each may fail on
// its own (the simulator injects faults per operation), and each result is a
// plain snapshot value: the Kubernetes adapter serves every read below from one
// GET of the jobs-manager Deployment per tick, so a steady tick costs one
// request.
//
// "Absent" is `Right(none)`, "could not read" is `Left(error)`: the two can
// never be confused, which is the bug class behind #626 and #1964.

export interface ContainerImage {
  readonly container: string;
  /** `docker.io/<repo>@<digest>` */
  readonly image: string;
}

export type RolloutError =
  | PortError
  /** The rollout will never finish on its own (ProgressDeadlineExceeded, an OnDelete DaemonSet). */
  | { readonly _tag: 'RolloutFailed'; readonly message: string }
  /** ROLLOUT_TIMEOUT passed while still waiting; message says for what, with numbers. */
  | { readonly _tag: 'RolloutTimedOut'; readonly message: string };

export type RecordedDigests = Readonly<Record<ImageName, Option<string>>>;

/** A workload as it runs now (RECONCILE_LIVE, DECOUPLED_REFRESH; issue 7). */
export interface LiveWorkload {
  /** By kubectl's rules, within the settle window. */
  readonly settledness: Settledness;
  /** container → image reference in the pod template */
  readonly images: Readonly<Record<string, string>>;
  /** container → the field manager that last set its image (managedFields), where known: `helm`, `image-refresh`, … */
  readonly imageOwners: Readonly<Record<string, string>>;
}

export interface ClusterPort {
  /**
   * The settled guard's question (SPEC §3.2): is the jobs-manager Deployment
   * settled within the settle window? `Left` only when it cannot be read
   * (NotFound, Forbidden, API or transport error, #571).
   */
  readonly observeJobsManager: () => TaskEither<PortError, Settledness>;

  readonly readSkipStreak: () => TaskEither<PortError, Option<string>>;
  readonly writeSkipStreak: (streak: number) => TaskEither<PortError, void>;
  readonly clearSkipStreak: () => TaskEither<PortError, void>;

  readonly readRefreshAttempt: () => TaskEither<PortError, Option<string>>;
  readonly writeRefreshAttempt: (attempt: number) => TaskEither<PortError, void>;
  readonly markFlapDetected: (attempt: number) => TaskEither<PortError, void>;
  /** The success reset (#626): remove refresh-attempt and refresh-flap-detected in one write of their own. */
  readonly clearFlapState: () => TaskEither<PortError, void>;

  readonly readRecordedDigests: () => TaskEither<PortError, RecordedDigests>;
  /**
   * One write for every digest recorded this tick, and (RECONCILE_LIVE only)
   * the pin markers of the images image-refresh pinned this tick.
   */
  readonly recordDigests: (
    digests: Readonly<Partial<Record<ImageName, string>>>,
    pins?: Readonly<Partial<Record<ImageName, string>>>,
  ) => TaskEither<PortError, void>;
  /** The pin markers (ImageSpec.pinKey); RECONCILE_LIVE only. */
  readonly readPinMarkers: () => TaskEither<PortError, RecordedDigests>;
  /**
   * A workload as it runs now: settledness (within the settle window),
   * container images and who set them. For jobs-manager the adapter answers
   * from the tick's one read.
   */
  readonly observeWorkload: (workload: WorkloadRef) => TaskEither<PortError, LiveWorkload>;

  /** One patch per workload carrying all of its containers (I16: one rollout). */
  readonly setImages: (workload: WorkloadRef, images: readonly ContainerImage[]) => TaskEither<PortError, void>;
  /** Wait until the workload is settled, for at most `timeoutMs` (ROLLOUT_TIMEOUT). */
  readonly waitForRollout: (workload: WorkloadRef, timeoutMs: number) => TaskEither<RolloutError, void>;
}
