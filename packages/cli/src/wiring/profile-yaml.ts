import type { ConfigError } from '@image-refresh/core';
import { ENV } from '@image-refresh/core';
import * as E from 'fp-ts/lib/Either.js';
import { LineCounter, parseDocument } from 'yaml';

// The YAML parser behind IMAGE_REFRESH_PROFILE, a file of its own in the
// build (dist/image-refresh-profile.mjs), imported only when a profile is
// given (read-profile.ts): inlined, even never evaluated, the parser's code
// cost a steady tick on the chart's topology ~11 MiB of peak RSS on Node 20
// (README.md, Benchmarks).

/** A profile document's text as the parser made it, or each of its syntax errors at its line and column. */
export const parseProfileYaml = (file: string, text: string): E.Either<readonly ConfigError[], unknown> => {
  const lines = new LineCounter();
  // uniqueKeys: a key given twice is a problem, not a silent last-one-wins.
  const document = parseDocument(text, { uniqueKeys: true, prettyErrors: false, lineCounter: lines });
  if (document.errors.length > 0) {
    return E.left(
      document.errors.map((e) => {
        const at = lines.linePos(e.pos[0]);
        return {
          variable: ENV.profile,
          value: file,
          problem: `is not YAML or JSON at line ${at.line}, column ${at.col}: ${e.message.split('\n')[0]}`,
        };
      }),
    );
  }
  return E.right(document.toJS({ maxAliasCount: 64 }));
};
