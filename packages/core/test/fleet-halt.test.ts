import * as E from 'fp-ts/lib/Either.js';
import { describe, expect, it } from 'vitest';
import {
  FLEET_HALT_MEDIA_TYPE,
  type FleetHalt,
  haltIsInForce,
  isHaltedDigest,
  MAX_HALT_BYTES,
  parseFleetHalt,
  pinOf,
  renderFleetHalt,
} from '../src/domain/fleet-halt.js';

// The fleet halt document (docs/behaviour.md §3.4b): strict, so that what does
// not parse fails closed rather than halting less than was meant, and read
// against the tick's own clock, never the machine's.

const NOW = Date.parse('2026-12-02T12:00:00Z');
const BAD = `sha256:${'a'.repeat(64)}`;
const GOOD = `sha256:${'b'.repeat(64)}`;
const OTHER = `sha256:${'c'.repeat(64)}`;
const JM = 'tracebloc/jobs-manager';
const RM = 'tracebloc/resource-monitor';

const document = (overrides: Record<string, unknown> = {}): string =>
  JSON.stringify({
    version: 1,
    reason: 'build 2 loses jobs on restart (INC-1234)',
    expires: '2026-12-03T12:00:00Z',
    repositories: { [JM]: { digests: [BAD], pin: GOOD }, [RM]: { digests: '*' } },
    ...overrides,
  });

const parsed = (text: string): FleetHalt => {
  const halt = parseFleetHalt(text, NOW);
  if (E.isLeft(halt)) throw new Error(`expected a halt, got: ${halt.left}`);
  return halt.right;
};

const refused = (text: string): string => {
  const halt = parseFleetHalt(text, NOW);
  if (E.isRight(halt)) throw new Error(`expected a refusal, got ${JSON.stringify(halt.right)}`);
  return halt.left;
};

describe('parseFleetHalt', () => {
  it('reads the reason, the expiry and each repository: its halted digests or *, and its pin', () => {
    expect(parsed(document())).toEqual({
      reason: 'build 2 loses jobs on restart (INC-1234)',
      expires: '2026-12-03T12:00:00Z',
      expiresAtMs: Date.parse('2026-12-03T12:00:00Z'),
      repositories: { [JM]: { digests: [BAD], pin: GOOD }, [RM]: { digests: '*', pin: undefined } },
    });
  });

  it.each([
    ['not JSON', '{"version":', /^not JSON/],
    ['an array', '[]', /^not a JSON object$/],
    [
      'an unknown field (a typo must not halt less than meant)',
      document({ expire: 'x' }),
      /^unknown field\(s\) expire$/,
    ],
    ['version 2', document({ version: 2 }), /^version 2 is not 1$/],
    ['no version', document({ version: undefined }), /^version undefined is not 1$/],
    ['no reason', document({ reason: '  ' }), /^no reason$/],
    ['a reason of 257 characters', document({ reason: 'r'.repeat(257) }), /^reason longer than 256 characters$/],
    ['a reason with a newline (it is printed in lines and Events)', document({ reason: 'a\nb' }), /control characters/],
    ['no expiry', document({ expires: undefined }), /^expires is not an RFC 3339 time$/],
    ['an expiry that is a date only', document({ expires: '2026-12-03' }), /^expires is not an RFC 3339 time$/],
    ['an expiry 31 days ahead', document({ expires: '2027-01-02T12:00:01Z' }), /is more than 30 days ahead$/],
    ['repositories that are no object', document({ repositories: [] }), /^repositories is not an object$/],
    [
      'a repository that is no path',
      document({ repositories: { JobsManager: { digests: '*' } } }),
      /is not a repository path/,
    ],
    [
      'a repository field it does not know',
      document({ repositories: { [JM]: { digests: '*', pins: GOOD } } }),
      /has unknown field\(s\) pins$/,
    ],
    ['an empty digest list', document({ repositories: { [JM]: { digests: [] } } }), /must be "\*" or a non-empty list/],
    [
      'a malformed digest (I19)',
      document({ repositories: { [JM]: { digests: ['sha256:abc'] } } }),
      /holds 1 malformed digest/,
    ],
    [
      'a malformed pin (I19)',
      document({ repositories: { [JM]: { digests: [BAD], pin: 'latest' } } }),
      /pin is not a well-formed digest$/,
    ],
    [
      'a pin that is itself halted',
      document({ repositories: { [JM]: { digests: [BAD], pin: BAD } } }),
      /pin is one of its own halted digests$/,
    ],
  ])('refuses %s', (_what, text, why) => {
    expect(refused(text)).toMatch(why);
  });

  it.each([
    ['null', 'null', /^not a JSON object$/],
    ['repositories null', document({ repositories: null }), /^repositories is not an object$/],
    [
      'a repository that is no object',
      document({ repositories: { [JM]: 'x' } }),
      /^repositories\["tracebloc\/jobs-manager"\] is not an object$/,
    ],
    ['a reason that is no string', document({ reason: 5 }), /^no reason$/],
    [
      'an expiry that is no time of any day',
      document({ expires: '2026-13-45T99:99:99Z' }),
      /^expires is not an RFC 3339 time$/,
    ],
    [
      'an expiry with text before it',
      document({ expires: 'x2026-12-03T12:00:00Z' }),
      /^expires is not an RFC 3339 time$/,
    ],
    [
      'an expiry with an offset of one digit',
      document({ expires: '2026-12-03T12:00:00+1:00' }),
      /^expires is not an RFC 3339 time$/,
    ],
    [
      'an expiry with an empty fraction',
      document({ expires: '2026-12-03T12:00:00.Z' }),
      /^expires is not an RFC 3339 time$/,
    ],
    ['two unknown fields', document({ a: 1, b: 2 }), /^unknown field\(s\) a, b$/],
    [
      'two unknown repository fields',
      document({ repositories: { [JM]: { digests: '*', x: 1, y: 2 } } }),
      /^repositories\["tracebloc\/jobs-manager"\] has unknown field\(s\) x, y$/,
    ],
    [
      'a pin that is no string',
      document({ repositories: { [JM]: { digests: [BAD], pin: 5 } } }),
      /pin is not a well-formed digest$/,
    ],
    ['a digest that is no string', document({ repositories: { [JM]: { digests: [5] } } }), /holds 1 malformed digest/],
    [
      'a repository starting with a separator',
      document({ repositories: { '_a/b': { digests: '*' } } }),
      /is not a repository path/,
    ],
    [
      'a repository ending with a separator',
      document({ repositories: { 'a/b-': { digests: '*' } } }),
      /is not a repository path/,
    ],
    [
      'a repository with an empty component',
      document({ repositories: { 'a//b': { digests: '*' } } }),
      /is not a repository path/,
    ],
    [
      'a repository with a prefix',
      document({ repositories: { ' a/b': { digests: '*' } } }),
      /is not a repository path/,
    ],
  ])('refuses %s too', (_what, text, why) => {
    expect(refused(text)).toMatch(why);
  });

  it.each([
    ['a reason of exactly 256 characters', document({ reason: 'r'.repeat(256) })],
    ['an expiry with a fraction and an offset', document({ expires: '2026-12-03T13:00:00.125+01:00' })],
    [
      'repositories with separators: dots, double underscores, runs of dashes, several components',
      document({
        repositories: {
          'a.b/c__d/e--f': { digests: '*' },
          'a1/b2c3': { digests: [BAD] },
          'ab.cd/ef': { digests: '*' },
          'a--b/c': { digests: '*' },
          'a/b.c_d': { digests: '*' },
        },
      }),
    ],
  ])('takes %s', (_what, text) => {
    expect(E.isRight(parseFleetHalt(text, NOW))).toBe(true);
  });

  it('reads at most 16 KiB of document (the adapter stops reading past it), of the media type the README names', () => {
    expect(MAX_HALT_BYTES).toBe(16 * 1_024);
    expect(FLEET_HALT_MEDIA_TYPE).toBe('application/vnd.tracebloc.image-refresh.fleet-halt.v1+json');
  });

  it('takes a halt that names nothing: published under the tag, it lifts one', () => {
    const nothing = parsed(document({ repositories: {} }));
    expect(nothing.repositories).toEqual({});
    expect(isHaltedDigest(nothing, JM, BAD)).toBe(false);
  });

  it('takes an expiry exactly 30 days ahead, and one already past (an expired halt parses; it is ignored)', () => {
    expect(parsed(document({ expires: '2027-01-01T12:00:00Z' })).expiresAtMs).toBe(Date.parse('2027-01-01T12:00:00Z'));
    expect(parsed(document({ expires: '2026-12-01T00:00:00Z' })).expires).toBe('2026-12-01T00:00:00Z');
  });
});

