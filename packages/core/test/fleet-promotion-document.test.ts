import * as E from 'fp-ts/lib/Either.js';
import { describe, expect, it } from 'vitest';
import {
  MAX_PROMOTION_RING as CONFIG_MAX_RING,
  parseFleetPromotionConfig,
} from '../src/config/fleet-promotion-config.js';
import {
  FLEET_PROMOTION_MEDIA_TYPE,
  type FleetPromotion,
  isPromotedFor,
  MAX_PROMOTION_BYTES,
  MAX_PROMOTION_MS,
  MAX_PROMOTION_RING,
  type PromotionDraft,
  parseFleetPromotion,
  promotedRing,
  renderFleetPromotion,
  withPromotion,
} from '../src/domain/fleet-promotion.js';

// The signed promotion document (docs/fleet-promotion.md) read, queried and
// written as values: every refusal's exact words, every boundary on both
// sides, so that a mutant of a check or a limit is seen here and not only in
// the CLI's tests.

const NOW = Date.parse('2024-06-01T00:00:00Z');
const DIGEST_A = `sha256:${'a'.repeat(64)}`;
const DIGEST_B = `sha256:${'b'.repeat(64)}`;
const DIGEST_512 = `sha512:${'c'.repeat(128)}`;
const IN_A_DAY = '2024-06-02T00:00:00Z';
const IN_A_DAY_MS = Date.parse(IN_A_DAY);

const entry = (overrides: Record<string, unknown> = {}): Record<string, unknown> => ({
  image: 'web',
  digest: DIGEST_A,
  ring: 1,
  expires: IN_A_DAY,
  evidence: 'canaries healthy for 2h',
  ...overrides,
});

const documentText = (promotions: unknown[], extra: Record<string, unknown> = {}): string =>
  JSON.stringify({ version: 1, promotions, ...extra });

const refusal = (text: string, nowMs = NOW): string => {
  const parsed = parseFleetPromotion(text, nowMs);
  if (E.isRight(parsed)) throw new Error(`expected a refusal, got ${JSON.stringify(parsed.right)}`);
  return parsed.left;
};

const parsedOf = (text: string, nowMs = NOW): FleetPromotion => {
  const parsed = parseFleetPromotion(text, nowMs);
  if (E.isLeft(parsed)) throw new Error(`expected a document, got: ${parsed.left}`);
  return parsed.right;
};

const refusalOfEntry = (overrides: Record<string, unknown>, nowMs = NOW): string =>
  refusal(documentText([entry(overrides)]), nowMs);

const acceptsEntry = (overrides: Record<string, unknown>, nowMs = NOW): FleetPromotion =>
  parsedOf(documentText([entry(overrides)]), nowMs);

const IMAGE_REFUSAL = 'promotions[0].image is not an image name (a DNS-1123 label, as the profile declares it)';
const DIGEST_REFUSAL = 'promotions[0].digest is not a well-formed digest';
const RING_REFUSAL = 'promotions[0].ring must be a whole number from 1 to 100 (ring 0 needs no promotion)';
const EXPIRES_REFUSAL = 'promotions[0].expires is not an RFC 3339 time';
const EVIDENCE_REFUSAL = 'promotions[0].evidence must be a line of at most 512 characters without control characters';

describe('constants', () => {
  it('are the documented values', () => {
    expect(FLEET_PROMOTION_MEDIA_TYPE).toBe('application/vnd.image-refresh.fleet-promotion.v1+json');
    expect(MAX_PROMOTION_MS).toBe(2_592_000_000);
    expect(MAX_PROMOTION_BYTES).toBe(16_384);
    expect(MAX_PROMOTION_RING).toBe(100);
    expect(CONFIG_MAX_RING).toBe(100);
  });
});

