import * as E from 'fp-ts/lib/Either.js';

// The fleet's signed documents — the halt (docs/behaviour.md §3.4b) and the
// promotion (docs/fleet-promotion.md) — are read strictly, with one
// grammar for what they share: a JSON object of version 1 whose every field
// is known (a field this edge does not know could be a rule it would
// silently ignore), RFC 3339 times, printable text.

export const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The fields of `value` that `known` does not name. */
export const unknownFields = (value: Record<string, unknown>, known: ReadonlySet<string>): string[] =>
  Object.keys(value).filter((key) => !known.has(key));

export const RFC_3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

// biome-ignore lint/suspicious/noControlCharactersInRegex: a document's text is printed in log lines and Events; no control characters may ride in on it.
export const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f]/;

/** The document's text as a JSON object of version 1 with no field `known` does not name, or why it is not one. */
export const parseVersionOne = (
  text: string,
  known: ReadonlySet<string>,
): E.Either<string, Record<string, unknown>> => {
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch (error) {
    return E.left(`not JSON (${(error as Error).message})`);
  }
  if (!isObject(document)) return E.left('not a JSON object');
  const unknown = unknownFields(document, known);
  if (unknown.length > 0) return E.left(`unknown field(s) ${unknown.join(', ')}`);
  if (document.version !== 1) return E.left(`version ${JSON.stringify(document.version)} is not 1`);
  return E.right(document);
};
