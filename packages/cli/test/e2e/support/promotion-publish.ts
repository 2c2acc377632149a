import { FLEET_PROMOTION_MEDIA_TYPE } from '@image-refresh/core';
import {
  OCI_MANIFEST,
  type Pushed,
  pushBlob,
  pushManifest,
} from '../../../../k8s-adapter/test/support/registry-push.js';

// Publishing a fleet promotion the way docs/fleet-promotion.md ("Publishing")
// tells an operator to, over the registry API (no oras on these machines):
// what `oras push <repo>:<tag> promotion.json:<FLEET_PROMOTION_MEDIA_TYPE>
// --artifact-type <same>` writes — the document as the one layer, OCI's empty
// config, the artifact type. The manifest's digest comes back for
// `cosign sign` (signature-sig-tag.ts writes the `.sig`). The layout is the
// fleet halt's (fleet-halt-publish.ts); only the media type differs, and an
// edge reads the layer of its own media type only.

const EMPTY_CONFIG = 'application/vnd.oci.empty.v1+json';

export const publishFleetPromotion = async (
  base: string,
  repo: string,
  tag: string,
  document: string,
  token?: string,
): Promise<Pushed> => {
  const bytes = Buffer.from(document, 'utf8');
  const empty = Buffer.from('{}');
  const emptyDigest = await pushBlob(base, repo, empty, token);
  const documentDigest = await pushBlob(base, repo, bytes, token);
  return pushManifest(
    base,
    repo,
    tag,
    OCI_MANIFEST,
    {
      schemaVersion: 2,
      mediaType: OCI_MANIFEST,
      artifactType: FLEET_PROMOTION_MEDIA_TYPE,
      config: { mediaType: EMPTY_CONFIG, digest: emptyDigest, size: empty.length },
      layers: [
        {
          mediaType: FLEET_PROMOTION_MEDIA_TYPE,
          digest: documentDigest,
          size: bytes.length,
          annotations: { 'org.opencontainers.image.title': 'promotion.json' },
        },
      ],
    },
    token,
  );
};