describe('parseFleetPromotion: the document', () => {
  it('accepts a well-formed document and reads every field', () => {
    expect(parsedOf(documentText([entry()]))).toEqual({
      promotions: [
        {
          image: 'web',
          digest: DIGEST_A,
          ring: 1,
          expires: IN_A_DAY,
          expiresAtMs: IN_A_DAY_MS,
          evidence: 'canaries healthy for 2h',
        },
      ],
    });
  });

  it('accepts an empty list of promotions', () => {
    expect(parsedOf('{"version":1,"promotions":[]}')).toEqual({ promotions: [] });
  });

  it('refuses text that is not JSON, with the parser’s reason', () => {
    let reason = '';
    try {
      JSON.parse('{version');
    } catch (error) {
      reason = (error as Error).message;
    }
    expect(reason).not.toBe('');
    expect(refusal('{version')).toBe(`not JSON (${reason})`);
    expect(refusal('')).toMatch(/^not JSON \(.+\)$/);
  });

  it.each([
    ['an array', '[]'],
    ['null', 'null'],
    ['a number', '1'],
    ['a string', '"promotions"'],
    ['a boolean', 'true'],
  ])('refuses %s at the top level', (_, text) => {
    expect(refusal(text)).toBe('not a JSON object');
  });

  it('refuses an unknown top-level field, naming it', () => {
    expect(refusal(documentText([], { extra: true }))).toBe('unknown field(s) extra');
  });

  it('names every unknown top-level field, in order', () => {
    expect(refusal(JSON.stringify({ a: 1, version: 1, b: 2, promotions: [] }))).toBe('unknown field(s) a, b');
  });

  it('checks unknown fields before the version', () => {
    expect(refusal(JSON.stringify({ version: 2, promotions: [], x: 1 }))).toBe('unknown field(s) x');
  });

  it.each([
    ['missing', { promotions: [] }, 'version undefined is not 1'],
    ['2', { version: 2, promotions: [] }, 'version 2 is not 1'],
    ['"1"', { version: '1', promotions: [] }, 'version "1" is not 1'],
    ['0', { version: 0, promotions: [] }, 'version 0 is not 1'],
    ['null', { version: null, promotions: [] }, 'version null is not 1'],
  ])('refuses version %s', (_, document, message) => {
    expect(refusal(JSON.stringify(document))).toBe(message);
  });

  it.each([
    ['missing', { version: 1 }],
    ['an object', { version: 1, promotions: {} }],
    ['a string', { version: 1, promotions: 'web' }],
    ['null', { version: 1, promotions: null }],
  ])('refuses promotions %s', (_, document) => {
    expect(refusal(JSON.stringify(document))).toBe('promotions is not a list');
  });

  it.each([
    ['null', null],
    ['an array', []],
    ['a string', 'web'],
    ['a number', 1],
  ])('refuses an entry that is %s', (_, value) => {
    expect(refusal(documentText([value]))).toBe('promotions[0] is not an object');
  });

  it('names the index of the entry that is not an object', () => {
    expect(refusal(documentText([entry(), 7]))).toBe('promotions[1] is not an object');
  });

  it('refuses an unknown entry field, naming every one', () => {
    expect(refusal(documentText([{ ...entry(), note: 'x' }]))).toBe('promotions[0] has unknown field(s) note');
    expect(refusal(documentText([{ ...entry(), a: 1, b: 2 }]))).toBe('promotions[0] has unknown field(s) a, b');
  });
});

describe('parseFleetPromotion: image', () => {
  it.each([
    ['a number', 7],
    ['missing', undefined],
    ['uppercase', 'Web'],
    ['a leading hyphen', '-web'],
    ['a trailing hyphen', 'web-'],
    ['empty', ''],
    ['a dot', 'web.app'],
    ['a slash', 'acme/web'],
    ['64 characters', 'a'.repeat(64)],
  ])('refuses an image that is %s', (_, image) => {
    expect(refusalOfEntry({ image })).toBe(IMAGE_REFUSAL);
  });

  it.each([
    ['63 characters', 'a'.repeat(63)],
    ['one character', 'w'],
    ['inner hyphens and digits', 'jobs-manager-2'],
    ['starting with a digit', '0web'],
  ])('accepts an image that is %s', (_, image) => {
    expect(acceptsEntry({ image }).promotions[0]?.image).toBe(image);
  });
});

