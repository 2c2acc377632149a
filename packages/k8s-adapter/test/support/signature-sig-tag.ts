import { generateKeyPairSync, type KeyObject, sign } from 'node:crypto';
import { OCI_MANIFEST, type Pushed, pushBlob, pushManifest } from './registry-push.js';

// The `.sig` signing side of the signature tests, not the adapter's code:
// @sigstore/sign has no simple-signing layout, so the manifest is built here
// per sigstore/cosign specs/SIGNATURE_SPEC with node:crypto (ECDSA and RSA over
// SHA-256, Ed25519 over the bytes) and pushed over the registry API. Bundles:
// signature-bundles.ts. No @sigstore import here, so a test of the lazy load
// can use this file.

export const SIMPLE_SIGNING = 'application/vnd.dev.cosign.simplesigning.v1+json';

export type TestKeyKind = 'ecdsa-p256' | 'ecdsa-p384' | 'ecdsa-p521' | 'rsa' | 'ed25519';

export interface SigningKey {
  readonly kind: TestKeyKind;
  readonly privateKey: KeyObject;
  readonly publicPem: string;
}

const CURVES = { 'ecdsa-p256': 'prime256v1', 'ecdsa-p384': 'secp384r1', 'ecdsa-p521': 'secp521r1' } as const;

export const newSigningKey = (kind: TestKeyKind = 'ecdsa-p256'): SigningKey => {
  const pair =
    kind === 'rsa'
      ? generateKeyPairSync('rsa', { modulusLength: 2048 })
      : kind === 'ed25519'
        ? generateKeyPairSync('ed25519')
        : generateKeyPairSync('ec', { namedCurve: CURVES[kind] });
  return {
    kind,
    privateKey: pair.privateKey,
    publicPem: pair.publicKey.export({ type: 'spki', format: 'pem' }).toString(),
  };
};

/** SHA-256 by default, as cosign; `hash` to sign P-384/P-521 with their own curve's hash. */
export const signBytes = (key: SigningKey, data: Buffer, hash = 'sha256'): Buffer =>
  key.kind === 'ed25519' ? sign(null, data, key.privateKey) : sign(hash, data, key.privateKey);

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

export const sigLayer = (key: SigningKey, payload: Buffer, hash = 'sha256'): SigLayer => ({
  payload,
  signature: signBytes(key, payload, hash).toString('base64'),
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
