import type { AnsweredDigest } from './admission.js';
import { type Annotations, isQuarantinedDigest, quarantinedDigestsOf } from './bookkeeping.js';

// docs/behaviour.md §3.4a, the first admission check (ON_ROLLOUT_FAILURE,
// issue 16): a changed digest equal to the digest quarantined for its image
// failed a rollout here and was rolled back; it is held, not re-applied
// (I30). A first observation of that digest (a human cleared the record) is
// held too: recorded as a baseline, it would be what a live re-pin and the
// next rollback go back to. A quarantine names one digest: once the tag
// moves to another, that one is ordinary drift again. The annotation itself stays (it still holds
// back the bad build should the tag ever point at it again) until `rearm`
// lifts it.

/** The answered digests (changed, or first observed) that are the very digest quarantined for their image. */
export const quarantinedAnswers = (
  answered: readonly AnsweredDigest[],
  bookkeeping: Annotations,
): readonly AnsweredDigest[] => {
  const quarantined = quarantinedDigestsOf(bookkeeping);
  return answered.filter((c) => isQuarantinedDigest(quarantined, c.image, c.to));
};
