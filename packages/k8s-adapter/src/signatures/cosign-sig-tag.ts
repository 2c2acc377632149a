import type { RegistryError } from '@image-refresh/core';
import * as E from 'fp-ts/lib/Either.js';
import { descriptorsOf, matchesDigest, SIGNATURE_MANIFEST_ACCEPT } from './oci-documents.js';
import { SIMPLE_SIGNING_MEDIA_TYPE, simpleSigningNames } from './payload-names-digest.js';
import type { TrustedKey } from './public-keys.js';
import type { RepoSession } from './repo-session.js';
import type { SignatureLimits } from './signature-limits.js';
import { notVerified, type SignatureCheck, type SignatureTarget, verified } from './signature-verdict.js';
import { verifyWithKey } from './verify-with-key.js';

// cosign's tag-based signatures (cosign specs/SIGNATURE_SPEC.md "Tag-based
// Discovery"): the manifest at tag `sha256-<hex>.sig` in the image's own
// repository, one simple-signing layer per signature, the base64 signature in
// the layer annotation. Requests: a HEAD of the tag (tells absence without a
// pull), then the manifest GET by the digest the HEAD named (one pull on
// Docker Hub), then one blob GET per signature layer tried.

export const SIGNATURE_ANNOTATION = 'dev.cosignproject.cosign/signature';

/** `sha256:ab…` → `sha256-ab…` (the referrers fallback tag), `.sig` appended for cosign's. */
export const digestTag = (digest: string): string => digest.replace(':', '-');

type LayerOutcome = E.Either<RegistryError, { readonly by: string } | { readonly why: string }>;

const checkLayer = async (
  session: RepoSession,
  target: SignatureTarget,
  keys: readonly TrustedKey[],
  layer: { digest: string; annotations: Readonly<Record<string, string>> },
  limits: SignatureLimits,
): Promise<LayerOutcome> => {
  const encoded = layer.annotations[SIGNATURE_ANNOTATION];
  if (encoded === undefined || encoded === '') return E.right({ why: `no ${SIGNATURE_ANNOTATION} annotation` });
  const blob = await session.get(session.path('blobs', layer.digest), '*/*', limits.maxBlobBytes);
  if (E.isLeft(blob)) return blob;
  const found = blob.right;
  if (found._tag === 'Absent') return E.right({ why: `its payload blob ${layer.digest} is missing from the registry` });
  if (found._tag === 'TooLarge') return E.right({ why: `its payload is larger than ${found.limit} bytes: not read` });
  if (!matchesDigest(found.body, layer.digest)) return E.right({ why: `its payload does not hash to ${layer.digest}` });
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
  const head = await session.head(session.path('manifests', tag), SIGNATURE_MANIFEST_ACCEPT);
  if (E.isLeft(head)) return head;
  if (head.right._tag !== 'Found') return E.right(notVerified(`no cosign signature tag ${tag}`));
  const named = head.right.headers.get('docker-content-digest');
  const reference = named !== null && /^sha256:[0-9a-f]{64}$/.test(named) ? named : tag;
  const manifest = await session.get(
    session.path('manifests', reference),
    SIGNATURE_MANIFEST_ACCEPT,
    limits.maxManifestBytes,
  );
  if (E.isLeft(manifest)) return manifest;
  const found = manifest.right;
  if (found._tag === 'Absent')
    return E.right(notVerified(`the cosign signature tag ${tag} vanished while it was read`));
  if (found._tag === 'TooLarge') {
    return E.right(notVerified(`the cosign signature manifest ${tag} is larger than ${found.limit} bytes: not read`));
  }
  if (reference !== tag && !matchesDigest(found.body, reference)) {
    return E.right(notVerified(`the cosign signature manifest ${tag} does not hash to ${reference}`));
  }
  const layers = descriptorsOf(found.body, 'layers');
  if (E.isLeft(layers)) return E.right(notVerified(`the cosign signature manifest ${tag} ${layers.left}`));
  const signatures = layers.right
    .filter((l) => l.mediaType === SIMPLE_SIGNING_MEDIA_TYPE)
    .slice(0, limits.maxSignatureLayers);
  if (signatures.length === 0)
    return E.right(notVerified(`the cosign signature manifest ${tag} has no simple-signing layer`));

  const whys: string[] = [];
  let failure: RegistryError | undefined;
  for (const [index, layer] of signatures.entries()) {
    const outcome = await checkLayer(session, target, keys, layer, limits);
    if (E.isLeft(outcome)) failure ??= outcome.left;
    else if ('by' in outcome.right) return E.right(verified(outcome.right.by, 'cosign-sig-tag'));
    else whys.push(`signature ${index + 1}: ${outcome.right.why}`);
  }
  // A signature that could not be read might have verified: no verdict (issue 15).
  if (failure !== undefined) return E.left(failure);
  return E.right(notVerified(`${tag}: ${whys.join('; ')}`));
};
