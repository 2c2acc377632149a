import * as O from 'fp-ts/lib/Option.js';
import { describe, expect, it } from 'vitest';
import { MANIFEST_ACCEPT } from '../../src/registry/index.js';
import { parseQuota, rateLimitBudget } from '../../src/registry/rate-limit.js';
import { bearerChallenge, parseChallenges } from '../../src/registry/www-authenticate.js';

// The header grammars, case by case: a challenge we misparse sends the token
// request to the wrong place; a budget we misparse hides the coming 429.

describe('WWW-Authenticate', () => {
  it("parses Docker Hub's challenge", () => {
    const challenge = bearerChallenge(
      'Bearer realm="https://auth.docker.io/token",service="registry.docker.io",scope="repository:tracebloc/jobs-manager:pull"',
    );
    expect(O.map((c: { realm: URL }) => c.realm.href)(challenge)).toEqual(O.some('https://auth.docker.io/token'));
    expect(challenge).toMatchObject(
      O.some({
        service: O.some('registry.docker.io'),
        scope: O.some('repository:tracebloc/jobs-manager:pull'),
        error: O.none,
      }),
    );
  });

  it('keeps commas, = and escaped quotes inside quoted values; scheme and names are case-insensitive', () => {
    expect(
      parseChallenges(
        'BEARER Realm="https://a/t?x=1,y=2", Service = "s\\"q" ,scope=repository:r:pull,error="insufficient_scope"',
      ),
    ).toEqual([
      {
        scheme: 'bearer',
        params: {
          realm: 'https://a/t?x=1,y=2',
          service: 's"q',
          scope: 'repository:r:pull',
          error: 'insufficient_scope',
        },
      },
    ]);
  });

  it('finds the Bearer challenge among several in one header (fetch joins repeated headers)', () => {
    const header = 'Basic realm="basic, realm", Bearer realm="https://auth/token",service="svc"';
    expect(parseChallenges(header).map((c) => c.scheme)).toEqual(['basic', 'bearer']);
    expect(O.map((c: { realm: URL }) => c.realm.href)(bearerChallenge(header))).toEqual(O.some('https://auth/token'));
  });

  it('has no Bearer challenge without a usable http(s) realm', () => {
    expect(bearerChallenge(null)).toEqual(O.none);
    expect(bearerChallenge('Basic realm="x"')).toEqual(O.none);
    expect(bearerChallenge('Bearer service="svc"')).toEqual(O.none);
    expect(bearerChallenge('Bearer realm="file:///etc/passwd"')).toEqual(O.none);
    expect(bearerChallenge('Bearer realm="not a url"')).toEqual(O.none);
  });

  it('survives a token68 and an unterminated quote', () => {
    expect(parseChallenges('Basic dXNlcjpwYXNz==, Bearer realm="https://a/t').map((c) => c.scheme)).toEqual([
      'basic',
      'bearer',
    ]);
  });
});

describe('ratelimit headers', () => {
  it('reads the count and the window', () => {
    expect(parseQuota('100;w=21600')).toEqual(O.some({ count: 100, windowSeconds: O.some(21600) }));
    expect(parseQuota(' 76 ')).toEqual(O.some({ count: 76, windowSeconds: O.none }));
    expect(parseQuota('0;w=21600;comment="x"')).toEqual(O.some({ count: 0, windowSeconds: O.some(21600) }));
  });

  it('ignores what is not a count', () => {
    for (const value of [null, '', 'many', '-1', '1.5', '99999999999999999999'])
      expect(parseQuota(value)).toEqual(O.none);
  });

  it('needs ratelimit-remaining; the limit is optional', () => {
    expect(rateLimitBudget(new Headers({ 'ratelimit-limit': '100;w=21600' }), 'r')).toEqual(O.none);
    expect(rateLimitBudget(new Headers({ 'ratelimit-remaining': '3' }), 'r')).toEqual(
      O.some({ repo: 'r', remaining: 3, limit: O.none, windowSeconds: O.none }),
    );
  });
});

describe('Accept', () => {
  it('lists the four manifest media types in one header value', () => {
    expect(MANIFEST_ACCEPT.split(', ')).toEqual([
      'application/vnd.oci.image.index.v1+json',
      'application/vnd.oci.image.manifest.v1+json',
      'application/vnd.docker.distribution.manifest.list.v2+json',
      'application/vnd.docker.distribution.manifest.v2+json',
    ]);
  });
});
