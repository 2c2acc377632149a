import * as E from 'fp-ts/lib/Either.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSignatureVerifier } from '../../src/signatures/create-signature-verifier.js';
import type { SignatureCheck } from '../../src/signatures/signature-verdict.js';
import type { KeylessTrust } from '../../src/signatures/verify-bundle.js';
import { localOnlyHttp } from '../support/registry-local-fetch.js';
import {
  REGISTRY_SETUP_TIMEOUT_MS,
  type RegistryProcess,
  registryBinaryMissing,
  startRegistry,
} from '../support/registry-process.js';
import { pushImage } from '../support/registry-push.js';
import { startTokenServer, TOKEN_ISSUER, TOKEN_SERVICE, type TokenServer } from '../support/registry-token-server.js';
import { attachBundle, cosignStatement } from '../support/signature-bundles.js';
import { type KeylessSigstore, startKeylessSigstore } from '../support/signature-keyless.js';

// Keyless bundles (SIGNATURE_IDENTITY, SIGNATURE_ISSUER, SIGSTORE_TRUSTED_ROOT):
// signed by @sigstore/sign against @sigstore/mock's Fulcio and Rekor on
// 127.0.0.1, attached by @sigstore/oci to a real docker-registry, verified
// offline from the bundle's own log entry and certificate — the mock
// services see no request while the adapter verifies.

if (registryBinaryMissing !== undefined) console.warn(`SKIPPED ${import.meta.url}: ${registryBinaryMissing}`);

const WORKFLOW = 'https://github.com/tracebloc/client/.github/workflows/release.yml@refs/heads/main';
const ISSUER = 'https://token.actions.githubusercontent.com';

describe.skipIf(registryBinaryMissing !== undefined)('keyless sigstore bundles, verified offline', () => {
  let tokens: TokenServer;
  let registry: RegistryProcess;
  let sigstore: KeylessSigstore;
  let digest: string;
  beforeAll(async () => {
    // Token auth: @sigstore/oci signs in through the registry's challenge.
    tokens = await startTokenServer();
    registry = await startRegistry({
      realm: tokens.realm,
      service: TOKEN_SERVICE,
      issuer: TOKEN_ISSUER,
      certificatePem: tokens.certificatePem,
    });
    sigstore = await startKeylessSigstore();
    const token = tokens.mint(['repository:keyless/app:pull,push']);
    digest = (await pushImage(registry.url, 'keyless/app', 'prod', { token })).digest;
    await attachBundle(
      registry.url,
      'keyless/app',
      digest,
      await sigstore.sign(cosignStatement(digest), WORKFLOW, ISSUER),
    );
  }, REGISTRY_SETUP_TIMEOUT_MS);
  afterAll(async () => {
    await sigstore?.close();
    await registry?.stop();
    await tokens?.close();
  });

  const check = (keyless: KeylessTrust, target = digest): Promise<SignatureCheck> =>
    createSignatureVerifier({
      registry: { baseUrl: registry.url, timeoutMs: 2_000, fetch: localOnlyHttp },
      keys: [],
      keyless,
    }).verify({ host: 'docker.io', repo: 'keyless/app', digest: target });
  const trust = (identity: KeylessTrust['identity'], issuer = ISSUER): KeylessTrust => ({
    trustedRoot: sigstore.trustedRoot(),
    identity,
    issuer,
  });
  const why = (result: SignatureCheck): string => {
    if (E.isLeft(result) || result.right._tag !== 'NotVerified')
      throw new Error(`expected NotVerified, got ${JSON.stringify(result)}`);
    return result.right.why;
  };

  it('the exact identity and issuer verify it, without a request to Fulcio or Rekor', async () => {
    const before = sigstore.server.seen.length;
    expect(await check(trust({ exact: WORKFLOW }))).toEqual(
      E.right({ _tag: 'Verified', by: `${WORKFLOW} (issuer ${ISSUER})`, format: 'sigstore-bundle' }),
    );
    expect(sigstore.server.seen.length).toBe(before);
  });

  it('a regular expression over the identity verifies it', async () => {
    const result = await check(
      trust({ pattern: /^https:\/\/github\.com\/tracebloc\/client\/\.github\/workflows\/.+@refs\/heads\/main$/ }),
    );
    expect(E.isRight(result) && result.right._tag).toBe('Verified');
  });

  it('another identity: NotVerified, naming who did sign', async () => {
    expect(
      why(await check(trust({ exact: 'https://github.com/someone/else/.github/workflows/x.yml@refs/heads/main' }))),
    ).toContain(`it is signed by "${WORKFLOW}", not the configured SIGNATURE_IDENTITY`);
  });

  it('another issuer: NotVerified', async () => {
    expect(why(await check(trust({ exact: WORKFLOW }, 'https://accounts.google.com')))).toMatch(
      /it does not verify against the trusted root: .*issuer/i,
    );
  });

  it('a trusted root of other services (another CA and log): NotVerified', async () => {
    const other = await startKeylessSigstore();
    try {
      const result = await check({ trustedRoot: other.trustedRoot(), identity: { exact: WORKFLOW }, issuer: ISSUER });
      expect(why(result)).toContain('it does not verify against the trusted root');
    } finally {
      await other.close();
    }
  });

  it('without keyless trust configured, a keyless bundle does not count', async () => {
    const result = await createSignatureVerifier({
      registry: { baseUrl: registry.url, timeoutMs: 2_000, fetch: localOnlyHttp },
      keys: [],
    }).verify({ host: 'docker.io', repo: 'keyless/app', digest });
    expect(why(result)).toContain(
      'it is signed keyless (a certificate), and no SIGNATURE_IDENTITY with a trusted root is configured',
    );
  });
});
