import * as E from 'fp-ts/lib/Either.js';
import { describe, expect, it } from 'vitest';
import type { HttpFetch } from '../../src/registry/http-transport.js';
import { registryClient } from '../../src/registry/registry-client.js';
import { openRepoSession } from '../../src/signatures/repo-session.js';

// A blob GET that the registry answers with a redirect to its storage (GHCR,
// Harbor on S3, GitLab: 307 to a signed URL) is followed once, in the same
// bound; the pull token goes along only to the registry's own origin, and a
// redirect from https to plain http is refused (storage-redirect.ts).

const BLOB = `v2/shop/web/blobs/sha256:${'b'.repeat(64)}`;

/** A token registry whose blob GET redirects to `location`; every request it and the storage saw. */
const redirecting = (location: string) => {
  const seen: { url: string; authorization: string | undefined }[] = [];
  const fetch: HttpFetch = async (url, init) => {
    seen.push({ url: url.href, authorization: init.headers.Authorization });
    const reply = (status: number, headers: Record<string, string> = {}, body = '') => ({
      status,
      headers: { get: (name: string) => headers[name.toLowerCase()] ?? null },
      text: async () => body,
    });
    if (url.host === 'auth.registry.test') return reply(200, {}, JSON.stringify({ token: 'pull-t0k3n' }));
    if (url.host === 'storage.test' || url.pathname.endsWith('/moved')) return reply(200, {}, 'the payload');
    if (init.headers.Authorization !== 'Bearer pull-t0k3n')
      return reply(401, {
        'www-authenticate': 'Bearer realm="https://auth.registry.test/token",service="registry.test"',
      });
    return reply(307, { location });
  };
  const client = registryClient({ baseUrl: 'https://registry.test', fetch, timeoutMs: 1_000 });
  return { session: openRepoSession(client, 'shop/web'), seen };
};

describe('a blob GET redirected to its storage', () => {
  it('is followed once, without the pull token, to another origin', async () => {
    const { session, seen } = redirecting('https://storage.test/blobs/abc?X-Amz-Signature=s1gned');
    const found = await session.get(BLOB, 'application/octet-stream', 1_000);
    expect(found).toEqual(E.right(expect.objectContaining({ _tag: 'Found', body: 'the payload' })));
    expect(seen.at(-1)).toEqual({
      url: 'https://storage.test/blobs/abc?X-Amz-Signature=s1gned',
      authorization: undefined,
    });
    expect(seen.filter((s) => s.authorization === 'Bearer pull-t0k3n').map((s) => new URL(s.url).host)).toEqual([
      'registry.test',
    ]);
  });

  it('keeps the token on the registry’s own origin', async () => {
    const { session, seen } = redirecting('/v2/shop/web/moved');
    await session.get(BLOB, 'application/octet-stream', 1_000);
    expect(seen.at(-1)).toEqual({ url: 'https://registry.test/v2/shop/web/moved', authorization: 'Bearer pull-t0k3n' });
  });

  it('refuses a redirect from https to plain http, naming it', async () => {
    const { session, seen } = redirecting('http://storage.test/blobs/abc');
    const found = await session.get(BLOB, 'application/octet-stream', 1_000);
    expect(found).toEqual(
      E.left(
        expect.objectContaining({ _tag: 'Transport', message: expect.stringContaining('from https to plain http') }),
      ),
    );
    expect(seen.some((s) => s.url.startsWith('http://'))).toBe(false);
  });

  it('a manifest GET answered with a redirect is not followed', async () => {
    const { session, seen } = redirecting('https://storage.test/blobs/abc');
    const found = await session.get(`v2/shop/web/manifests/sha256:${'c'.repeat(64)}`, 'application/json', 1_000);
    expect(E.isLeft(found)).toBe(true);
    expect(seen.some((s) => s.url.includes('storage.test'))).toBe(false);
  });
});
