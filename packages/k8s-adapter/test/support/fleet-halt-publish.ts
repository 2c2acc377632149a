import { FLEET_HALT_MEDIA_TYPE, FLEET_PROMOTION_MEDIA_TYPE } from '@image-refresh/core';
import { OCI_MANIFEST, type Pushed, pushBlob, pushManifest } from './registry-push.js';

// Publishing a signed fleet document — a fleet halt (docs/behaviour.md §3.4b),
// a fleet promotion (docs/fleet-promotion.md) — the way the docs' recipe does
// with standard tools, over the registry API (no oras on these machines):
// what `oras push <repo>:<tag> <file>:<media type> --artifact-type <same>`
// writes — the document as the one layer, OCI's empty config, the artifact
// type — and returns the manifest's digest, which `cosign sign` then signs
// (support/signature-sig-tag.ts for the `.sig`). `layers` overrides the
// layer list for the malformed cases. An edge reads the layer of its own
// document's media type only.

const EMPTY_CONFIG = 'application/vnd.oci.empty.v1+json';

type Layers = (documentLayer: { mediaType: string; digest: string; size: number }) => unknown[];

const publishFleetDocument = async (
  kind: { readonly mediaType: string; readonly title: string },
  base: string,
  repo: string,
  tag: string,
  document: string | Buffer,
  token?: string,
  layers?: Layers,
): Promise<Pushed> => {
  const bytes = Buffer.isBuffer(document) ? document : Buffer.from(document, 'utf8');
  const empty = Buffer.from('{}');
  const emptyDigest = await pushBlob(base, repo, empty, token);
  const documentDigest = await pushBlob(base, repo, bytes, token);
  const layer = { mediaType: kind.mediaType, digest: documentDigest, size: bytes.length };
  return pushManifest(
    base,
    repo,
    tag,
    OCI_MANIFEST,
    {
      schemaVersion: 2,
      mediaType: OCI_MANIFEST,
      artifactType: kind.mediaType,
      config: { mediaType: EMPTY_CONFIG, digest: emptyDigest, size: empty.length },
      layers: layers?.(layer) ?? [{ ...layer, annotations: { 'org.opencontainers.image.title': kind.title } }],
    },
    token,
  );
};

export const publishFleetHalt = (
  base: string,
  repo: string,
  tag: string,
  document: string | Buffer,
  token?: string,
  layers?: Layers,
): Promise<Pushed> =>
  publishFleetDocument(
    { mediaType: FLEET_HALT_MEDIA_TYPE, title: 'fleet-halt.json' },
    base,
    repo,
    tag,
    document,
    token,
    layers,
  );

export const publishFleetPromotion = (
  base: string,
  repo: string,
  tag: string,
  document: string,
  token?: string,
): Promise<Pushed> =>
  publishFleetDocument(
    { mediaType: FLEET_PROMOTION_MEDIA_TYPE, title: 'promotion.json' },
    base,
    repo,
    tag,
    document,
    token,
  );
