import { bundleToJSON } from '@sigstore/bundle';
import { attachArtifactToImage } from '@sigstore/oci';
import { DSSEBundleBuilder } from '@sigstore/sign';
import { type SigningKey, signBytes } from './signature-sig-tag.js';

// The bundle signing side of the signature tests, by sigstore's own
// libraries: @sigstore/sign builds a DSSE bundle over cosign's in-toto
// statement (predicate https://sigstore.dev/cosign/sign/v1, as cosign's new
// bundle format signs) with a key of ours and no witness (nothing reaches
// Rekor or Fulcio); @sigstore/oci attaches it to the image as an OCI 1.1
// referrer — and, on a registry without the referrers API, writes the
// `sha256-<hex>` fallback index itself.

export const BUNDLE_V03 = 'application/vnd.dev.sigstore.bundle.v0.3+json';

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