describe('what a halt in force says', () => {
  const halt = parsed(document());

  it('holds until its expiry, not at or after it', () => {
    expect(haltIsInForce(halt, halt.expiresAtMs - 1)).toBe(true);
    expect(haltIsInForce(halt, halt.expiresAtMs)).toBe(false);
  });

  it('halts the digests it names, * halts every digest, the pin is never halted, an unnamed repository is free', () => {
    expect(isHaltedDigest(halt, JM, BAD)).toBe(true);
    expect(isHaltedDigest(halt, JM, OTHER)).toBe(false);
    expect(isHaltedDigest(halt, JM, GOOD)).toBe(false);
    expect(isHaltedDigest(halt, RM, OTHER)).toBe(true);
    expect(isHaltedDigest(halt, 'tracebloc/pods-monitor', BAD)).toBe(false);
    expect(isHaltedDigest(parsed(document({ repositories: { [JM]: { digests: '*', pin: GOOD } } })), JM, GOOD)).toBe(
      false,
    );
  });

  it('names the pin of a repository, and none for one without', () => {
    expect(pinOf(halt, JM)).toBe(GOOD);
    expect(pinOf(halt, RM)).toBeUndefined();
  });
});

describe('renderFleetHalt', () => {
  it('writes a document parseFleetHalt reads back as it was drafted, keys in a stable order', () => {
    const draft = {
      reason: 'stop build 2',
      expires: '2026-12-03T12:00:00Z',
      repositories: { [JM]: { digests: [BAD], pin: GOOD }, [RM]: { digests: '*' as const } },
    };
    const text = renderFleetHalt(draft);
    expect(text.endsWith('}\n')).toBe(true);
    expect(Object.keys(JSON.parse(text))).toEqual(['version', 'reason', 'expires', 'repositories']);
    expect(parsed(text)).toMatchObject({ reason: 'stop build 2', repositories: { [RM]: { digests: '*' } } });
    // A repository without a pin has no pin key at all.
    expect(Object.keys(JSON.parse(text).repositories[RM])).toEqual(['digests']);
    expect(JSON.parse(text).repositories[JM]).toEqual({ digests: [BAD], pin: GOOD });
  });
});
