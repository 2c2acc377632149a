import { randomBytes } from 'node:crypto';
import { renameSync, writeFileSync } from 'node:fs';
import * as E from 'fp-ts/lib/Either.js';

/**
 * A document the fleet reads (a fleet halt, a promotion), replaced
 * atomically: a publisher never reads half of one. Left: why it could not be
 * written, naming the file and the cause.
 */
export const writeAtomically = (file: string, text: string): E.Either<string, void> => {
  const temporary = `${file}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    writeFileSync(temporary, text, { mode: 0o644 });
    renameSync(temporary, file);
    return E.right(undefined);
  } catch (error) {
    return E.left(`could not write ${file}: ${(error as Error).message}`);
  }
};
