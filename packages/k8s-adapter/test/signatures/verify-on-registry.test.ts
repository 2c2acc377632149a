import * as E from 'fp-ts/lib/Either.js';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createSignatureVerifier } from '../../src/signatures/create-signature-verifier.js';
import { parsePublicKeys, type TrustedKey } from '../../src/signatures/public-keys.js';
import type { RequestCount } from '../../src/signatures/repo-session.js';
import type { SignatureCheck } from '../../src/signatures/signature-verdict.js';
import { forwardTo } from '../support/registry-forward.js';
import { localOnlyHttp } from '../support/registry-local-fetch.js';
import { type LocalServer, listenLocal } from '../support/registry-local-server.js';
import {
  REGISTRY_SETUP_TIMEOUT_MS,
  type RegistryProcess,
  registryBinaryMissing,
  startRegistry,
} from '../support/registry-process.js';
import { pushImage } from '../support/registry-push.js';
import { startTokenServer, TOKEN_ISSUER, TOKEN_SERVICE, type TokenServer } from '../support/registry-token-server.js';
import { attachBundle, bundleOver, cosignStatement } from '../support/signature-bundles.js';
import {
  newSigningKey,
  pushSigTag,
  type SigningKey,
  sigLayer,
  simpleSigningPayload,
  type TestKeyKind,
} from '../support/signature-sig-tag.js';

// Signatures in both of cosign's formats on a real token-auth registry
// (Debian's docker-registry 2.8.2, which answers 404 to the referrers API, so
// bundles are found through the sha256-<hex> fallback tag that @sigstore/oci
// writes), every request counted at a proxy in front of it, faults injected
// there. The signing side is @sigstore/sign + @sigstore/oci (bundles) and
// node:crypto per the spec (`.sig`), never the adapter's own code.

if (registryBinaryMissing !== undefined) console.warn(`SKIPPED ${import.meta.url}: ${registryBinaryMissing}`);

type Fault = (method: string, path: string) => { status: number; body: string } | undefined;

