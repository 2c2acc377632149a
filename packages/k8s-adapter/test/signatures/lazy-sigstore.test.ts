import { createRequire } from 'node:module';
import * as E from 'fp-ts/lib/Either.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSignatureVerifier, parsePublicKeys } from '../../src/index.js';
import { localOnlyHttp } from '../support/registry-local-fetch.js';
import {
  REGISTRY_SETUP_TIMEOUT_MS,
  type RegistryProcess,
  registryBinaryMissing,
  startRegistry,
} from '../support/registry-process.js';
import { pushImage } from '../support/registry-push.js';
import { newSigningKey, pushSigTag, sigLayer, simpleSigningPayload } from '../support/signature-sig-tag.js';

// @sigstore/* is loaded only when a bundle must be verified (with
// VERIFY_SIGNATURES=off, or an image signed the `.sig` way, the tick's memory
// does not change). Its packages are CommonJS: once loaded they sit in the
// require cache, which this file — run in a worker of its own — reads.

if (registryBinaryMissing !== undefined) console.warn(`SKIPPED ${import.meta.url}: ${registryBinaryMissing}`);

const sigstoreLoaded = (): string[] =>
  Object.keys(createRequire(import.meta.url).cache).filter((file) => file.includes('@sigstore'));

describe.skipIf(registryBinaryMissing !== undefined)('the sigstore libraries load lazily', () => {
  let registry: RegistryProcess;
  beforeAll(async () => {
    registry = await startRegistry();
  }, REGISTRY_SETUP_TIMEOUT_MS);
  afterAll(async () => {
    await registry?.stop();
  });

  it('importing the adapter and verifying a .sig signature loads none of them', async () => {
    const key = newSigningKey();
    const digest = (await pushImage(registry.url, 'lazy/app', 'prod')).digest;
    await pushSigTag(registry.url, 'lazy/app', digest, [sigLayer(key, simpleSigningPayload('lazy/app', digest))]);
    const keys = parsePublicKeys('/keys/k.pub', key.publicPem);
    if (E.isLeft(keys)) throw new Error(keys.left.message);
    const verifier = createSignatureVerifier({
      registry: { baseUrl: registry.url, timeoutMs: 2_000, fetch: localOnlyHttp },
      keys: keys.right,
    });
    expect(await verifier.verify({ host: 'docker.io', repo: 'lazy/app', digest })).toEqual(
      E.right({ _tag: 'Verified', by: '/keys/k.pub', format: 'cosign-sig-tag' }),
    );
    expect(sigstoreLoaded()).toEqual([]);
  });

  it('an unsigned image (no bundle found) loads none of them either', async () => {
    const digest = (await pushImage(registry.url, 'lazy/unsigned', 'prod')).digest;
    const verifier = createSignatureVerifier({
      registry: { baseUrl: registry.url, timeoutMs: 2_000, fetch: localOnlyHttp },
      keys: [],
    });
    const result = await verifier.verify({ host: 'docker.io', repo: 'lazy/unsigned', digest });
    expect(E.isRight(result) && result.right._tag).toBe('NotVerified');
    expect(sigstoreLoaded()).toEqual([]);
  });
});
