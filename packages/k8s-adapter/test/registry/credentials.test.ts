import * as E from 'fp-ts/lib/Either.js';
import * as O from 'fp-ts/lib/Option.js';
import { describe, expect, it } from 'vitest';
import { parseDockerConfig } from '../../src/registry/credentials.js';
import type { HttpFetch, HttpInit } from '../../src/registry/http-transport.js';
import { createRegistryPort } from '../../src/registry/index.js';

// REGISTRY_AUTH_FILE as the kubelet reads a .dockerconfigjson, and where its
// credential may go: to the registry's host over https when it asks for
// Basic, to the https token realm it names — never over plain http, never
// in a message.

const FILE = '/var/run/secrets/registry/.dockerconfigjson';
const b64 = (text: string) => Buffer.from(text).toString('base64');
const parsed = (auths: unknown) => parseDockerConfig(FILE, JSON.stringify({ auths }));
const right = <A>(e: E.Either<string, A>): A => {
  if (E.isLeft(e)) throw new Error(e.left);
  return e.right;
};

describe('parseDockerConfig', () => {
  it('keys with a scheme, a path or a port name their host; Docker Hub by any of its names', () => {
    const credentials = right(
      parsed({
        'https://index.docker.io/v1/': { auth: b64('hub-user:hub-pass') },
        'https://Harbor.Example:8443/v2/': { username: 'robot$edge', password: 'harbor-pass' },
        'ghcr.io': { auth: b64('gh:token:with:colons') },
      }),
    );
    expect(credentials.forHost('registry-1.docker.io')).toEqual(O.some({ username: 'hub-user', password: 'hub-pass' }));
    expect(credentials.forHost('docker.io')).toEqual(O.some({ username: 'hub-user', password: 'hub-pass' }));
    expect(credentials.forHost('harbor.example:8443')).toEqual(
      O.some({ username: 'robot$edge', password: 'harbor-pass' }),
    );
    expect(credentials.forHost('harbor.example')).toEqual(O.none);
    expect(credentials.forHost('ghcr.io')).toEqual(O.some({ username: 'gh', password: 'token:with:colons' }));
    expect(credentials.source).toBe(FILE);
  });

  it('refuses what is not a .dockerconfigjson, naming the entry and never its value', () => {
    expect(parseDockerConfig(FILE, 'hub-pass{')).toEqual(E.left(expect.stringMatching(/^is not JSON \(SyntaxError\)/)));
    expect(parseDockerConfig(FILE, JSON.stringify({ 'ghcr.io': { auth: 'x' } }))).toEqual(
      E.left(expect.stringMatching(/^has no "auths" object/)),
    );
    const broken = parsed({ 'ghcr.io': { auth: b64('no-colon-secret') }, 'quay.io': { password: 'quay-secret' } });
    expect(broken).toEqual(
      E.left(
        'entry "ghcr.io" has an "auth" that is not base64 of user:password; entry "quay.io" has neither "auth" nor "username" and "password"',
      ),
    );
  });
});

/** A registry on `https://registry.test` that wants a token from `realm`, recorded request by request. */
const challengingRegistry = (realm: string) => {
  const seen: { url: string; authorization: string | undefined }[] = [];
  const fetch: HttpFetch = async (url: URL, init: HttpInit) => {
    seen.push({ url: url.href, authorization: init.headers.Authorization });
    const reply = (status: number, headers: Record<string, string>, body = '') => ({
      status,
      headers: { get: (name: string) => headers[name.toLowerCase()] ?? null },
      text: async () => body,
    });
    if (url.pathname === '/token') return reply(200, {}, JSON.stringify({ token: 'granted-token-0123' }));
    if (init.headers.Authorization === 'Bearer granted-token-0123')
      return reply(200, { 'docker-content-digest': `sha256:${'a'.repeat(64)}` });
    return reply(401, { 'www-authenticate': `Bearer realm="${realm}",service="registry.test"` });
  };
  return { fetch, seen };
};

describe('where a credential is sent', () => {
  const credentials = right(parsed({ 'registry.test': { username: 'edge', password: 's3cret-pass' } }));
  const basic = `Basic ${b64('edge:s3cret-pass')}`;
  const request = [{ host: 'docker.io', repo: 'shop/web', tag: 'stable' }];

  it('to the https token realm the registry names, as Basic; the manifest HEAD carries only the token', async () => {
    const { fetch, seen } = challengingRegistry('https://auth.registry.test/token');
    const answers = await createRegistryPort({ baseUrl: 'https://registry.test', credentials, fetch }).resolveDigests(
      request,
    )();
    expect(E.isRight(answers[0] ?? E.left(undefined))).toBe(true);
    expect(seen.map(({ url, authorization }) => [new URL(url).host, authorization])).toEqual([
      ['registry.test', undefined],
      ['auth.registry.test', basic],
      ['registry.test', 'Bearer granted-token-0123'],
    ]);
  });

  it('never to a plain http realm: Unauthorized saying so, and no request carries it', async () => {
    const { fetch, seen } = challengingRegistry('http://auth.registry.test/token');
    const answers = await createRegistryPort({ baseUrl: 'https://registry.test', credentials, fetch }).resolveDigests(
      request,
    )();
    expect(answers[0]).toMatchObject(E.left({ _tag: 'Unauthorized', failedAt: 'token' }));
    expect(answers[0]).toMatchObject(E.left({ message: expect.stringContaining('plain http token realm') }));
    expect(seen.some((s) => s.authorization === basic)).toBe(false);
  });

  it('never to a plain http registry: its token request goes anonymous, as without the file', async () => {
    const { fetch, seen } = challengingRegistry('https://auth.registry.test/token');
    await createRegistryPort({ baseUrl: 'http://registry.test', credentials, fetch }).resolveDigests(request)();
    expect(seen.map((s) => s.authorization)).not.toContain(basic);
    expect(seen.filter((s) => s.url.includes('/token')).map((s) => s.authorization)).toEqual([undefined]);
  });
});