describe('parseFleetPromotion: digest', () => {
  it.each([
    ['a number', 1],
    ['missing', undefined],
    ['short', `sha256:${'a'.repeat(63)}`],
    ['long', `sha256:${'a'.repeat(65)}`],
    ['uppercase hex', `sha256:${'A'.repeat(64)}`],
    ['an unregistered algorithm', `md5:${'a'.repeat(32)}`],
    ['without an algorithm', 'a'.repeat(64)],
    ['a sha512 of sha256 length', `sha512:${'a'.repeat(64)}`],
  ])('refuses a digest that is %s', (_, digest) => {
    expect(refusalOfEntry({ digest })).toBe(DIGEST_REFUSAL);
  });

  it('accepts a sha512 digest', () => {
    expect(acceptsEntry({ digest: DIGEST_512 }).promotions[0]?.digest).toBe(DIGEST_512);
  });
});

describe('parseFleetPromotion: ring', () => {
  it.each([
    ['0', 0],
    ['101', 101],
    ['1.5', 1.5],
    ['"1"', '1'],
    ['-1', -1],
    ['missing', undefined],
    ['null', null],
  ])('refuses ring %s', (_, ring) => {
    expect(refusalOfEntry({ ring })).toBe(RING_REFUSAL);
  });

  it.each([1, 2, 99, 100])('accepts ring %d', (ring) => {
    expect(acceptsEntry({ ring }).promotions[0]?.ring).toBe(ring);
  });

  it('accepts a whole number written with a fraction (1.0 is 1 in JSON)', () => {
    expect(
      parsedOf(
        `{"version":1,"promotions":[{"image":"web","digest":"${DIGEST_A}","ring":1.0,"expires":"${IN_A_DAY}","evidence":""}]}`,
      ).promotions[0]?.ring,
    ).toBe(1);
  });
});

describe('parseFleetPromotion: expires', () => {
  it.each([
    ['a number', IN_A_DAY_MS],
    ['missing', undefined],
    ['a date without a time', '2024-06-02'],
    ['without a zone', '2024-06-02T00:00:00'],
    ['with a space for T', '2024-06-02 00:00:00Z'],
    ['in words', 'tomorrow'],
    ['with a trailing space', `${IN_A_DAY} `],
    ['a month 13 (the pattern passes, Date.parse does not)', '2024-13-01T00:00:00Z'],
    ['hour 25 (the pattern passes, Date.parse does not)', '2024-06-01T25:00:00Z'],
    ['an offset of +24:00 (the pattern passes, Date.parse does not)', '2024-06-02T00:00:00+24:00'],
  ])('refuses expires that is %s', (_, expires) => {
    expect(refusalOfEntry({ expires })).toBe(EXPIRES_REFUSAL);
  });

  it('accepts fractional seconds and an offset, and reads the instant', () => {
    const [promotion] = acceptsEntry({ expires: '2024-06-02T02:00:00.250+02:00' }).promotions;
    expect(promotion?.expiresAtMs).toBe(IN_A_DAY_MS + 250);
    expect(promotion?.expires).toBe('2024-06-02T02:00:00.250+02:00');
  });

  it('accepts exactly 30 days ahead', () => {
    const expires = new Date(NOW + MAX_PROMOTION_MS).toISOString();
    expect(acceptsEntry({ expires }).promotions[0]?.expiresAtMs).toBe(NOW + MAX_PROMOTION_MS);
  });

  it('refuses 30 days and 1 ms ahead, naming the time', () => {
    const expires = new Date(NOW + MAX_PROMOTION_MS + 1).toISOString();
    expect(expires).toBe('2024-07-01T00:00:00.001Z');
    expect(refusalOfEntry({ expires })).toBe(
      'promotions[0].expires 2024-07-01T00:00:00.001Z is more than 30 days ahead',
    );
  });

  it('measures the 30 days from the reader’s clock', () => {
    const expires = '2024-07-01T00:00:00.001Z';
    expect(acceptsEntry({ expires }, NOW + 1).promotions[0]?.expiresAtMs).toBe(NOW + MAX_PROMOTION_MS + 1);
  });

  it('accepts an expiry already past (it parses, and opens nothing)', () => {
    const document = acceptsEntry({ expires: '2020-01-01T00:00:00Z', ring: 5 });
    expect(document.promotions[0]?.expiresAtMs).toBe(Date.parse('2020-01-01T00:00:00Z'));
    expect(promotedRing(document, 'web', DIGEST_A, NOW)).toBe(0);
  });
});

