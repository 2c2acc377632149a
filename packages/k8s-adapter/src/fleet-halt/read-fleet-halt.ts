import {
  FLEET_HALT_MEDIA_TYPE,
  FLEET_PROMOTION_MEDIA_TYPE,
  type FleetHaltDocument,
  type FleetHaltPort,
  type FleetPromotionPort,
  MAX_HALT_BYTES,
  MAX_PROMOTION_BYTES,
} from '@image-refresh/core';
import * as E from 'fp-ts/lib/Either.js';
import { type RegistryPortOptions, registryClient } from '../registry/registry-client.js';
import { OCI_MANIFEST } from '../signatures/oci-documents.js';
import { readByDigest } from '../signatures/read-content.js';
import { openRepoSession } from '../signatures/repo-session.js';

// A signed fleet document on the registry — the fleet halt (docs/behaviour.md
// §3.4b), the fleet promotion (docs/fleet-promotion.md) — as
// `oras push <ref> <file>:<media type>` leaves it: an OCI image manifest
// whose one layer of the document's media type is the document.
// Two GETs on the registry port's transport and anonymous tokens, each capped
// and checked against the digest that names it (content addressing is what
// lets the signature of the manifest digest vouch for the document).

/** More than any halt manifest needs (one config, one layer, a few annotations). */
const MAX_MANIFEST_BYTES = 64 * 1_024;

interface Descriptor {
  readonly mediaType?: unknown;
  readonly digest?: unknown;
  readonly size?: unknown;
}

const layersOf = (manifest: string): readonly Descriptor[] | undefined => {
  try {
    const parsed = JSON.parse(manifest) as { layers?: unknown };
    return Array.isArray(parsed.layers) ? (parsed.layers as Descriptor[]) : undefined;
  } catch {
    // Not JSON: reported as an unusable artifact by the caller, never as a halt.
    return undefined;
  }
};

const unusable = (why: string): FleetHaltDocument => ({ _tag: 'Unusable', why });

/**
 * A document port on the registry API: the manifest a digest names
 * and its one document layer, each capped and checked against its digest.
 * Never throws; a registry failure is a `Left`, an unusable artifact `Unusable`
 * with the reason (both fail closed in the tick).
 */
const createSignedDocumentReader = (
  options: { readonly registry: RegistryPortOptions },
  kind: { readonly noun: string; readonly mediaType: string; readonly maxBytes: number },
): FleetHaltPort => {
  const { noun, mediaType, maxBytes } = kind;
  const client = registryClient(options.registry);
  return {
    readDocument: (target) => async () => {
      const session = openRepoSession(client, target.repo);
      const manifest = await readByDigest(
        session,
        'manifests',
        target.digest,
        OCI_MANIFEST,
        MAX_MANIFEST_BYTES,
        `the ${noun} manifest`,
      );
      if (E.isLeft(manifest)) return manifest;
      if ('why' in manifest.right) return E.right(unusable(manifest.right.why));
      const layers = layersOf(manifest.right.body);
      if (layers === undefined) return E.right(unusable(`the ${noun} manifest is not an OCI image manifest`));
      const documents = layers.filter((l) => l.mediaType === mediaType);
      const [layer] = documents;
      if (layer === undefined || documents.length > 1 || typeof layer.digest !== 'string') {
        return E.right(unusable(`the ${noun} manifest holds ${documents.length} layers of ${mediaType}, not one`));
      }
      if (typeof layer.size === 'number' && layer.size > maxBytes) {
        return E.right(unusable(`the ${noun} document is ${layer.size} bytes, more than ${maxBytes}: not read`));
      }
      const document = await readByDigest(session, 'blobs', layer.digest, mediaType, maxBytes, `the ${noun} document`);
      if (E.isLeft(document)) return document;
      return E.right(
        'why' in document.right ? unusable(document.right.why) : { _tag: 'Document', text: document.right.body },
      );
    },
  };
};

/** Core's `FleetHaltPort` on the registry API (FLEET_HALT_REF, docs/behaviour.md §3.4b). */
export const createFleetHaltReader = (options: { readonly registry: RegistryPortOptions }): FleetHaltPort =>
  createSignedDocumentReader(options, { noun: 'halt', mediaType: FLEET_HALT_MEDIA_TYPE, maxBytes: MAX_HALT_BYTES });

/** Core's `FleetPromotionPort` on the registry API (FLEET_PROMOTION_REF, docs/fleet-promotion.md). */
export const createFleetPromotionReader = (options: { readonly registry: RegistryPortOptions }): FleetPromotionPort =>
  createSignedDocumentReader(options, {
    noun: 'promotion',
    mediaType: FLEET_PROMOTION_MEDIA_TYPE,
    maxBytes: MAX_PROMOTION_BYTES,
  });
