import type { RegistryError } from '@image-refresh/core';
import * as E from 'fp-ts/lib/Either.js';
import { digestTag } from './cosign-sig-tag.js';
import { type Attempt, firstVerified } from './first-verified.js';
import { type Descriptor, descriptorsOf, OCI_INDEX, OCI_MANIFEST } from './oci-documents.js';
import { readByDigest, readTag } from './read-content.js';
import type { RepoSession } from './repo-session.js';
import type { SignatureLimits } from './signature-limits.js';
import { notVerified, type SignatureCheck, type SignatureTarget } from './signature-verdict.js';
import { type BundleTrust, verifyBundle } from './verify-bundle.js';

// Sigstore bundles attached as OCI 1.1 referrers (sigstore/cosign specs/BUNDLE_SPEC
// "Retrieval"): GET /v2/<repo>/referrers/<digest>; a 404 there means the
// registry has no referrers API (Debian's docker-registry 2.8 answers so) and
// the index is read from the fallback tag `sha256-<hex>` instead — a HEAD
// first, so an unsigned image costs no pull. Then per bundle: its manifest
// GET by digest (a pull on Docker Hub) and its blob GET.

export const BUNDLE_MEDIA_TYPES: readonly string[] = [
  'application/vnd.dev.sigstore.bundle.v0.3+json',
  'application/vnd.dev.sigstore.bundle+json;version=0.3',
];

type IndexFound = E.Either<
  RegistryError,
  { readonly index: string; readonly where: string } | { readonly why: string }
>;

const readIndex = async (
  session: RepoSession,
  target: SignatureTarget,
  limits: SignatureLimits,
): Promise<IndexFound> => {
  const referrers = `${session.path('referrers', target.digest)}?artifactType=${encodeURIComponent(BUNDLE_MEDIA_TYPES[0] ?? '')}`;
  const listed = await session.get(referrers, OCI_INDEX, limits.maxManifestBytes);
  if (E.isLeft(listed)) return listed;
  if (listed.right._tag === 'Found') return E.right({ index: listed.right.body, where: 'the referrers API' });
  if (listed.right._tag === 'TooLarge')
    return E.right({ why: `its referrers index is larger than ${listed.right.limit} bytes: not read` });

  const tag = digestTag(target.digest);
  const fallback = await readTag(session, tag, OCI_INDEX, limits.maxManifestBytes, `the referrers tag ${tag}`);
  if (E.isLeft(fallback)) return fallback;
  if ('absent' in fallback.right) return E.right({ why: `no sigstore bundle (no referrers API, no ${tag} tag)` });
  if ('why' in fallback.right) return E.right(fallback.right);
  return E.right({ index: fallback.right.body, where: `the ${tag} tag` });
};

const checkOne = async (
  session: RepoSession,
  target: SignatureTarget,
  referrer: Descriptor,
  trust: BundleTrust,
  limits: SignatureLimits,
): Promise<Attempt> => {
  const manifest = await readByDigest(
    session,
    'manifests',
    referrer.digest,
    OCI_MANIFEST,
    limits.maxManifestBytes,
    'its manifest',
  );
  if (E.isLeft(manifest)) return manifest;
  if ('why' in manifest.right) return E.right(manifest.right);
  const layers = descriptorsOf(manifest.right.body, 'layers');
  if (E.isLeft(layers)) return E.right({ why: `its manifest ${layers.left}` });
  const layer = layers.right.find((l) => BUNDLE_MEDIA_TYPES.includes(l.mediaType));
  if (layer === undefined) return E.right({ why: 'its manifest has no bundle layer' });
  const blob = await readByDigest(session, 'blobs', layer.digest, '*/*', limits.maxBlobBytes, 'its bundle blob');
  if (E.isLeft(blob)) return blob;
  if ('why' in blob.right) return E.right(blob.right);
  const judged = await verifyBundle(blob.right.body, target.digest, trust);
  return E.right(E.isRight(judged) ? { by: judged.right } : { why: judged.left });
};

export const checkSigstoreBundles = async (
  session: RepoSession,
  target: SignatureTarget,
  trust: BundleTrust,
  limits: SignatureLimits,
): Promise<SignatureCheck> => {
  const index = await readIndex(session, target, limits);
  if (E.isLeft(index)) return index;
  if ('why' in index.right) return E.right(notVerified(index.right.why));
  const { where } = index.right;
  const listed = descriptorsOf(index.right.index, 'manifests');
  if (E.isLeft(listed)) return E.right(notVerified(`the referrers index from ${where} ${listed.left}`));
  const bundles = listed.right
    .filter((d) => d.artifactType !== undefined && BUNDLE_MEDIA_TYPES.includes(d.artifactType))
    .slice(0, limits.maxBundles);
  if (bundles.length === 0) return E.right(notVerified(`no sigstore bundle among the referrers in ${where}`));

  return firstVerified(
    bundles,
    (referrer) => checkOne(session, target, referrer, trust, limits),
    (referrer) => `bundle ${referrer.digest.slice(0, 19)}…`,
    'sigstore-bundle',
    where,
  );
};