describe('parseFleetPromotion: evidence', () => {
  it('accepts 512 characters and the empty line', () => {
    expect(acceptsEntry({ evidence: 'e'.repeat(512) }).promotions[0]?.evidence).toBe('e'.repeat(512));
    expect(acceptsEntry({ evidence: '' }).promotions[0]?.evidence).toBe('');
  });

  it.each([
    ['513 characters', 'e'.repeat(513)],
    ['a newline', 'healthy\nrollback'],
    ['a DEL', 'healthy\u007f'],
    ['a NUL', '\u0000'],
    ['a unit separator', 'a\u001fb'],
    ['a tab', 'a\tb'],
    ['a number', 42],
    ['missing', undefined],
    ['null', null],
  ])('refuses evidence with %s', (_, evidence) => {
    expect(refusalOfEntry({ evidence })).toBe(EVIDENCE_REFUSAL);
  });

  it('accepts a space and non-ASCII text', () => {
    expect(acceptsEntry({ evidence: 'p99 < 200 ms · 0 restarts' }).promotions[0]?.evidence).toBe(
      'p99 < 200 ms · 0 restarts',
    );
  });
});

describe('parseFleetPromotion: the list', () => {
  it('refuses the same image and digest twice, naming both indexes', () => {
    const text = documentText([entry(), entry({ image: 'jobs' }), entry({ ring: 3 })]);
    expect(refusal(text)).toBe('promotions[2] names web@sha256:aaaaaaaaaaaa again (promotions[0])');
  });

  it('accepts the same image with another digest, and another image with the same digest', () => {
    const document = parsedOf(documentText([entry(), entry({ digest: DIGEST_B }), entry({ image: 'jobs' })]));
    expect(document.promotions.map((p) => [p.image, p.digest])).toEqual([
      ['web', DIGEST_A],
      ['web', DIGEST_B],
      ['jobs', DIGEST_A],
    ]);
  });

  it('reports the first bad entry', () => {
    const text = documentText([entry(), entry({ image: 'jobs', ring: 0 }), entry({ image: 'Bad' })]);
    expect(refusal(text)).toBe('promotions[1].ring must be a whole number from 1 to 100 (ring 0 needs no promotion)');
  });

  it('reports a bad entry before a later duplicate', () => {
    const text = documentText([entry(), entry({ image: 'jobs', digest: 'x' }), entry()]);
    expect(refusal(text)).toBe('promotions[1].digest is not a well-formed digest');
  });

  it('checks an entry’s fields in order: image, digest, ring, expires, evidence', () => {
    const allBad = { image: 'X', digest: 'x', ring: 0, expires: 'x', evidence: 1 };
    expect(refusalOfEntry(allBad)).toBe(IMAGE_REFUSAL);
    expect(refusalOfEntry({ ...allBad, image: 'web' })).toBe(DIGEST_REFUSAL);
    expect(refusalOfEntry({ ...allBad, image: 'web', digest: DIGEST_A })).toBe(RING_REFUSAL);
    expect(refusalOfEntry({ ...allBad, image: 'web', digest: DIGEST_A, ring: 1 })).toBe(EXPIRES_REFUSAL);
    expect(refusalOfEntry({ ...allBad, image: 'web', digest: DIGEST_A, ring: 1, expires: IN_A_DAY })).toBe(
      EVIDENCE_REFUSAL,
    );
  });

  it('keeps the document’s order', () => {
    const document = parsedOf(documentText([entry({ image: 'z' }), entry({ image: 'a' }), entry({ image: 'm' })]));
    expect(document.promotions.map((p) => p.image)).toEqual(['z', 'a', 'm']);
  });
});

