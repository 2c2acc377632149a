import * as E from 'fp-ts/lib/Either.js';
import type { TaskEither } from 'fp-ts/lib/TaskEither.js';
import { transport } from '../domain/port-error.js';
import type { SignatureAnswers } from '../machine/tick-actors.js';
import type { SignaturePort, SignatureTarget } from '../ports/signature-port.js';

// The machine's one `verifySignatures` call as the port's checks of each
// digest, one after the other (docs/behaviour.md §3.4a step 3): each answer
// stands alone, so one image's registry failure leaves the others' verdicts
// (I15).

/**
 * VERIFY_SIGNATURES ≠ off but no signature port was given: nothing can be
 * verified, so nothing is — every digest waits with this reason (fail closed).
 */
export const NO_SIGNATURE_PORT =
  'VERIFY_SIGNATURES is on but this tick was given no signature port (TickPorts.signatures): no digest can be verified';

export const verifyEach =
  (port: SignaturePort | undefined, targets: readonly SignatureTarget[]): TaskEither<never, SignatureAnswers> =>
  async () => {
    const answers: SignatureAnswers[number][] = [];
    for (const target of targets) {
      answers.push(port === undefined ? E.left(transport(NO_SIGNATURE_PORT)) : await port.verify(target)());
    }
    return E.right(answers);
  };
