import { type RecordedDigests, recordOf } from './bookkeeping.js';
import type { Digest } from './digest.js';
import { type ImageResolution, type ImageVerdict, verdictOf } from './plan.js';

// docs/behaviour.md §3.4a: before a changed digest is planned, it passes the
// admission checks in one fixed order — halted (§3.4b)? → quarantined? → old
// enough on this edge (soak, ring)? → promoted for this ring
// (docs/fleet-promotion.md)? → inside a maintenance window (§3.4d)? →
// signature verified? → every platform there? — and only then the flap back-off, (PREPULL) the staging, the
// persisted attempt and the re-image (§3.5, §3.5a, §3.6). A check that is
// switched off passes at once. A check that holds an image back records why
// here, as data; the plan is made once, after every check, with the held
// images left out (docs/behaviour.md §3.4), so a held digest never reaches a
// pod spec and is never recorded as what a workload runs.

/** Why one image's new digest is not acted on this tick; each admission check adds its own variant. */
export type Hold =
  /** The fleet halt (FLEET_HALT_REF, docs/behaviour.md §3.4b): a verified, unexpired halt names this digest. */
  | { readonly _tag: 'Halted'; readonly image: string; readonly digest: Digest; readonly reason: string }
  /** The fleet halt could not be verified this tick: fail closed, nothing of this image moves or is recorded (I37). */
  | { readonly _tag: 'HaltUnverified'; readonly image: string; readonly digest: Digest }
  /** The way back (ON_ROLLOUT_FAILURE=revert): this digest failed a rollout here before. */
  | { readonly _tag: 'Quarantined'; readonly image: string; readonly digest: Digest }
  /** Fleet-safe rollout (MIN_DIGEST_AGE, ROLLOUT_RING): not yet old enough on this edge. */
  | {
      readonly _tag: 'Soaking';
      readonly image: string;
      readonly digest: Digest;
      /** When this edge first saw it (its pending record), and when it is old enough; absent when that could not be judged (fail closed). */
      readonly firstSeenMs?: number;
      readonly dueMs?: number;
    }
  /**
   * MAINTENANCE_WINDOW (docs/behaviour.md §3.4d): outside every window
   * (`closed`), inside one without room for the plan (`noRoom`), a plan no
   * window can hold (`tooShort`, a finding), or the clock unread (`unread`).
   */
  | {
      readonly _tag: 'OutsideWindow';
      readonly image: string;
      readonly digest: Digest;
      readonly why: 'closed' | 'noRoom' | 'tooShort' | 'unread';
    }
  /**
   * FLEET_PROMOTION_REF on an edge of ring ≥ 1 (docs/fleet-promotion.md): no
   * verified promotion names this digest for `ring` yet, or (`unverified`)
   * the promotion could not be read or verified — fail closed.
   */
  | {
      readonly _tag: 'AwaitingPromotion';
      readonly image: string;
      readonly digest: Digest;
      readonly ring: number;
      readonly unverified: boolean;
    }
  /** Trust (VERIFY_SIGNATURES=enforce): the digest's signature did not verify, or could not be checked. */
  | {
      readonly _tag: 'SignatureNotVerified';
      readonly image: string;
      readonly digest: Digest;
      readonly why: string;
      /**
       * `NotVerified`: the registry's final word, judged — a rejection (a
       * finding, §3.4a step 3). `CheckFailed`: a registry failure left no verdict,
       * a resolution failure of that image (WARN, retried next tick), under
       * `warn` as under `enforce`.
       */
      readonly check: 'NotVerified' | 'CheckFailed';
    }
  /**
   * PLATFORM_CHECK=on (docs/behaviour.md §3.4a step 4): `Lacks`, the digest
   * drops a platform the recorded one provides (a finding); `Unchecked`, one
   * of the two manifests could not be read (fail closed, WARN, retried next tick).
   */
  | {
      readonly _tag: 'PlatformMismatch';
      readonly image: string;
      readonly digest: Digest;
      readonly why: string;
      readonly check: 'Lacks' | 'Unchecked';
    }
  /**
   * PREPULL=on (docs/behaviour.md §3.5a): the digest could not be pulled onto
   * every node of a workload that runs it before the switch; held after the
   * plan was made, so no attempt is spent on it (I41).
   */
  | { readonly _tag: 'NotStaged'; readonly image: string; readonly digest: Digest; readonly why: string };

/** Image → why it is held back this tick. At most one hold per image: the first check that holds it wins. */
export type Holds = Readonly<Partial<Record<string, Hold>>>;

/** A digest the registry answered that differs from the one recorded: what the admission checks look at. */
export interface ChangedDigest {
  readonly image: string;
  readonly from: string;
  readonly to: Digest;
}

/**
 * The verdict of each resolved image no earlier check has held back, in the
 * images' order: what every admission check starts from.
 */
export const unheldVerdicts = (
  resolutions: readonly ImageResolution[],
  recorded: RecordedDigests,
  holds: Holds,
): readonly ImageVerdict[] =>
  resolutions.flatMap((resolution): ImageVerdict[] =>
    resolution._tag !== 'Resolved' || holds[resolution.image] !== undefined
      ? []
      : [verdictOf(resolution.digest, recordOf(recorded, resolution.image), resolution.image)],
  );

/**
 * The changed digests of this tick that no earlier check has held back, in
 * the images' order. First observations are not here: recording a baseline
 * rolls no pod (I8), so nothing needs admitting.
 */
export const changedDigests = (
  resolutions: readonly ImageResolution[],
  recorded: RecordedDigests,
  holds: Holds,
): readonly ChangedDigest[] =>
  unheldVerdicts(resolutions, recorded, holds).flatMap((verdict): ChangedDigest[] =>
    verdict._tag === 'Drift' ? [{ image: verdict.image, from: verdict.from, to: verdict.to }] : [],
  );

/** A digest this tick would act on: one to move containers to, or one to record as a baseline. */
export interface AnsweredDigest {
  readonly image: string;
  readonly to: Digest;
}

/**
 * The changed digests and first observations of this tick that no earlier
 * check has held back, in the images' order: what the quarantine judges
 * (I30). A first observation rolls no pod (I8), but its record is what a
 * live re-pin (RECONCILE_LIVE=1) and a rollback go back to, so a quarantined
 * digest recorded as a baseline would lead straight back to the bad build.
 */
export const answeredDigests = (
  resolutions: readonly ImageResolution[],
  recorded: RecordedDigests,
  holds: Holds,
): readonly AnsweredDigest[] =>
  unheldVerdicts(resolutions, recorded, holds).flatMap((verdict): AnsweredDigest[] => {
    if (verdict._tag === 'Drift') return [{ image: verdict.image, to: verdict.to }];
    if (verdict._tag === 'FirstObservation') return [{ image: verdict.image, to: verdict.digest }];
    return [];
  });

/** The images held back this tick, for the plan (`PlanScope.held`). */
export const heldImages = (holds: Holds): ReadonlySet<string> => new Set(Object.keys(holds));

/** Add one hold; an image already held keeps its first reason (the check order decides, §3.4a). */
export const withHold = (holds: Holds, hold: Hold): Holds =>
  holds[hold.image] === undefined ? { ...holds, [hold.image]: hold } : holds;
