import * as E from 'fp-ts/lib/Either.js';
import { describe, expect, it } from 'vitest';
import type { Digest } from '../src/domain/digest.js';
import { type FleetHalt, parseFleetHalt } from '../src/domain/fleet-halt.js';
import { type HaltReading, haltDocumentRead } from '../src/domain/fleet-halt-reading.js';
import { transport } from '../src/domain/port-error.js';
import { type SignedReading, signedDocumentRead, verifiedDocumentOf } from '../src/domain/signed-document-reading.js';

// The edges of reading the fleet halt (docs/behaviour.md §3.4b): the keys
// the OCI distribution grammar allows, values of the wrong JSON type that
// would read as the right text, an expiry that is a date but no RFC 3339
// time, and the steps of a reading that a document answer must not move.
// Each fails closed where it is not what the document's grammar says (I37).

const NOW = Date.parse('2026-12-02T12:00:00Z');
const d = (c: string) => `sha256:${c.repeat(64)}` as Digest;
const [GOOD, BAD] = [d('1'), d('2')];
const JM = 'tracebloc/jobs-manager';

const doc = (fields: Record<string, unknown>): string =>
  JSON.stringify({ version: 1, reason: 'stop', expires: '2026-12-03T12:00:00Z', repositories: {}, ...fields });

const refused = (text: string): string => {
  const halt = parseFleetHalt(text, NOW);
  if (E.isRight(halt)) throw new Error(`expected a refusal, got ${JSON.stringify(halt.right)}`);
  return halt.left;
};

describe('a halt’s repository keys follow the OCI distribution grammar', () => {
  // Path components `[a-z0-9]+(?:(?:[._]|__|[-]*)[a-z0-9]+)*`, joined by `/`:
  // each key below is a Docker Hub repository some edge may run, and a halt
  // that refused it could not halt that repository at all.
  it('takes separators in the namespace, a long run after a dash, three components and a double dash', () => {
    const keys = [
      'shop_team/web', // `_` inside the namespace
      'docker.io/shop.team/web', // `.` inside the namespace (written with its host: bare, `shop.team` is a host)
      'shop-team/web', // several characters after the namespace's separator
      'shop/team/web', // more than namespace/name
      'shop/web--api', // a run of dashes in the name
    ];
    const halt = parseFleetHalt(doc({ repositories: Object.fromEntries(keys.map((k) => [k, { digests: '*' }])) }), NOW);
    expect(halt).toEqual(
      E.right({
        reason: 'stop',
        expires: '2026-12-03T12:00:00Z',
        expiresAtMs: Date.parse('2026-12-03T12:00:00Z'),
        repositories: {
          'shop_team/web': { digests: '*', pin: undefined },
          'shop.team/web': { digests: '*', pin: undefined },
          'shop-team/web': { digests: '*', pin: undefined },
          'shop/team/web': { digests: '*', pin: undefined },
          'shop/web--api': { digests: '*', pin: undefined },
        },
      } satisfies FleetHalt),
    );
  });
});

describe('a value of the wrong JSON type is refused, even where its text would read', () => {
  // A one-element array stringifies to its element, so a check of the text
  // alone would take it; the document is strict (I19, I37).
  it('an expiry written as a list holding a time', () => {
    expect(refused(doc({ expires: ['2026-12-03T12:00:00Z'] }))).toBe('expires is not an RFC 3339 time');
  });

  it('a pin written as a list holding a digest', () => {
    expect(refused(doc({ repositories: { [JM]: { digests: [BAD], pin: [GOOD] } } }))).toBe(
      `repositories["${JM}"].pin is not a well-formed digest`,
    );
  });

  it('a halted digest written as a list holding a digest', () => {
    expect(refused(doc({ repositories: { [JM]: { digests: [[BAD]] } } }))).toBe(
      `repositories["${JM}"].digests holds 1 malformed digest(s)`,
    );
  });
});

describe('an expiry is an RFC 3339 time, nothing around it', () => {
  // ECMAScript's expanded year (`+002026-…`) is a time Date.parse reads, and
  // the same instant, but no RFC 3339 time: four-digit years only.
  it('refuses an expanded year that Date.parse would read', () => {
    expect(refused(doc({ expires: '+002026-12-03T12:00:00Z' }))).toBe('expires is not an RFC 3339 time');
  });
});

describe('a document answer moves only a reading that is fetching', () => {
  const text = doc({ repositories: { [JM]: { digests: [BAD] } } });
  const document = E.right({ _tag: 'Document', text } as const);
  const halt = parseFleetHalt(text, NOW);
  if (E.isLeft(halt)) throw new Error(halt.left);
  const verified: HaltReading = { _tag: 'Verified', digest: GOOD, text, document: halt.right, known: true };
  const read: SignedReading<FleetHalt> = { _tag: 'Read', digest: GOOD, text, document: halt.right };

  it('a halt already verified is left as it is, even with no clock to judge a document by', () => {
    expect(haltDocumentRead(verified, document, undefined)).toBe(verified);
  });

  it('a reading past the document step is left as it is by a document, or by a failed read', () => {
    const kind = { noun: 'halt', parse: parseFleetHalt };
    expect(signedDocumentRead(kind, verified, document, NOW)).toBe(verified);
    expect(signedDocumentRead(kind, read, E.left(transport('connection reset')), NOW)).toBe(read);
  });

  it('a document read but not yet verified does not count; a verified one does', () => {
    expect(verifiedDocumentOf(read)).toBeUndefined();
    expect(verifiedDocumentOf(verified)).toBe(halt.right);
  });
});
