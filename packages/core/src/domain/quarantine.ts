import type { Topology } from '../config/profile/topology.js';
import { type AnsweredDigest, answeredDigests, type Holds, withHold } from './admission.js';
import type { DigestsByImage, RecordedDigests } from './bookkeeping.js';
import {
  type Annotations,
  type BookkeepingChanges,
  isQuarantinedDigest,
  quarantinedDigestsOf,
  quarantineSet,
} from './bookkeeping.js';
import { withPendingClearedFor } from './pending-digest.js';
import type { ImageResolution } from './plan.js';

// docs/behaviour.md §3.4a, the first admission check (ON_ROLLOUT_FAILURE,
// §3.6): a changed digest equal to the digest quarantined for its image
// failed a rollout here and was rolled back; it is held, not re-applied
// (I30). A first observation of that digest (a human cleared the record) is
// held too: recorded as a baseline, it would be what a live re-pin and the
// next rollback go back to. A quarantine names one digest: once the tag
// moves to another, that one is ordinary drift again. The annotation itself stays (it still holds
// back the bad build should the tag ever point at it again) until `rearm`
// lifts it.

/** The answered digests (changed, or first observed) that are the very digest quarantined for their image. */
export const quarantinedAnswers = (
  topology: Topology,
  answered: readonly AnsweredDigest[],
  bookkeeping: Annotations,
): readonly AnsweredDigest[] => {
  const quarantined = quarantinedDigestsOf(topology, bookkeeping);
  return answered.filter((c) => isQuarantinedDigest(quarantined, c.image, c.to));
};

/** §3.4a — this tick's changed or first-observed digests that are the very digest quarantined for their image (I30). */
export const quarantinedThisTick = (
  topology: Topology,
  resolutions: readonly ImageResolution[],
  recorded: RecordedDigests,
  holds: Holds,
  bookkeeping: Annotations,
): readonly AnsweredDigest[] =>
  quarantinedAnswers(topology, answeredDigests(resolutions, recorded, holds), bookkeeping);

/** Each quarantined digest held back: not re-applied (I30). */
export const withQuarantineHolds = (holds: Holds, quarantined: readonly AnsweredDigest[]): Holds =>
  quarantined.reduce((acc, c) => withHold(acc, { _tag: 'Quarantined', image: c.image, digest: c.to }), holds);

/**
 * The quarantine of a rolled-back build (I30): each bad digest written to its
 * image's quarantine key, and that image's pending record removed (the soak
 * would otherwise age a build that failed here, §3.4a step 2).
 */
export const quarantineWriteOf = (
  topology: Topology,
  bad: DigestsByImage,
  bookkeeping: Annotations,
): BookkeepingChanges =>
  withPendingClearedFor(
    topology,
    quarantineSet(topology, bad),
    topology.images.filter(({ name }) => bad[name] !== undefined).map(({ name }) => name),
    bookkeeping,
  );
