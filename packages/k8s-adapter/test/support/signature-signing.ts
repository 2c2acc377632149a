import { generateKeyPairSync, type KeyObject, sign } from 'node:crypto';
import { bundleToJSON } from '@sigstore/bundle';
import { attachArtifactToImage } from '@sigstore/oci';
import { DSSEBundleBuilder } from '@sigstore/sign';
import { OCI_MANIFEST, type Pushed, pushBlob, pushManifest } from './registry-push.js';

// The signing side of the signature tests, by implementations other than the
// adapter's:
//   - bundles: @sigstore/sign builds a DSSE bundle over cosign's in-toto
//     statement (predicate https://sigstore.dev/cosign/sign/v1, as cosign's
//     new bundle format signs) with a key of ours and no witness (nothing
//     reaches Rekor or Fulcio), @sigstore/oci attaches it to the image as an
//     OCI 1.1 referrer — and, on a registry without the referrers API, writes
//     the `sha256-<hex>` fallback index itself;
//   - `.sig`: @sigstore/sign has no simple-signing layout, so the manifest is
//     built here per cosign specs/SIGNATURE_SPEC.md with node:crypto (ECDSA
//     and RSA over SHA-256, Ed25519 over the bytes), pushed over the
//     registry API.

export const SIMPLE_SIGNING = 'application/vnd.dev.cosign.simplesigning.v1+json';
export const BUNDLE_V03 = 'application/vnd.dev.sigstore.bundle.v0.3+json';

export type TestKeyKind = 'ecdsa-p256' | 'ecdsa-p384' | 'rsa' | 'ed25519';

export interface SigningKey {
  readonly kind: TestKeyKind;
  readonly privateKey: KeyObject;
  readonly publicPem: string;
}

export const newSigningKey = (kind: TestKeyKind = 'ecdsa-p256'): SigningKey => {
  const pair =
    kind === 'rsa'
      ? generateKeyPairSync('rsa', { modulusLength: 2048 })
      : kind === 'ed25519'
        ? generateKeyPairSync('ed25519')
        : generateKeyPairSync('ec', { namedCurve: kind === 'ecdsa-p384' ? 'secp384r1' : 'prime256v1' });
  return {
    kind,
    privateKey: pair.privateKey,
    publicPem: pair.publicKey.export({ type: 'spki', format: 'pem' }).toString(),
  };
};

export const signBytes = (key: SigningKey, data: Buffer): Buffer =>
  key.kind === 'ed25519' ? sign(null, data, key.privateKey) : sign('sha256', data, key.privateKey);

/** cosign's simple-signing payload, with the spec's own capitalised `Docker-manifest-digest` on request. */
export const simpleSigningPayload = (repo: string, digest: string, keyName = 'docker-manifest-digest'): Buffer =>
  Buffer.from(
    JSON.stringify({
      critical: {
        identity: { 'docker-reference': repo },
        image: { [keyName]: digest },
        type: 'cosign container image signature',
      },
      optional: null,
    }),
  );

export interface SigLayer {
  readonly payload: Buffer;
  /** Base64 in the annotation; `undefined` leaves the annotation out. */
  readonly signature: string | undefined;
  /** Skip the payload upload, for a layer whose blob is then deleted. */
  readonly extraAnnotations?: Record<string, string>;
}

export const sigLayer = (key: SigningKey, payload: Buffer): SigLayer => ({
  payload,
  signature: signBytes(key, payload).toString('base64'),
});

/** Push `sha256-<hex>.sig` with one simple-signing layer per signature (cosign's layout). */
export const pushSigTag = async (
  base: string,
  repo: string,
  signed: string,
  layers: readonly SigLayer[],
  token?: string,
): Promise<Pushed & { layerDigests: string[] }> => {
  const config = Buffer.from('{}');
  const configDigest = await pushBlob(base, repo, config, token);
  const layerDigests: string[] = [];
  const descriptors = [];
  for (const layer of layers) {
    const digest = await pushBlob(base, repo, layer.payload, token);
    layerDigests.push(digest);
    descriptors.push({
      mediaType: SIMPLE_SIGNING,
      size: layer.payload.length,
      digest,
      annotations: {
        ...(layer.signature === undefined ? {} : { 'dev.cosignproject.cosign/signature': layer.signature }),
        ...layer.extraAnnotations,
      },
    });
  }
  const pushed = await pushManifest(
    base,
    repo,
    `${signed.replace(':', '-')}.sig`,
    OCI_MANIFEST,
    {
      schemaVersion: 2,
      mediaType: OCI_MANIFEST,
      config: { mediaType: 'application/vnd.oci.image.config.v1+json', size: config.length, digest: configDigest },
      layers: descriptors,
    },
    token,
  );
  return { ...pushed, layerDigests };
};

/** cosign's `sign --new-bundle-format` statement: one subject, the image digest. */
export const cosignStatement = (digest: string): Buffer => {
  const [algorithm, hex] = digest.split(':');
  return Buffer.from(
    JSON.stringify({
      _type: 'https://in-toto.io/Statement/v1',
      subject: [{ digest: { [algorithm ?? 'sha256']: hex } }],
      predicateType: 'https://sigstore.dev/cosign/sign/v1',
      predicate: {},
    }),
  );
};

/** A key-based DSSE bundle by @sigstore/sign; no witness, so no request leaves the process. */
export const bundleOver = async (key: SigningKey, statement: Buffer): Promise<string> => {
  const builder = new DSSEBundleBuilder({
    signer: {
      sign: async (data) => ({
        signature: signBytes(key, data),
        key: { $case: 'publicKey', publicKey: key.publicPem, hint: 'image-refresh-test-key' },
      }),
    },
    witnesses: [],
  });
  const bundle = await builder.create({ data: statement, type: 'application/vnd.in-toto+json' });
  return JSON.stringify(bundleToJSON(bundle));
};

/** @sigstore/oci attaches the bundle to `repo@digest` (referrer manifest, plus the fallback tag if needed). */
export const attachBundle = async (
  registryUrl: string,
  repo: string,
  digest: string,
  bundleJson: string,
): Promise<void> => {
  const host = new URL(registryUrl).host;
  await attachArtifactToImage({
    imageName: `${host}/${repo}`,
    imageDigest: digest,
    artifact: Buffer.from(bundleJson),
    mediaType: BUNDLE_V03,
    annotations: { 'dev.sigstore.bundle.content': 'dsse-envelope' },
    credentials: { username: 'image-refresh-test', password: 'not-a-secret' },
    // No proxy: 127.0.0.1 only, whatever the environment says.
    fetchOpts: { proxy: undefined, noProxy: '127.0.0.1', retry: false, timeout: 5_000 },
  });
};
