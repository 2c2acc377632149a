import * as E from 'fp-ts/lib/Either.js';
import { type Attempt, firstVerified } from './first-verified.js';
import { descriptorsOf, SIGNATURE_MANIFEST_ACCEPT } from './oci-documents.js';
import { SIMPLE_SIGNING_MEDIA_TYPE, simpleSigningNames } from './payload-names-digest.js';
import type { TrustedKey } from './public-keys.js';
import { readByDigest, readTag } from './read-content.js';
import type { RepoSession } from './repo-session.js';
import type { SignatureLimits } from './signature-limits.js';
import { notVerified, type SignatureCheck, type SignatureTarget } from './signature-verdict.js';
import { verifyWithKey } from './verify-with-key.js';

// cosign's tag-based signatures (sigstore/cosign specs/SIGNATURE_SPEC "Tag-based
// Discovery"): the manifest at tag `sha256-<hex>.sig` in the image's own
// repository, one simple-signing layer per signature, the base64 signature in
// the layer annotation. Requests: a HEAD of the tag (tells absence without a
// pull), then the manifest GET by the digest the HEAD named (one pull on
// Docker Hub), then one blob GET per signature layer tried.

export const SIGNATURE_ANNOTATION = 'dev.cosignproject.cosign/signature';

/** `sha256:ab…` → `sha256-ab…` (the referrers fallback tag), `.sig` appended for cosign's. */
export const digestTag = (digest: string): string => digest.replace(':', '-');

const checkLayer = async (
  session: RepoSession,
  target: SignatureTarget,
  keys: readonly TrustedKey[],
  layer: { digest: string; annotations: Readonly<Record<string, string>> },
  limits: SignatureLimits,
): Promise<Attempt> => {
  const encoded = layer.annotations[SIGNATURE_ANNOTATION];
  if (encoded === undefined || encoded === '') return E.right({ why: `no ${SIGNATURE_ANNOTATION} annotation` });
  const blob = await readByDigest(session, 'blobs', layer.digest, '*/*', limits.maxBlobBytes, 'its payload blob');
  if (E.isLeft(blob)) return blob;
  if ('why' in blob.right) return E.right(blob.right);
  const found = blob.right;
  const payload = Buffer.from(found.body, 'utf8');
  const signature = Buffer.from(encoded, 'base64');
  const key = keys.find((k) => verifyWithKey(k, payload, signature));
  if (key === undefined) {
    return E.right({
      why:
        keys.length === 0
          ? 'no public key is configured to check it (SIGNATURE_PUBLIC_KEYS)'
          : `its signature verifies with none of the ${keys.length} configured key(s)`,
    });
  }
  const names = simpleSigningNames(found.body, target.digest);
  return E.isRight(names) ? E.right({ by: key.id }) : E.right({ why: `signed by ${key.id}, but ${names.left}` });
};

export const checkCosignSigTag = async (
  session: RepoSession,
  target: SignatureTarget,
  keys: readonly TrustedKey[],
  limits: SignatureLimits,
): Promise<SignatureCheck> => {
  const tag = `${digestTag(target.digest)}.sig`;
  const what = `the cosign signature manifest ${tag}`;
  const manifest = await readTag(session, tag, SIGNATURE_MANIFEST_ACCEPT, limits.maxManifestBytes, what);
  if (E.isLeft(manifest)) return manifest;
  const found = manifest.right;
  if ('absent' in found) return E.right(notVerified(`no cosign signature tag ${tag}`));
  if ('why' in found) return E.right(notVerified(found.why));
  const layers = descriptorsOf(found.body, 'layers');
  if (E.isLeft(layers)) return E.right(notVerified(`${what} ${layers.left}`));
  const signatures = layers.right
    .filter((l) => l.mediaType === SIMPLE_SIGNING_MEDIA_TYPE)
    .slice(0, limits.maxSignatureLayers);
  if (signatures.length === 0) return E.right(notVerified(`${what} has no simple-signing layer`));

  return firstVerified(
    signatures,
    (layer) => checkLayer(session, target, keys, layer, limits),
    (_layer, index) => `signature ${index + 1}`,
    'cosign-sig-tag',
    tag,
  );
};
