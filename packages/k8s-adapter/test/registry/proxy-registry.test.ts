import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MANIFEST_ACCEPT } from '../../src/registry/media-types.js';
import { type PrivateRegistry, privateRegistryMissing, startPrivateRegistry } from '../support/private-registry.js';
import {
  type ProxyRegistry,
  startProxyRegistry,
  startTokenUpstream,
  type TokenUpstream,
} from '../support/proxy-registry.js';
import { REGISTRY_SETUP_TIMEOUT_MS } from '../support/registry-process.js';
import { pushImage } from '../support/registry-push.js';

// "Follow upstream, pull through the mirror": what a real pull-through cache
// (Debian's docker-registry, distribution 2.8.2, `proxy: remoteurl:`) does in
// front of a private registry, found by running it. A manifest HEAD by digest
// is enough for the cache to fetch the manifest and keep it (the handler
// serves HEAD with GetManifest, and the proxy store's Get stores what it
// fetched): later it answers with the upstream gone. A digest the upstream
// lacks answers 500 UNKNOWN wrapping MANIFEST_UNKNOWN, not 404 (2.8's handler
// maps only a local ErrManifestUnknownRevision to 404). And the cache cannot
// log in to a Basic (htpasswd) upstream at all: 2.8 answers Bearer only.

if (privateRegistryMissing !== undefined) console.warn(`SKIPPED ${import.meta.url}: ${privateRegistryMissing}`);

const REPO = 'shop/web';
const UNKNOWN_DIGEST = `sha256:${'0'.repeat(64)}`;

const ask = (proxy: ProxyRegistry, method: 'HEAD' | 'GET', reference: string): Promise<Response> =>
  fetch(`${proxy.url}/v2/${REPO}/manifests/${reference}`, { method, headers: { Accept: MANIFEST_ACCEPT } });

/** Where distribution records that a repository holds a manifest revision. */
const revisionLink = (proxy: ProxyRegistry, digest: string): string =>
  join(
    proxy.storage,
    'docker/registry/v2/repositories',
    REPO,
    '_manifests/revisions/sha256',
    digest.replace('sha256:', ''),
    'link',
  );

const sha256 = (body: ArrayBuffer): string => `sha256:${createHash('sha256').update(Buffer.from(body)).digest('hex')}`;

describe.skipIf(privateRegistryMissing !== undefined)('a docker-registry pull-through cache', () => {
  let registry: PrivateRegistry;
  let digest: string;

  beforeAll(async () => {
    registry = await startPrivateRegistry();
    ({ digest } = await pushImage(registry.pushUrl, REPO, 'stable'));
  }, REGISTRY_SETUP_TIMEOUT_MS);
  afterAll(async () => {
    await registry?.stop();
  });

  describe('in front of the private registry with token auth (its storage, certificate and CA)', () => {
    let upstream: TokenUpstream;
    let proxy: ProxyRegistry;

    beforeAll(async () => {
      upstream = await startTokenUpstream(registry);
      proxy = await startProxyRegistry(upstream);
    }, REGISTRY_SETUP_TIMEOUT_MS);
    afterAll(async () => {
      await proxy?.stop();
      await upstream?.stop();
    });

    it('answers a HEAD by digest with 200 and the digest, logging in with the upstream credential', async () => {
      expect(existsSync(revisionLink(proxy, digest))).toBe(false);
      const head = await ask(proxy, 'HEAD', digest);
      expect(head.status).toBe(200);
      expect(head.headers.get('docker-content-digest')).toBe(digest);
      const basic = `Basic ${Buffer.from(`${upstream.username}:${upstream.password}`).toString('base64')}`;
      expect(upstream.tokens.seen.map((r) => r.authorization)).toEqual([basic]);
    });

    it('has stored the manifest after that one HEAD: no GET needed, the upstream not asked again', async () => {
      expect((await readFile(revisionLink(proxy, digest), 'utf8')).trim()).toBe(digest);
      const tokenRequests = upstream.tokens.seen.length;
      expect((await ask(proxy, 'HEAD', digest)).status).toBe(200);
      expect(upstream.tokens.seen).toHaveLength(tokenRequests);
    });

    it('answers a digest the upstream lacks with 500 UNKNOWN wrapping MANIFEST_UNKNOWN (not 404), storing nothing', async () => {
      const head = await ask(proxy, 'HEAD', UNKNOWN_DIGEST);
      expect(head.status).toBe(500);
      const get = await ask(proxy, 'GET', UNKNOWN_DIGEST);
      expect(get.status).toBe(500);
      const body = (await get.json()) as { errors: { code: string; detail: { errors: { code: string }[] } }[] };
      expect(body.errors.map((e) => [e.code, e.detail.errors.map((inner) => inner.code)])).toEqual([
        ['UNKNOWN', ['MANIFEST_UNKNOWN']],
      ]);
      expect(existsSync(revisionLink(proxy, UNKNOWN_DIGEST))).toBe(false);
    });

    it('serves the cached manifest by digest with the upstream stopped, but no tag', async () => {
      await upstream.stop();
      const head = await ask(proxy, 'HEAD', digest);
      expect(head.status).toBe(200);
      expect(head.headers.get('docker-content-digest')).toBe(digest);
      const get = await ask(proxy, 'GET', digest);
      expect(get.status).toBe(200);
      expect(sha256(await get.arrayBuffer())).toBe(digest);
      // Tags are asked of the upstream; the cache keeps revisions, not tags.
      expect((await ask(proxy, 'HEAD', 'stable')).status).toBe(404);
    });
  });

  it('cannot pull from the htpasswd (Basic) registry itself: 500 UNKNOWN wrapping UNAUTHORIZED', async () => {
    const proxy = await startProxyRegistry({
      url: registry.url,
      caFile: registry.caFile,
      username: registry.username,
      password: registry.password,
    });
    try {
      expect((await ask(proxy, 'HEAD', digest)).status).toBe(500);
      const get = await ask(proxy, 'GET', digest);
      expect(get.status).toBe(500);
      const body = (await get.json()) as { errors: { code: string; detail: { errors: { code: string }[] } }[] };
      expect(body.errors.map((e) => [e.code, e.detail.errors.map((inner) => inner.code)])).toEqual([
        ['UNKNOWN', ['UNAUTHORIZED']],
      ]);
      expect(existsSync(revisionLink(proxy, digest))).toBe(false);
    } finally {
      await proxy.stop();
    }
  });
});
