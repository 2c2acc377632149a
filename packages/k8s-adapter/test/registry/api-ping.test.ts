import * as E from 'fp-ts/lib/Either.js';
import { describe, expect, it } from 'vitest';
import { parseDockerConfig } from '../../src/registry/credentials.js';
import type { HttpFetch } from '../../src/registry/http-transport.js';
import { createRegistryPort } from '../../src/registry/index.js';

// With a credential for the host and no realm known up front, GET /v2/ learns
// how the registry wants to be asked (api-ping.ts); whatever else it answers,
// the HEAD probe decides as it does without a credential. The budgets on real
// registries are private-registry-budget.test.ts's.

const DIGEST = `sha256:${'d'.repeat(64)}`;
const credentials = (() => {
  const auth = Buffer.from('edge:s3cret-pass').toString('base64');
  const parsed = parseDockerConfig('/config.json', JSON.stringify({ auths: { 'registry.test': { auth } } }));
  if (E.isLeft(parsed)) throw new Error(parsed.left);
  return parsed.right;
})();

/** A registry whose /v2/ answers `ping`, and whose manifests answer anyone; what it was asked, in order. */
const registryWhosePingAnswers = (ping: number) => {
  const seen: string[] = [];
  const fetch: HttpFetch = async (url, init) => {
    seen.push(`${init.method} ${url.pathname}`);
    const status = url.pathname === '/v2/' ? ping : 200;
    return {
      status,
      headers: { get: (name) => (name.toLowerCase() === 'docker-content-digest' && status === 200 ? DIGEST : null) },
      text: async () => '',
    };
  };
  return { fetch, seen };
};

const resolveOn = (fetch: HttpFetch, withCredentials: boolean) =>
  createRegistryPort({
    baseUrl: 'https://registry.test',
    fetch,
    ...(withCredentials ? { credentials } : {}),
  }).resolveDigests([
    { host: 'registry.test', repo: 'shop/web', tag: 'stable' },
    { host: 'registry.test', repo: 'shop/log', tag: 'stable' },
  ])();

describe('learning how a private registry wants to be asked', () => {
  it('a /v2/ that answers 200: the first image’s HEAD is the probe, one HEAD per image, nothing else', async () => {
    const { fetch, seen } = registryWhosePingAnswers(200);
    const answers = await resolveOn(fetch, true);
    expect(answers.every(E.isRight)).toBe(true);
    expect([...seen].sort()).toEqual([
      'GET /v2/',
      'HEAD /v2/shop/log/manifests/stable',
      'HEAD /v2/shop/web/manifests/stable',
    ]);
  });

  it('a /v2/ that answers neither 200 nor 401: the first image’s HEAD is the probe, as without a credential', async () => {
    const { fetch, seen } = registryWhosePingAnswers(404);
    const answers = await resolveOn(fetch, true);
    expect(answers.every(E.isRight)).toBe(true);
    expect(seen[0]).toBe('GET /v2/');
    expect(seen.slice(1).sort()).toEqual(['HEAD /v2/shop/log/manifests/stable', 'HEAD /v2/shop/web/manifests/stable']);
  });

  it('no credential for the host: no /v2/ request at all', async () => {
    const { fetch, seen } = registryWhosePingAnswers(200);
    await resolveOn(fetch, false);
    expect(seen).not.toContain('GET /v2/');
  });

  it('a /v2/ open to all whose manifests want a token: one token for the batch, as the probe would learn', async () => {
    const seen: string[] = [];
    const fetch: HttpFetch = async (url, init) => {
      seen.push(url.host === 'auth.registry.test' ? 'token' : `${init.method} ${url.pathname}`);
      const reply = (status: number, headers: Record<string, string> = {}, body = '') => ({
        status,
        headers: { get: (name: string) => headers[name.toLowerCase()] ?? null },
        text: async () => body,
      });
      if (url.pathname === '/v2/') return reply(200);
      if (url.host === 'auth.registry.test') return reply(200, {}, JSON.stringify({ token: 'batch-t0k3n' }));
      return init.headers.Authorization === 'Bearer batch-t0k3n'
        ? reply(200, { 'docker-content-digest': DIGEST })
        : reply(401, { 'www-authenticate': 'Bearer realm="https://auth.registry.test/token",service="registry.test"' });
    };
    const answers = await resolveOn(fetch, true);
    expect(answers.every(E.isRight)).toBe(true);
    expect(seen.filter((s) => s === 'token')).toEqual(['token']);
  });
});