describe('promotedRing', () => {
  // Parsed inside each test, not while the file loads: a parser that throws
  // then fails these tests instead of leaving the file without any.
  const document = (): FleetPromotion =>
    parsedOf(
      documentText([
        entry({ ring: 2, expires: IN_A_DAY }),
        entry({ image: 'jobs', ring: 9 }),
        entry({ digest: DIGEST_B, ring: 7 }),
      ]),
    );

  it('is the ring of the entry for that image and digest', () => {
    expect(promotedRing(document(), 'web', DIGEST_A, NOW)).toBe(2);
    expect(promotedRing(document(), 'web', DIGEST_B, NOW)).toBe(7);
    expect(promotedRing(document(), 'jobs', DIGEST_A, NOW)).toBe(9);
  });

  it('is 0 when no entry names the image and digest', () => {
    expect(promotedRing(document(), 'jobs', DIGEST_B, NOW)).toBe(0);
    expect(promotedRing(document(), 'other', DIGEST_A, NOW)).toBe(0);
    expect(promotedRing({ promotions: [] }, 'web', DIGEST_A, NOW)).toBe(0);
  });

  it('counts an entry until, not at, its expiry', () => {
    expect(promotedRing(document(), 'web', DIGEST_A, IN_A_DAY_MS - 1)).toBe(2);
    expect(promotedRing(document(), 'web', DIGEST_A, IN_A_DAY_MS)).toBe(0);
    expect(promotedRing(document(), 'web', DIGEST_A, IN_A_DAY_MS + 1)).toBe(0);
  });

  it('is the highest unexpired ring among the entries that name it', () => {
    // Duplicates do not parse; the query is on values, so build them directly.
    const [a] = document().promotions;
    if (a === undefined) throw new Error('no entry');
    const many: FleetPromotion = {
      promotions: [
        { ...a, ring: 3, expiresAtMs: NOW + 10 },
        { ...a, ring: 50, expiresAtMs: NOW },
        { ...a, ring: 8, expiresAtMs: NOW + 10 },
        { ...a, ring: 5, expiresAtMs: NOW + 10 },
        { ...a, image: 'jobs', ring: 90, expiresAtMs: NOW + 10 },
        { ...a, digest: DIGEST_B as typeof a.digest, ring: 80, expiresAtMs: NOW + 10 },
      ],
    };
    expect(promotedRing(many, 'web', DIGEST_A, NOW)).toBe(8);
    expect(promotedRing(many, 'web', DIGEST_A, NOW - 1)).toBe(50);
    expect(promotedRing(many, 'web', DIGEST_A, NOW + 10)).toBe(0);
  });
});

describe('isPromotedFor', () => {
  const document = (): FleetPromotion => parsedOf(documentText([entry({ ring: 3 })]));

  it('lets ring 0 act always, even on an empty document or an expired entry', () => {
    expect(isPromotedFor({ promotions: [] }, 'web', DIGEST_A, 0, NOW)).toBe(true);
    expect(isPromotedFor(document(), 'web', DIGEST_A, 0, IN_A_DAY_MS + 1)).toBe(true);
    expect(isPromotedFor(document(), 'jobs', DIGEST_B, 0, NOW)).toBe(true);
  });

  it('lets ring R act iff the promoted ring is at least R', () => {
    expect(isPromotedFor(document(), 'web', DIGEST_A, 1, NOW)).toBe(true);
    expect(isPromotedFor(document(), 'web', DIGEST_A, 2, NOW)).toBe(true);
    expect(isPromotedFor(document(), 'web', DIGEST_A, 3, NOW)).toBe(true);
    expect(isPromotedFor(document(), 'web', DIGEST_A, 4, NOW)).toBe(false);
  });

  it('holds ring 1 back with nothing promoted', () => {
    expect(isPromotedFor({ promotions: [] }, 'web', DIGEST_A, 1, NOW)).toBe(false);
    expect(isPromotedFor(document(), 'web', DIGEST_B, 1, NOW)).toBe(false);
    expect(isPromotedFor(document(), 'jobs', DIGEST_A, 1, NOW)).toBe(false);
  });

  it('holds every ring ≥ 1 back at the expiry instant', () => {
    expect(isPromotedFor(document(), 'web', DIGEST_A, 1, IN_A_DAY_MS - 1)).toBe(true);
    expect(isPromotedFor(document(), 'web', DIGEST_A, 1, IN_A_DAY_MS)).toBe(false);
  });
});