describe.skipIf(registryBinaryMissing !== undefined)(
  `signature checks on a token-auth docker-registry${registryBinaryMissing === undefined ? '' : ` (skipped: ${registryBinaryMissing})`}`,
  () => {
    let tokens: TokenServer;
    let registry: RegistryProcess;
    let proxy: LocalServer;
    let fault: Fault = () => undefined;
    // A registry with the referrers API: the proxy answers it with the index
    // @sigstore/oci wrote to the fallback tag (what such a registry lists).
    let referrersApi = false;
    const trusted = newSigningKey('ecdsa-p256');
    const stranger = newSigningKey('ecdsa-p256');

    beforeAll(async () => {
      tokens = await startTokenServer();
      registry = await startRegistry(
        { realm: tokens.realm, service: TOKEN_SERVICE, issuer: TOKEN_ISSUER, certificatePem: tokens.certificatePem },
        { deletable: true },
      );
      proxy = await listenLocal((incoming, outgoing) => {
        const path = new URL(incoming.url ?? '/', 'http://127.0.0.1').pathname;
        const referrers = /^\/v2\/(.+)\/referrers\/sha256:([0-9a-f]{64})$/.exec(path);
        if (referrersApi && referrers !== null) {
          const [, repo, hex] = referrers;
          fetch(`${registry.url}/v2/${repo}/manifests/sha256-${hex}`, {
            headers: {
              Accept: 'application/vnd.oci.image.index.v1+json',
              Authorization: `Bearer ${pushToken(repo ?? '')}`,
            },
          }).then(
            async (answer) => {
              outgoing.writeHead(answer.status, { 'content-type': 'application/vnd.oci.image.index.v1+json' });
              outgoing.end(await answer.text());
            },
            (error: Error) => {
              outgoing.writeHead(502);
              outgoing.end(error.message);
            },
          );
          return;
        }
        const injected = fault(incoming.method ?? '', path);
        if (injected === undefined) return forwardTo(registry.url, incoming, outgoing);
        outgoing.writeHead(injected.status, { 'content-type': 'application/json' });
        outgoing.end(injected.body);
      });
    }, REGISTRY_SETUP_TIMEOUT_MS);
    afterAll(async () => {
      await proxy?.close();
      await registry?.stop();
      await tokens?.close();
    });
    beforeEach(() => {
      fault = () => undefined;
      referrersApi = false;
      proxy.seen.length = 0;
    });

    const pushToken = (repo: string) => tokens.mint([`repository:${repo}:pull,push,delete`]);
    const keysOf = (...pems: [string, string][]): TrustedKey[] =>
      pems.flatMap(([file, pem]) => {
        const parsed = parsePublicKeys(file, pem);
        if (E.isLeft(parsed)) throw new Error(parsed.left.message);
        return [...parsed.right];
      });
    const TRUSTED = keysOf(['/keys/release.pub', trusted.publicPem]);

    const check = async (repo: string, digest: string, keys = TRUSTED) => {
      let cost: RequestCount | undefined;
      const verifier = createSignatureVerifier({
        registry: { baseUrl: proxy.url, timeoutMs: 2_000, fetch: localOnlyHttp },
        keys,
        onRequests: (_target, count) => {
          cost = count;
        },
      });
      const result: SignatureCheck = await verifier.verify({ host: 'docker.io', repo, digest });
      return { result, cost };
    };
    const image = async (repo: string) =>
      (await pushImage(registry.url, repo, 'prod', { token: pushToken(repo) })).digest;
    const signSig = async (
      repo: string,
      digest: string,
      key: SigningKey,
      payload = simpleSigningPayload(repo, digest),
    ) => pushSigTag(registry.url, repo, digest, [sigLayer(key, payload)], pushToken(repo));
    const attach = async (repo: string, digest: string, key: SigningKey, statement = cosignStatement(digest)) =>
      attachBundle(registry.url, repo, digest, await bundleOver(key, statement));
    const wire = () => proxy.seen.map((r) => `${r.method} ${r.url.replace(/[0-9a-f]{64}/g, 'H')}`);
    const why = (result: SignatureCheck): string => {
      if (E.isLeft(result) || result.right._tag !== 'NotVerified')
        throw new Error(`expected NotVerified, got ${JSON.stringify(result)}`);
      return result.right.why;
    };

    it('a .sig signature by a trusted key verifies: HEAD the tag, GET its manifest (the one pull), GET the payload', async () => {
      const digest = await image('sig/signed');
      await signSig('sig/signed', digest, trusted);
      const { result, cost } = await check('sig/signed', digest);
      expect(result).toEqual(E.right({ _tag: 'Verified', by: '/keys/release.pub', format: 'cosign-sig-tag' }));
      expect(wire()).toEqual([
        'HEAD /v2/sig/signed/manifests/sha256-H.sig',
        'HEAD /v2/sig/signed/manifests/sha256-H.sig',
        'GET /v2/sig/signed/manifests/sha256:H',
        'GET /v2/sig/signed/blobs/sha256:H',
      ]);
      expect(proxy.seen.map((r) => r.authorization !== undefined)).toEqual([false, true, true, true]);
      expect(cost).toEqual({ requests: 5, manifestGets: 1 });
    });

    it('rotation: the second of two configured keys verifies it, and is named', async () => {
      const digest = await image('sig/rotated');
      await signSig('sig/rotated', digest, trusted);
      const keys = keysOf(['/keys/old.pub', stranger.publicPem], ['/keys/new.pub', trusted.publicPem]);
      expect((await check('sig/rotated', digest, keys)).result).toEqual(
        E.right({ _tag: 'Verified', by: '/keys/new.pub', format: 'cosign-sig-tag' }),
      );
    });

    it("the spec's own capitalised Docker-manifest-digest counts, as Go's JSON decoding matches keys", async () => {
      const digest = await image('sig/capitalised');
      await signSig(
        'sig/capitalised',
        digest,
        trusted,
        simpleSigningPayload('sig/capitalised', digest, 'Docker-manifest-digest'),
      );
      expect((await check('sig/capitalised', digest)).result).toEqual(
        E.right({ _tag: 'Verified', by: '/keys/release.pub', format: 'cosign-sig-tag' }),
      );
    });

    it.each<[TestKeyKind, string]>([
      ['ecdsa-p384', 'sha256'],
      ['ecdsa-p384', 'sha384'],
      ['ecdsa-p521', 'sha256'],
      ['ecdsa-p521', 'sha512'],
      ['rsa', 'sha256'],
      ['ed25519', 'none'],
    ])('a .sig signature by a %s key (hash %s) verifies', async (kind, hash) => {
      const repo = `sig/key-${kind}-${hash}`;
      const key = newSigningKey(kind);
      const digest = await image(repo);
      await pushSigTag(
        registry.url,
        repo,
        digest,
        [sigLayer(key, simpleSigningPayload(repo, digest), hash)],
        pushToken(repo),
      );
      expect((await check(repo, digest, keysOf([`/keys/${kind}.pub`, key.publicPem]))).result).toEqual(
        E.right({ _tag: 'Verified', by: `/keys/${kind}.pub`, format: 'cosign-sig-tag' }),
      );
    });

    it.each<TestKeyKind>(['ecdsa-p256', 'ecdsa-p384', 'ecdsa-p521', 'rsa', 'ed25519'])(
      'a bundle by @sigstore/sign with a %s key, attached by @sigstore/oci, verifies through the fallback tag (referrers 404)',
      async (kind) => {
        const repo = `bundle/key-${kind}`;
        const key = newSigningKey(kind);
        const digest = await image(repo);
        await attach(repo, digest, key);
        proxy.seen.length = 0;
        const { result, cost } = await check(repo, digest, keysOf([`/keys/${kind}.pub`, key.publicPem]));
        expect(result).toEqual(E.right({ _tag: 'Verified', by: `/keys/${kind}.pub`, format: 'sigstore-bundle' }));
        expect(wire()).toEqual([
          `HEAD /v2/${repo}/manifests/sha256-H.sig`,
          `HEAD /v2/${repo}/manifests/sha256-H.sig`,
          `GET /v2/${repo}/referrers/sha256:H?artifactType=application%2Fvnd.dev.sigstore.bundle.v0.3%2Bjson`,
          `HEAD /v2/${repo}/manifests/sha256-H`,
          `GET /v2/${repo}/manifests/sha256:H`,
          `GET /v2/${repo}/manifests/sha256:H`,
          `GET /v2/${repo}/blobs/sha256:H`,
        ]);
        expect(cost).toEqual({ requests: 8, manifestGets: 2 });
      },
    );

    it('on a registry with the referrers API, a bundle costs one pull: no fallback tag is read', async () => {
      const repo = 'bundle/referrers-api';
      const digest = await image(repo);
      await attach(repo, digest, trusted);
      referrersApi = true;
      proxy.seen.length = 0;
      const { result, cost } = await check(repo, digest);
      expect(result).toEqual(E.right({ _tag: 'Verified', by: '/keys/release.pub', format: 'sigstore-bundle' }));
      expect(wire()).toEqual([
        `HEAD /v2/${repo}/manifests/sha256-H.sig`,
        `HEAD /v2/${repo}/manifests/sha256-H.sig`,
        `GET /v2/${repo}/referrers/sha256:H?artifactType=application%2Fvnd.dev.sigstore.bundle.v0.3%2Bjson`,
        `GET /v2/${repo}/manifests/sha256:H`,
        `GET /v2/${repo}/blobs/sha256:H`,
      ]);
      expect(cost).toEqual({ requests: 6, manifestGets: 1 });
    });

    it('a .sig that does not verify and a bundle that does: Verified by the bundle', async () => {
      const repo = 'bundle/after-bad-sig';
      const digest = await image(repo);
      await signSig(repo, digest, stranger);
      await attach(repo, digest, trusted);
      expect((await check(repo, digest)).result).toEqual(
        E.right({ _tag: 'Verified', by: '/keys/release.pub', format: 'sigstore-bundle' }),
      );
    });

    it("the tick's budget spent (its signal aborted): a Timeout, and no request is sent", async () => {
      const digest = await image('sig/out-of-budget');
      await signSig('sig/out-of-budget', digest, trusted);
      proxy.seen.length = 0;
      const verifier = createSignatureVerifier({
        registry: { baseUrl: proxy.url, timeoutMs: 2_000, fetch: localOnlyHttp },
        keys: TRUSTED,
      });
      const result = await verifier.verify(
        { host: 'docker.io', repo: 'sig/out-of-budget', digest },
        AbortSignal.abort(),
      );
      expect(E.isLeft(result) && result.left._tag).toBe('Timeout');
      expect(proxy.seen).toEqual([]);
    });

    describe('the tamper table: never Verified', () => {
      it('unsigned: NotVerified, and it costs no pull (HEADs and a referrers GET only)', async () => {
        const digest = await image('tamper/unsigned');
        const { result, cost } = await check('tamper/unsigned', digest);
        expect(why(result)).toMatch(
          /^no cosign signature tag sha256-[0-9a-f]{64}\.sig; no sigstore bundle \(no referrers API, no sha256-[0-9a-f]{64} tag\)$/,
        );
        expect(cost).toEqual({ requests: 5, manifestGets: 0 });
      });

      it('signed by another key (.sig and bundle): NotVerified, naming both', async () => {
        const digest = await image('tamper/stranger');
        await signSig('tamper/stranger', digest, stranger);
        await attach('tamper/stranger', digest, stranger);
        const text = why((await check('tamper/stranger', digest)).result);
        expect(text).toContain('.sig: signature 1: its signature verifies with none of the 1 configured key(s)');
        expect(text).toMatch(
          /bundle sha256:[0-9a-f]{12}…: its signature verifies with none of the 1 configured key\(s\)$/,
        );
      });

      it("a trusted key's signature of another digest (a replay): NotVerified in both formats", async () => {
        const other = await image('tamper/other-image');
        const digest = await image('tamper/replay');
        await signSig('tamper/replay', digest, trusted, simpleSigningPayload('tamper/replay', other));
        await attach('tamper/replay', digest, trusted, cosignStatement(other));
        const text = why((await check('tamper/replay', digest)).result);
        expect(text).toContain(`signed by /keys/release.pub, but it signs another digest, "${other}"`);
        expect(text).toContain(`signed by /keys/release.pub, but its in-toto subjects name other digests`);
      });

      it('flipped signature bytes: NotVerified', async () => {
        const digest = await image('tamper/flipped');
        const payload = simpleSigningPayload('tamper/flipped', digest);
        const layer = sigLayer(trusted, payload);
        const bytes = Buffer.from(layer.signature ?? '', 'base64');
        bytes[bytes.length - 1] = (bytes[bytes.length - 1] ?? 0) ^ 0xff;
        await pushSigTag(
          registry.url,
          'tamper/flipped',
          digest,
          [{ payload, signature: bytes.toString('base64') }],
          pushToken('tamper/flipped'),
        );
        expect(why((await check('tamper/flipped', digest)).result)).toContain(
          'signature 1: its signature verifies with none',
        );
      });

      it('the signature manifest is there, its payload blob is gone: NotVerified, naming the blob', async () => {
        const digest = await image('tamper/blobless');
        const pushed = await signSig('tamper/blobless', digest, trusted);
        const blob = pushed.layerDigests[0] ?? '';
        const deleted = await fetch(`${registry.url}/v2/tamper/blobless/blobs/${blob}`, {
          method: 'DELETE',
          headers: { Authorization: `Bearer ${pushToken('tamper/blobless')}` },
        });
        expect(deleted.status).toBe(202);
        expect(why((await check('tamper/blobless', digest)).result)).toContain(
          `its payload blob ${blob} is missing from the registry`,
        );
      });

      it('a registry 500 on the signature manifest GET is a registry failure (no verdict), not a rejection', async () => {
        const digest = await image('tamper/failing');
        await signSig('tamper/failing', digest, trusted);
        fault = (method, path) =>
          method === 'GET' && path.includes('/manifests/sha256:')
            ? { status: 500, body: '{"errors":[{"code":"UNKNOWN","message":"disk on fire"}]}' }
            : undefined;
        const { result } = await check('tamper/failing', digest);
        expect(E.isLeft(result) && result.left).toMatchObject({ _tag: 'Transport', status: 500 });
        expect(E.isLeft(result) && result.left.message).toMatch(
          /GET http:\/\/127\.0\.0\.1:\d+\/v2\/tamper\/failing\/manifests\/sha256:[0-9a-f]{64} answered HTTP 500: UNKNOWN: disk on fire$/,
        );
      });

      it('a registry 500 on the payload blob of the only signature: a registry failure, not "no valid signature"', async () => {
        const digest = await image('tamper/blob-500');
        await signSig('tamper/blob-500', digest, trusted);
        fault = (method, path) =>
          method === 'GET' && path.startsWith('/v2/tamper/blob-500/blobs/') ? { status: 503, body: 'busy' } : undefined;
        const { result } = await check('tamper/blob-500', digest);
        expect(E.isLeft(result) && result.left).toMatchObject({ _tag: 'Transport', status: 503 });
      });

      it('a payload blob served with other bytes than its digest says: NotVerified, not read as the payload', async () => {
        const digest = await image('tamper/swapped-blob');
        const pushed = await signSig('tamper/swapped-blob', digest, trusted);
        fault = (method, path) =>
          method === 'GET' && path.startsWith('/v2/tamper/swapped-blob/blobs/')
            ? {
                status: 200,
                body: simpleSigningPayload('tamper/swapped-blob', digest).toString().replace('null', '{}'),
              }
            : undefined;
        expect(why((await check('tamper/swapped-blob', digest)).result)).toContain(
          `signature 1: its payload blob does not hash to ${pushed.layerDigests[0]}`,
        );
      });

      it('a registry 500 on the referrers API of an image without .sig is a registry failure too', async () => {
        const digest = await image('tamper/referrers-500');
        fault = (method, path) =>
          method === 'GET' && path.includes('/referrers/') ? { status: 500, body: 'oops' } : undefined;
        const { result } = await check('tamper/referrers-500', digest);
        expect(E.isLeft(result) && result.left).toMatchObject({ _tag: 'Transport', status: 500 });
      });

      it('an oversized signature manifest is not read: NotVerified, naming the limit', async () => {
        const digest = await image('tamper/oversized');
        const payload = simpleSigningPayload('tamper/oversized', digest);
        await pushSigTag(
          registry.url,
          'tamper/oversized',
          digest,
          [{ ...sigLayer(trusted, payload), extraAnnotations: { padding: 'x'.repeat(600 * 1024) } }],
          pushToken('tamper/oversized'),
        );
        const { result } = await check('tamper/oversized', digest);
        expect(why(result)).toMatch(
          /^the cosign signature manifest sha256-[0-9a-f]{64}\.sig is larger than 524288 bytes: not read; /,
        );
      });
    });
  },
);
