import type { RegistryError } from '@image-refresh/core';
import * as E from 'fp-ts/lib/Either.js';
import { digestTag } from './cosign-sig-tag.js';
import { type Descriptor, descriptorsOf, matchesDigest, OCI_INDEX, OCI_MANIFEST } from './oci-documents.js';
import type { Found, RepoSession } from './repo-session.js';
import type { SignatureLimits } from './signature-limits.js';
import { notVerified, type SignatureCheck, type SignatureTarget, verified } from './signature-verdict.js';
import { type BundleTrust, verifyBundle } from './verify-bundle.js';

// Sigstore bundles attached as OCI 1.1 referrers (cosign specs/BUNDLE_SPEC.md
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
  const head = await session.head(session.path('manifests', tag), OCI_INDEX);
  if (E.isLeft(head)) return head;
  if (head.right._tag !== 'Found') return E.right({ why: `no sigstore bundle (no referrers API, no ${tag} tag)` });
  const named = head.right.headers.get('docker-content-digest');
  const reference = named !== null && /^sha256:[0-9a-f]{64}$/.test(named) ? named : tag;
  const fallback = await session.get(session.path('manifests', reference), OCI_INDEX, limits.maxManifestBytes);
  if (E.isLeft(fallback)) return fallback;
  const found: Found = fallback.right;
  if (found._tag === 'Absent') return E.right({ why: `the referrers tag ${tag} vanished while it was read` });
  if (found._tag === 'TooLarge')
    return E.right({ why: `the referrers tag ${tag} is larger than ${found.limit} bytes: not read` });
  if (reference !== tag && !matchesDigest(found.body, reference))
    return E.right({ why: `the referrers tag ${tag} does not hash to ${reference}` });
  return E.right({ index: found.body, where: `the ${tag} tag` });
};

type BundleOutcome = E.Either<RegistryError, { readonly by: string } | { readonly why: string }>;

const checkOne = async (
  session: RepoSession,
  target: SignatureTarget,
  referrer: Descriptor,
  trust: BundleTrust,
  limits: SignatureLimits,
): Promise<BundleOutcome> => {
  const manifest = await session.get(session.path('manifests', referrer.digest), OCI_MANIFEST, limits.maxManifestBytes);
  if (E.isLeft(manifest)) return manifest;
  const found = manifest.right;
  if (found._tag === 'Absent') return E.right({ why: `its manifest ${referrer.digest} is missing` });
  if (found._tag === 'TooLarge') return E.right({ why: `its manifest is larger than ${found.limit} bytes: not read` });
  if (!matchesDigest(found.body, referrer.digest))
    return E.right({ why: `its manifest does not hash to ${referrer.digest}` });
  const layers = descriptorsOf(found.body, 'layers');
  if (E.isLeft(layers)) return E.right({ why: `its manifest ${layers.left}` });
  const layer = layers.right.find((l) => BUNDLE_MEDIA_TYPES.includes(l.mediaType));
  if (layer === undefined) return E.right({ why: 'its manifest has no bundle layer' });
  const blob = await session.get(session.path('blobs', layer.digest), '*/*', limits.maxBlobBytes);
  if (E.isLeft(blob)) return blob;
  if (blob.right._tag === 'Absent')
    return E.right({ why: `its bundle blob ${layer.digest} is missing from the registry` });
  if (blob.right._tag === 'TooLarge')
    return E.right({ why: `its bundle is larger than ${blob.right.limit} bytes: not read` });
  if (!matchesDigest(blob.right.body, layer.digest))
    return E.right({ why: `its bundle does not hash to ${layer.digest}` });
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

  const whys: string[] = [];
  let failure: RegistryError | undefined;
  for (const referrer of bundles) {
    const outcome = await checkOne(session, target, referrer, trust, limits);
    if (E.isLeft(outcome)) failure ??= outcome.left;
    else if ('by' in outcome.right) return E.right(verified(outcome.right.by, 'sigstore-bundle'));
    else whys.push(`bundle ${referrer.digest.slice(0, 19)}…: ${outcome.right.why}`);
  }
  // A bundle that could not be read might have verified: no verdict (issue 15).
  if (failure !== undefined) return E.left(failure);
  return E.right(notVerified(`${where}: ${whys.join('; ')}`));
};