const draft = (overrides: Partial<PromotionDraft> = {}): PromotionDraft => ({
  image: 'web',
  digest: DIGEST_A,
  ring: 1,
  expires: IN_A_DAY,
  evidence: 'ok',
  ...overrides,
});

describe('withPromotion', () => {
  it('appends the new entry to an empty document', () => {
    const added = draft({ ring: 4 });
    expect(withPromotion([], added, NOW)).toEqual([added]);
  });

  it('drops entries expired at now (expiry ≤ now) and keeps the rest', () => {
    const atNow = draft({ image: 'a', expires: new Date(NOW).toISOString() });
    const past = draft({ image: 'b', expires: '2020-01-01T00:00:00Z' });
    const justAfter = draft({ image: 'c', expires: new Date(NOW + 1).toISOString() });
    const added = draft({ image: 'd' });
    expect(withPromotion([atNow, past, justAfter], added, NOW)).toEqual([justAfter, added]);
  });

  it('replaces an entry for the same image and digest, appending the new one last', () => {
    const first = draft({ image: 'jobs' });
    const same = draft({ ring: 1 });
    const otherDigest = draft({ digest: DIGEST_B });
    const otherImage = draft({ image: 'api' });
    const added = draft({ ring: 5, evidence: 'again' });
    expect(withPromotion([first, same, otherDigest, otherImage], added, NOW)).toEqual([
      first,
      otherDigest,
      otherImage,
      added,
    ]);
  });

  it('does not modify the previous list', () => {
    const previous = [draft()];
    withPromotion(previous, draft({ ring: 2 }), NOW);
    expect(previous).toEqual([draft()]);
  });
});

describe('renderFleetPromotion', () => {
  it('writes two-space JSON, version first, keys in order, one trailing newline', () => {
    const text = renderFleetPromotion([{ evidence: 'ok', expires: IN_A_DAY, ring: 2, digest: DIGEST_A, image: 'web' }]);
    expect(text).toBe(
      [
        '{',
        '  "version": 1,',
        '  "promotions": [',
        '    {',
        '      "image": "web",',
        `      "digest": "${DIGEST_A}",`,
        '      "ring": 2,',
        `      "expires": "${IN_A_DAY}",`,
        '      "evidence": "ok"',
        '    }',
        '  ]',
        '}',
        '',
      ].join('\n'),
    );
  });

  it('writes an empty list', () => {
    expect(renderFleetPromotion([])).toBe('{\n  "version": 1,\n  "promotions": []\n}\n');
  });

  it('drops fields a draft carries beyond the five', () => {
    const extra = { ...draft(), note: 'x' } as PromotionDraft;
    expect(renderFleetPromotion([extra])).toBe(renderFleetPromotion([draft()]));
  });

  it('round-trips through parseFleetPromotion', () => {
    const drafts = [
      draft({ image: 'web', ring: 3, evidence: 'p99 fine · 0 restarts' }),
      draft({ image: 'jobs-manager', digest: DIGEST_512, ring: 100, expires: '2024-06-30T12:00:00.5+01:00' }),
    ];
    const parsed = parsedOf(renderFleetPromotion(drafts));
    expect(
      parsed.promotions.map(({ image, digest, ring, expires, evidence }) => ({
        image,
        digest,
        ring,
        expires,
        evidence,
      })),
    ).toEqual(drafts);
    expect(parsed.promotions.map((p) => p.expiresAtMs)).toEqual(drafts.map((d) => Date.parse(d.expires)));
  });
});

