import type { RegistryError, Resolution } from '@image-refresh/core';
import * as E from 'fp-ts/lib/Either.js';

// Never a token in an error message or a log line (brief, docs/behaviour.md §3 logs go to
// stderr and into cluster logging). The code never interpolates one; this pass
// also catches a server that echoes it back in a challenge or an error body.

export const REDACTED = '<redacted token>';

export const redactAnswer =
  (secrets: readonly string[]) =>
  (answer: E.Either<RegistryError, Resolution>): E.Either<RegistryError, Resolution> => {
    if (E.isRight(answer) || secrets.length === 0) return answer;
    const message = secrets.reduce((text, secret) => text.split(secret).join(REDACTED), answer.left.message);
    return message === answer.left.message ? answer : E.left({ ...answer.left, message });
  };
