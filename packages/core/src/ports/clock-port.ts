import type { TaskEither } from 'fp-ts/lib/TaskEither.js';
import type { PortError } from '../domain/port-error.js';

// Time enters a tick through this port alone (I20: the machine reads no
// clock). The tick needs it twice: how old a changed digest is on this edge
// (MIN_DIGEST_AGE, ROLLOUT_RING; docs/behaviour.md §3.4a step 2), and the
// START_JITTER wait (§3.3).

/**
 * The wall clock and a wait, for a tick. Optional in `TickPorts`: without
 * one, a tick that must judge a digest's age holds every changed digest back
 * (fail closed, a WARN) and START_JITTER is not waited (a WARN); with the
 * defaults the tick never asks for it.
 */
export interface ClockPort {
  /** Milliseconds since the epoch, now. */
  readonly now: () => TaskEither<PortError, number>;
  /**
   * Wait `ms` milliseconds. The implementation must end the wait early when
   * the tick is interrupted (it is built with the tick's signal): a SIGTERM
   * during START_JITTER ends the tick `interrupted` at once.
   */
  readonly sleep: (ms: number) => TaskEither<PortError, void>;
}
