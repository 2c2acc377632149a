import type { TickConfig } from '../config/tick-config.js';
import { answeredDigests, type Holds } from './admission.js';
import type { Annotations, RecordedDigests } from './bookkeeping.js';
import { hasPendingDigests } from './pending-digest.js';
import type { ImageResolution } from './plan.js';
import { isDigestAgeOff } from './switches.js';

// docs/behaviour.md §3.4a: every admission check judges only the digests the
// tick would act on — changed, or first observed — and, besides them, the
// soak clears a pending record the registry no longer answers. A tick with
// neither, what a 15-minute tick almost always is, passes every check at
// once, in one step (README.md, Benchmarks).

/** No digest changed or first observed (none held yet), and no pending record for the soak to clear. */
export const hasNothingToAdmit = (
  config: TickConfig,
  answers: readonly ImageResolution[],
  recorded: RecordedDigests,
  holds: Holds,
  bookkeeping: Annotations,
): boolean =>
  answeredDigests(answers, recorded, holds).length === 0 &&
  (isDigestAgeOff(config) || !hasPendingDigests(config.topology, bookkeeping));
