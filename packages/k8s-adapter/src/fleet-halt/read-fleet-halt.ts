import { FLEET_HALT_MEDIA_TYPE, type FleetHaltDocument, type FleetHaltPort, MAX_HALT_BYTES } from '@image-refresh/core';
import * as E from 'fp-ts/lib/Either.js';
import { type RegistryPortOptions, registryClient } from '../registry/registry-client.js';
import { OCI_MANIFEST } from '../signatures/oci-documents.js';
import { readByDigest } from '../signatures/read-content.js';
import { openRepoSession } from '../signatures/repo-session.js';

// The fleet halt artifact on the registry (docs/behaviour.md §3.4b), as
// `oras push <ref> fleet-halt.json:<FLEET_HALT_MEDIA_TYPE>` leaves it: an OCI
// image manifest whose one layer of the halt's media type is the document.
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
 * Core's `FleetHaltPort` on the registry API: the halt manifest a digest names
 * and its one document layer, each capped and checked against its digest.
 * Never throws; a registry failure is a `Left`, an unusable artifact `Unusable`
 * with the reason (both fail closed in the tick).
 */
export const createFleetHaltReader = (options: { readonly registry: RegistryPortOptions }): FleetHaltPort => {
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
        'the halt manifest',
      );
      if (E.isLeft(manifest)) return manifest;
      if ('why' in manifest.right) return E.right(unusable(manifest.right.why));
      const layers = layersOf(manifest.right.body);
      if (layers === undefined) return E.right(unusable('the halt manifest is not an OCI image manifest'));
      const documents = layers.filter((l) => l.mediaType === FLEET_HALT_MEDIA_TYPE);
      const [layer] = documents;
      if (layer === undefined || documents.length > 1 || typeof layer.digest !== 'string') {
        return E.right(
          unusable(`the halt manifest holds ${documents.length} layers of ${FLEET_HALT_MEDIA_TYPE}, not one`),
        );
      }
      if (typeof layer.size === 'number' && layer.size > MAX_HALT_BYTES) {
        return E.right(unusable(`the halt document is ${layer.size} bytes, more than ${MAX_HALT_BYTES}: not read`));
      }
      const document = await readByDigest(
        session,
        'blobs',
        layer.digest,
        FLEET_HALT_MEDIA_TYPE,
        MAX_HALT_BYTES,
        'the halt document',
      );
      if (E.isLeft(document)) return document;
      return E.right(
        'why' in document.right ? unusable(document.right.why) : { _tag: 'Document', text: document.right.body },
      );
    },
  };
};
