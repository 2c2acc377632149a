import type { Topology } from '../config/profile/topology.js';
import type { TickConfig } from '../config/tick-config.js';
import { type ChangedDigest, type Hold, type Holds, withHold } from './admission.js';
import { type Annotations, type BookkeepingChanges, type RecordedDigests, recordOf } from './bookkeeping.js';
import {
  hasPendingDigests,
  type PendingDigest,
  parsePendingDigest,
  pendingDigestOf,
  pendingDigestSet,
  pendingDigestsRemoved,
  toWholeSeconds,
} from './pending-digest.js';
import { type ImageResolution, verdictOf } from './plan.js';
import { activePromotionOf } from './promotion-switch.js';

// The second admission check (docs/behaviour.md §3.4a step 2): is a
// changed digest old enough on this edge? Its age is judged by this edge's
// own record of when it first saw the tag answer it — never by a build date
// or another edge's word — against MIN_DIGEST_AGE + ROLLOUT_RING × RING_DELAY.

/**
 * How old a changed digest must be on this edge before it is acted on (0:
 * the script, no check). Under FLEET_PROMOTION_REF the promotion replaces the
 * ring's wait; the soak's MIN_DIGEST_AGE still applies (docs/fleet-promotion.md).
 */
export const requiredDigestAgeMs = (config: TickConfig): number =>
  config.minDigestAgeMs + (activePromotionOf(config) === undefined ? config.rolloutRing * config.ringDelayMs : 0);

/** What the check says of one changed digest this tick. */
export type AgeVerdict =
  /** Old enough: it goes on to the next check. `waited` when a pending record was there (the wait ends now). */
  | { readonly _tag: 'OldEnough'; readonly change: ChangedDigest; readonly pending: PendingDigest }
  /** Too young: held back. `firstSighting` when this tick started the wait (a write, an Event). */
  | {
      readonly _tag: 'TooYoung';
      readonly change: ChangedDigest;
      readonly pending: PendingDigest;
      readonly dueMs: number;
      readonly firstSighting: boolean;
      /** The annotation held something that is not `<digest> <RFC 3339 time>`: counted as first seen now, with a WARN. */
      readonly unparsable?: string;
    };

/** The check's whole decision for one tick: per changed digest, and the one pending write it needs (maybe empty). */
export interface DigestAgeDecision {
  readonly verdicts: readonly AgeVerdict[];
  readonly changes: BookkeepingChanges;
}

const judge = (change: ChangedDigest, raw: string | undefined, nowMs: number, requiredMs: number): AgeVerdict => {
  const parsed = raw === undefined ? undefined : parsePendingDigest(raw);
  // Another digest's record (the tag moved again) or none: the clock starts now.
  const known = parsed !== undefined && parsed.digest === change.to ? parsed : undefined;
  const pending = known ?? { digest: change.to, firstSeenMs: toWholeSeconds(nowMs) };
  const dueMs = pending.firstSeenMs + requiredMs;
  // A clock that went backwards gives a smaller age, never a larger one: the record is never rewritten earlier.
  if (known !== undefined && nowMs >= dueMs) return { _tag: 'OldEnough', change, pending };
  return {
    _tag: 'TooYoung',
    change,
    pending,
    dueMs,
    firstSighting: known === undefined,
    ...(raw !== undefined && parsed === undefined ? { unparsable: raw } : {}),
  };
};

/**
 * Images whose tag answers the recorded digest again while a pending record
 * of another digest is still there: that record is superseded and goes, so a
 * tag that flips back and forth never ages a digest it left (I34).
 */
const supersededByRecord = (
  topology: Topology,
  resolutions: readonly ImageResolution[],
  recorded: RecordedDigests,
  annotations: Annotations,
): readonly string[] =>
  resolutions.flatMap((r): string[] =>
    r._tag === 'Resolved' &&
    pendingDigestOf(topology, annotations, r.image) !== undefined &&
    verdictOf(r.digest, recordOf(recorded, r.image), r.image)._tag === 'Unchanged'
      ? [r.image]
      : [],
  );

/**
 * Judge every changed digest of this tick by the pending records in
 * `annotations` at `nowMs`; say which pending annotations to write (first
 * sightings, a tag that moved again, an unparsable value) and which to remove
 * (superseded by the recorded digest).
 */
export const decideDigestAges = (
  topology: Topology,
  changed: readonly ChangedDigest[],
  resolutions: readonly ImageResolution[],
  recorded: RecordedDigests,
  annotations: Annotations,
  nowMs: number,
  requiredMs: number,
): DigestAgeDecision => {
  const verdicts = changed.map((change) =>
    judge(change, pendingDigestOf(topology, annotations, change.image), nowMs, requiredMs),
  );
  const writes = verdicts.flatMap((v) =>
    v._tag === 'TooYoung' && v.firstSighting ? [pendingDigestSet(topology, v.change.image, v.pending)] : [],
  );
  return {
    verdicts,
    changes: Object.assign(
      {},
      pendingDigestsRemoved(topology, supersededByRecord(topology, resolutions, recorded, annotations)),
      ...writes,
    ) as BookkeepingChanges,
  };
};

/** The hold a too-young digest gets (docs/behaviour.md §3.4a): its image moves no container and is not recorded. */
export const soakingHold = (v: Extract<AgeVerdict, { _tag: 'TooYoung' }>): Hold => ({
  _tag: 'Soaking',
  image: v.change.image,
  digest: v.change.to,
  firstSeenMs: v.pending.firstSeenMs,
  dueMs: v.dueMs,
});

/** Fail closed (no record, no clock): every changed digest is held, its age unknown. */
export const unjudgedHold = (change: ChangedDigest): Hold => ({
  _tag: 'Soaking',
  image: change.image,
  digest: change.to,
});

/** §3.4a — a changed digest to judge, or a pending record to clear: the pending records are read. */
export const hasDigestAgeToJudge = (
  topology: Topology,
  changed: readonly ChangedDigest[],
  annotations: Annotations,
): boolean => changed.length > 0 || hasPendingDigests(topology, annotations);

/** The soak's holds: every too-young digest held back (its line says why and until when). */
export const withSoakingHolds = (holds: Holds, decision: DigestAgeDecision): Holds =>
  decision.verdicts.reduce((acc, v) => (v._tag === 'TooYoung' ? withHold(acc, soakingHold(v)) : acc), holds);

/** Fail closed (docs/behaviour.md §3.4a): an age that cannot be judged holds every changed digest back. */
export const withUnjudgedHolds = (holds: Holds, changed: readonly ChangedDigest[]): Holds =>
  changed.reduce((acc, c) => withHold(acc, unjudgedHold(c)), holds);