describe('parseFleetPromotionConfig', () => {
  const REF = 'docker.io/acme/fleet-control:stg-promotion';

  it.each([
    ['unset', {}],
    ['empty', { FLEET_PROMOTION_REF: '' }],
    ['blank', { FLEET_PROMOTION_REF: '   ' }],
    ['unset, with a high ring', { ROLLOUT_RING: '101' }],
  ])('gives no config and no problems when FLEET_PROMOTION_REF is %s', (_, env) => {
    expect(parseFleetPromotionConfig(env)).toEqual({ config: undefined, problems: [] });
  });

  it('parses a reference on Docker Hub', () => {
    expect(parseFleetPromotionConfig({ FLEET_PROMOTION_REF: REF })).toEqual({
      config: { reference: REF, host: 'docker.io', repo: 'acme/fleet-control', tag: 'stg-promotion' },
      problems: [],
    });
  });

  it('parses a reference on another host, trimmed', () => {
    expect(parseFleetPromotionConfig({ FLEET_PROMOTION_REF: ' registry.example:5000/acme/fleet:p1 ' })).toEqual({
      config: {
        reference: 'registry.example:5000/acme/fleet:p1',
        host: 'registry.example:5000',
        repo: 'acme/fleet',
        tag: 'p1',
      },
      problems: [],
    });
  });

  it('refuses a reference with a digest, in the promotion’s words', () => {
    const reference = `${REF}@${DIGEST_A}`;
    const { config, problems } = parseFleetPromotionConfig({ FLEET_PROMOTION_REF: reference });
    expect(config).toBeUndefined();
    expect(problems).toHaveLength(1);
    expect(problems[0]?.variable).toBe('FLEET_PROMOTION_REF');
    expect(problems[0]?.value).toBe(reference);
    expect(problems[0]?.problem).toContain('the tag is what a promotion is published under');
    expect(problems[0]?.problem).toContain('stg-promotion');
    expect(problems[0]?.problem).not.toContain('stg-halt');
    expect(problems[0]?.problem).not.toContain('a halt');
  });

  it('refuses a reference without a tag', () => {
    const { config, problems } = parseFleetPromotionConfig({ FLEET_PROMOTION_REF: 'docker.io/acme/fleet-control' });
    expect(config).toBeUndefined();
    expect(problems).toEqual([
      {
        variable: 'FLEET_PROMOTION_REF',
        value: 'docker.io/acme/fleet-control',
        problem: expect.stringMatching(/^has no tag; .*stg-promotion/),
      },
    ]);
  });

  it('refuses ROLLOUT_RING above 100 with the reference set', () => {
    expect(parseFleetPromotionConfig({ FLEET_PROMOTION_REF: REF, ROLLOUT_RING: '101' })).toEqual({
      config: undefined,
      problems: [
        {
          variable: 'ROLLOUT_RING',
          value: '101',
          problem: 'must be at most 100 with FLEET_PROMOTION_REF set: no promotion names a higher ring',
        },
      ],
    });
  });

  it('names the trimmed ring', () => {
    expect(parseFleetPromotionConfig({ FLEET_PROMOTION_REF: REF, ROLLOUT_RING: ' 250 ' }).problems).toEqual([
      {
        variable: 'ROLLOUT_RING',
        value: '250',
        problem: 'must be at most 100 with FLEET_PROMOTION_REF set: no promotion names a higher ring',
      },
    ]);
  });

  it.each(['0', '1', '100', '0100', '', 'abc', '-1', '101.5', '1e3'])(
    'leaves ROLLOUT_RING %j to its own check',
    (ring) => {
      const { config, problems } = parseFleetPromotionConfig({ FLEET_PROMOTION_REF: REF, ROLLOUT_RING: ring });
      expect(problems).toEqual([]);
      expect(config?.tag).toBe('stg-promotion');
    },
  );

  it('checks the ring only when the reference is valid', () => {
    expect(
      parseFleetPromotionConfig({
        FLEET_PROMOTION_REF: 'docker.io/acme/fleet-control',
        ROLLOUT_RING: '101',
      }).problems.map((p) => p.variable),
    ).toEqual(['FLEET_PROMOTION_REF']);
  });
});
