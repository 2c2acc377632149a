import * as E from 'fp-ts/lib/Either.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPlatformReader } from '../../src/platforms/read-platforms.js';
import {
  type ParityRegistry,
  REGISTRY_SETUP_TIMEOUT_MS,
  registryBinaryMissing,
  startParityRegistry,
} from '../parity/support/parity-registry.js';
import { localOnlyHttp } from '../support/registry-local-fetch.js';
import { OCI_INDEX, pushBlob, pushImage, pushManifest } from '../support/registry-push.js';

// PLATFORM_CHECK's reads (docs/behaviour.md §3.4a step 4) on a real
// token-auth docker-registry: an OCI index and a Docker manifest list name
// their platforms, a single image (OCI or Docker v2) its config blob does;
// buildx's attestation entries are no platform; anything else holds no answer
// and says why. Every read is a GET by digest, capped, one pull token per
// repository for the whole tick.

const REPO = 'tracebloc/jobs-manager';
const DOCKER_LIST = 'application/vnd.docker.distribution.manifest.list.v2+json';

if (registryBinaryMissing !== undefined) console.warn(`SKIPPED ${import.meta.url}: ${registryBinaryMissing}`);

describe.skipIf(registryBinaryMissing !== undefined)(
  `platform reads on a token-auth docker-registry${registryBinaryMissing === undefined ? '' : ` (skipped: ${registryBinaryMissing})`}`,
  () => {
    let registry: ParityRegistry;
    beforeAll(async () => {
      registry = await startParityRegistry();
    }, REGISTRY_SETUP_TIMEOUT_MS);
    afterAll(async () => {
      await registry?.close();
    });

    const token = () => registry.tokens.mint([`repository:${REPO}:pull,push`]);
    const reader = (limits?: { maxManifestBytes: number; maxConfigBytes: number }) =>
      createPlatformReader({
        registry: { baseUrl: registry.url, timeoutMs: 2_000, fetch: localOnlyHttp },
        ...(limits === undefined ? {} : { limits }),
      });
    const seenSince = (from: number) =>
      registry.proxy.seen.slice(from).map((r) => `${r.method} ${r.url.replace(/\?.*/, '')}`);

    it('an OCI index: the platforms of its entries, one manifest GET after the token', async () => {
      const amd = await pushImage(registry.direct, REPO, 'amd', { token: token() });
      const arm = await pushImage(registry.direct, REPO, 'arm', { token: token() });
      const index = await pushManifest(
        registry.direct,
        REPO,
        'multi',
        OCI_INDEX,
        {
          schemaVersion: 2,
          mediaType: OCI_INDEX,
          manifests: [
            { ...amd, platform: { os: 'linux', architecture: 'amd64' } },
            { ...arm, platform: { os: 'linux', architecture: 'arm64', variant: 'v8' } },
            // buildx's provenance: an attestation manifest, listed as unknown/unknown.
            {
              ...amd,
              platform: { os: 'unknown', architecture: 'unknown' },
              annotations: { 'vnd.docker.reference.type': 'attestation-manifest' },
            },
          ],
        },
        token(),
      );
      const from = registry.proxy.seen.length;
      expect(await reader().read({ host: 'docker.io', repo: REPO, digest: index.digest })()).toEqual(
        E.right({
          _tag: 'Platforms',
          platforms: [
            { os: 'linux', architecture: 'amd64' },
            { os: 'linux', architecture: 'arm64', variant: 'v8' },
          ],
        }),
      );
      expect(seenSince(from)).toEqual([
        `GET /v2/${REPO}/manifests/${index.digest}`,
        `GET /v2/${REPO}/manifests/${index.digest}`,
      ]);
    });

    it('a single image, OCI or Docker v2: the platform of its config blob; two reads share one token', async () => {
      const oci = await pushImage(registry.direct, REPO, 'single-oci', { token: token() });
      const docker = await pushImage(registry.direct, REPO, 'single-docker', { token: token(), flavour: 'docker' });
      const from = registry.proxy.seen.length;
      const port = reader();
      for (const digest of [oci.digest, docker.digest]) {
        expect(await port.read({ host: 'docker.io', repo: REPO, digest })()).toEqual(
          E.right({ _tag: 'Platforms', platforms: [{ os: 'linux', architecture: 'amd64' }] }),
        );
      }
      const seen = seenSince(from);
      // 401, then with the token: manifest, config; then the second image: manifest, config.
      expect(seen).toHaveLength(5);
      expect(seen.filter((r) => r.includes('/manifests/'))).toHaveLength(3);
      expect(registry.proxy.seen.slice(from).filter((r) => r.authorization === undefined)).toHaveLength(1);
    });

    it('a Docker manifest list is read like an OCI index', async () => {
      const amd = await pushImage(registry.direct, REPO, 'l-amd', { token: token(), flavour: 'docker' });
      const list = await pushManifest(
        registry.direct,
        REPO,
        'list',
        DOCKER_LIST,
        {
          schemaVersion: 2,
          mediaType: DOCKER_LIST,
          manifests: [{ ...amd, platform: { os: 'linux', architecture: 'arm', variant: 'v7' } }],
        },
        token(),
      );
      expect(await reader().read({ host: 'docker.io', repo: REPO, digest: list.digest })()).toEqual(
        E.right({ _tag: 'Platforms', platforms: [{ os: 'linux', architecture: 'arm', variant: 'v7' }] }),
      );
    });

    it('what holds no answer says why: an artifact, a missing digest, a manifest over the cap', async () => {
      const blob = await pushBlob(registry.direct, REPO, Buffer.from('{}'), token());
      const artifact = await pushManifest(
        registry.direct,
        REPO,
        'artifact',
        'application/vnd.oci.image.manifest.v1+json',
        {
          schemaVersion: 2,
          mediaType: 'application/vnd.oci.image.manifest.v1+json',
          config: { mediaType: 'application/vnd.dev.cosign.artifact.sig.v1+json', digest: blob, size: 2 },
          layers: [],
        },
        token(),
      );
      expect(await reader().read({ host: 'docker.io', repo: REPO, digest: artifact.digest })()).toEqual(
        E.right({
          _tag: 'Unreadable',
          why: 'its config is application/vnd.dev.cosign.artifact.sig.v1+json, not an image config: not an image',
        }),
      );
      const missing = `sha256:${'e'.repeat(64)}`;
      expect(await reader().read({ host: 'docker.io', repo: REPO, digest: missing })()).toEqual(
        E.right({ _tag: 'Unreadable', why: `the manifest ${missing} is missing from the registry` }),
      );
      const image = await pushImage(registry.direct, REPO, 'capped', { token: token() });
      expect(
        await reader({ maxManifestBytes: 100, maxConfigBytes: 100 }).read({
          host: 'docker.io',
          repo: REPO,
          digest: image.digest,
        })(),
      ).toEqual(E.right({ _tag: 'Unreadable', why: 'the manifest is larger than 100 bytes: not read' }));
    });

    it('a registry failure is a Left: a 429 stays a RateLimited, never a platform', async () => {
      const image = await pushImage(registry.direct, REPO, 'limited', { token: token() });
      registry.proxy.arm(REPO, 'RateLimited');
      try {
        const answer = await reader().read({ host: 'docker.io', repo: REPO, digest: image.digest })();
        expect(E.isLeft(answer) && answer.left._tag).toBe('RateLimited');
      } finally {
        registry.proxy.disarm(REPO);
      }
    });
  },
);
