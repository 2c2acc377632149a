import * as E from 'fp-ts/lib/Either.js';
import { transport } from '../../src/domain/port-error.js';
import type { TickPorts } from '../../src/run-tick.js';

// A clock that cannot be read (docs/behaviour.md §3.4d: a window, a rollout's
// time or a record's time the tick cannot read fails closed or goes untimed).

/** What a failed read says: the cause a line carries, `Transport: clock gone`. */
export const CLOCK_GONE = 'clock gone';

/** These ports with a clock whose reads fail (Transport: clock gone) whenever `fails` says so, asked once per read. */
export const withFailingClock = (ports: TickPorts, fails: () => boolean): TickPorts => {
  const clock = ports.clock as NonNullable<TickPorts['clock']>;
  return {
    ...ports,
    clock: {
      ...clock,
      now: () => () => (fails() ? Promise.resolve(E.left(transport(CLOCK_GONE))) : clock.now()()),
    },
  };
};
