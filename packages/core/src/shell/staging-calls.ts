import * as E from 'fp-ts/lib/Either.js';
import type { TaskEither } from 'fp-ts/lib/TaskEither.js';
import { transport } from '../domain/port-error.js';
import type { PlatformAnswers } from '../machine/tick-actors.js';
import type { PlatformPort, PlatformTarget } from '../ports/platform-port.js';

// The machine's platform and staging calls as port calls (docs/behaviour.md
// §3.4a step 4, §3.5a), and what a tick without the port answers: fail
// closed — no digest is admitted, no workload is switched.

/** PLATFORM_CHECK=on but no platform port was given: no manifest can be read, so no digest is admitted. */
export const NO_PLATFORM_PORT =
  'PLATFORM_CHECK is on but this tick was given no platform port (TickPorts.platforms): no manifest can be read';

/** PREPULL=on but no staging port was given: nothing can be staged, so nothing is switched. */
export const NO_STAGING_PORT =
  'PREPULL is on but this tick was given no staging port (TickPorts.staging): nothing can be staged';

/** Each target's platforms, one after the other: one manifest's failure leaves the others' answers (I15). */
export const readPlatformsOfEach =
  (port: PlatformPort | undefined, targets: readonly PlatformTarget[]): TaskEither<never, PlatformAnswers> =>
  async () => {
    const answers: PlatformAnswers[number][] = [];
    for (const target of targets) {
      answers.push(port === undefined ? E.left(transport(NO_PLATFORM_PORT)) : await port.read(target)());
    }
    return E.right(answers);
  };
