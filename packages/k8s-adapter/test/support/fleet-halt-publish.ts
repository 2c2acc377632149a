import { FLEET_HALT_MEDIA_TYPE } from '@image-refresh/core';
import { OCI_MANIFEST, type Pushed, pushBlob, pushManifest } from './registry-push.js';

// Publishing a fleet halt the way the README's recipe does with standard tools,
// over the registry API (no oras on these machines): what
// `oras push <repo>:<tag> fleet-halt.json:<FLEET_HALT_MEDIA_TYPE> --artifact-type <same>`
// writes — the document as the one layer, OCI's empty config, the artifact
// type — and returns the manifest's digest, which `cosign sign` then signs
// (support/signature-sig-tag.ts for the `.sig`). `layers` overrides the
// layer list for the malformed cases.

const EMPTY_CONFIG = 'application/vnd.oci.empty.v1+json';

export const publishFleetHalt = async (
  base: string,
  repo: string,
  tag: string,
  document: string | Buffer,
  token?: string,
  layers?: (documentLayer: { mediaType: string; digest: string; size: number }) => unknown[],
): Promise<Pushed> => {
  const bytes = Buffer.isBuffer(document) ? document : Buffer.from(document, 'utf8');
  const empty = Buffer.from('{}');
  const emptyDigest = await pushBlob(base, repo, empty, token);
  const documentDigest = await pushBlob(base, repo, bytes, token);
  const layer = { mediaType: FLEET_HALT_MEDIA_TYPE, digest: documentDigest, size: bytes.length };
  return pushManifest(
    base,
    repo,
    tag,
    OCI_MANIFEST,
    {
      schemaVersion: 2,
      mediaType: OCI_MANIFEST,
      artifactType: FLEET_HALT_MEDIA_TYPE,
      config: { mediaType: EMPTY_CONFIG, digest: emptyDigest, size: empty.length },
      layers: layers?.(layer) ?? [{ ...layer, annotations: { 'org.opencontainers.image.title': 'fleet-halt.json' } }],
    },
    token,
  );
};
