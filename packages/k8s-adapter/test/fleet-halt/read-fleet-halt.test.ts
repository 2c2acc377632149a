import { parseFleetHalt, renderFleetHalt } from '@image-refresh/core';
import * as E from 'fp-ts/lib/Either.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFleetHaltReader } from '../../src/fleet-halt/read-fleet-halt.js';
import { createSignatureVerifier } from '../../src/signatures/create-signature-verifier.js';
import { parsePublicKeys } from '../../src/signatures/public-keys.js';
import {
  type ParityRegistry,
  REGISTRY_SETUP_TIMEOUT_MS,
  registryBinaryMissing,
  startParityRegistry,
} from '../parity/support/parity-registry.js';
import { publishFleetHalt } from '../support/fleet-halt-publish.js';
import { localOnlyHttp } from '../support/registry-local-fetch.js';
import { newSigningKey, pushSigTag, sigLayer, simpleSigningPayload } from '../support/signature-sig-tag.js';

// The fleet halt artifact on a real token-auth docker-registry, published as
// the README's recipe publishes it (an `oras push` of the document, a
// `cosign sign` of its manifest digest): the reader finds the one document
// layer and reads it, capped and checked against its digest; the signature
// verifier vouches for the manifest digest with the keys VERIFY_SIGNATURES
// uses. Anything else in the artifact is unusable, never a halt.

const REPO = 'tracebloc/fleet-control';
const NOW = Date.parse('2026-12-02T12:00:00Z');
const DOCUMENT = renderFleetHalt({
  reason: 'jobs-manager build 2 loses jobs on restart',
  expires: '2026-12-03T12:00:00Z',
  repositories: {
    'tracebloc/jobs-manager': { digests: [`sha256:${'a'.repeat(64)}`], pin: `sha256:${'b'.repeat(64)}` },
  },
});

if (registryBinaryMissing !== undefined) console.warn(`SKIPPED ${import.meta.url}: ${registryBinaryMissing}`);

describe.skipIf(registryBinaryMissing !== undefined)(
  `the fleet halt artifact on a token-auth docker-registry${registryBinaryMissing === undefined ? '' : ` (skipped: ${registryBinaryMissing})`}`,
  () => {
    let registry: ParityRegistry;
    const key = newSigningKey('ecdsa-p256');
    beforeAll(async () => {
      registry = await startParityRegistry();
    }, REGISTRY_SETUP_TIMEOUT_MS);
    afterAll(async () => {
      await registry?.close();
    });

    const token = () => registry.tokens.mint([`repository:${REPO}:pull,push`]);
    const direct = () => registry.direct;
    const reader = () =>
      createFleetHaltReader({ registry: { baseUrl: registry.url, timeoutMs: 2_000, fetch: localOnlyHttp } });
    const read = (digest: string) => reader().readDocument({ host: 'docker.io', repo: REPO, digest })();

    it('reads the document a published halt carries, and its signature verifies with the trusted key', async () => {
      const { digest } = await publishFleetHalt(direct(), REPO, 'stg-halt', DOCUMENT, token());
      await pushSigTag(direct(), REPO, digest, [sigLayer(key, simpleSigningPayload(REPO, digest))], token());
      const document = await read(digest);
      expect(document).toEqual(E.right({ _tag: 'Document', text: DOCUMENT }));
      const parsed = parseFleetHalt(DOCUMENT, NOW);
      expect(E.isRight(parsed) && parsed.right.reason).toBe('jobs-manager build 2 loses jobs on restart');
      const keys = parsePublicKeys('/keys/fleet.pub', key.publicPem);
      if (E.isLeft(keys)) throw new Error(keys.left.message);
      const verified = await createSignatureVerifier({
        registry: { baseUrl: registry.url, timeoutMs: 2_000, fetch: localOnlyHttp },
        keys: keys.right,
      }).verify({ host: 'docker.io', repo: REPO, digest });
      expect(verified).toEqual(E.right({ _tag: 'Verified', by: '/keys/fleet.pub', format: 'cosign-sig-tag' }));
    });

    it('a manifest with two document layers holds no halt it can read', async () => {
      const { digest } = await publishFleetHalt(direct(), REPO, 'two', DOCUMENT, token(), (layer) => [layer, layer]);
      expect(await read(digest)).toEqual(
        E.right({
          _tag: 'Unusable',
          why: 'the halt manifest holds 2 layers of application/vnd.tracebloc.image-refresh.fleet-halt.v1+json, not one',
        }),
      );
    });

    it('a document over 16 KiB is not read', async () => {
      const { digest } = await publishFleetHalt(direct(), REPO, 'big', 'x'.repeat(16 * 1_024 + 1), token());
      expect(await read(digest)).toEqual(
        E.right({ _tag: 'Unusable', why: 'the halt document is 16385 bytes, more than 16384: not read' }),
      );
    });

    it('a layer whose size lies is still capped and checked against its digest', async () => {
      const { digest } = await publishFleetHalt(direct(), REPO, 'lies', 'y'.repeat(20_000), token(), (layer) => [
        { ...layer, size: 10 },
      ]);
      const answer = await read(digest);
      expect(E.isRight(answer) && answer.right._tag).toBe('Unusable');
      expect(E.isRight(answer) && answer.right._tag === 'Unusable' && answer.right.why).toContain(
        'larger than 16384 bytes',
      );
    });

    it('a digest the registry does not hold is unusable, saying the manifest is missing', async () => {
      const answer = await read(`sha256:${'c'.repeat(64)}`);
      expect(E.isRight(answer) && answer.right._tag === 'Unusable' && answer.right.why).toContain(
        'the halt manifest sha256:cccc',
      );
    });

    it('a registry that hangs is a Left at REGISTRY_TIMEOUT: no verdict, never a halt lifted', async () => {
      const { digest } = await publishFleetHalt(direct(), REPO, 'hang', DOCUMENT, token());
      registry.proxy.arm(REPO, 'Hang');
      try {
        const began = Date.now();
        const answer = await read(digest);
        expect(E.isLeft(answer) && answer.left._tag).toBe('Timeout');
        expect(Date.now() - began).toBeLessThan(2_000 + 1_500);
      } finally {
        registry.proxy.disarm(REPO);
      }
    });
  },
);
