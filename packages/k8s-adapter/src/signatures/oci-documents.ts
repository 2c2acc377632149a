import { createHash } from 'node:crypto';
import * as E from 'fp-ts/lib/Either.js';

// The few fields of OCI manifests and indexes a signature check reads, parsed
// defensively: whatever a registry serves was written by whoever could push.

export const OCI_MANIFEST = 'application/vnd.oci.image.manifest.v1+json';
export const OCI_INDEX = 'application/vnd.oci.image.index.v1+json';
export const DOCKER_MANIFEST = 'application/vnd.docker.distribution.manifest.v2+json';
/** cosign has pushed `.sig` manifests as Docker v2 and as OCI manifests: accept both. */
export const SIGNATURE_MANIFEST_ACCEPT = `${OCI_MANIFEST}, ${DOCKER_MANIFEST}`;

export interface Descriptor {
  readonly mediaType: string;
  readonly digest: string;
  readonly artifactType: string | undefined;
  readonly annotations: Readonly<Record<string, string>>;
}

const DIGEST = /^sha256:[0-9a-f]{64}$/;

const record = (value: unknown): Record<string, unknown> | undefined =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;

const text = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

const annotationsOf = (value: unknown): Record<string, string> => {
  const fields = record(value) ?? {};
  return Object.fromEntries(
    Object.entries(fields).filter((entry): entry is [string, string] => typeof entry[1] === 'string'),
  );
};

const descriptor = (value: unknown): Descriptor | undefined => {
  const fields = record(value);
  const digest = text(fields?.digest);
  if (fields === undefined || digest === undefined || !DIGEST.test(digest)) return undefined;
  return {
    mediaType: text(fields.mediaType) ?? '',
    digest,
    artifactType: text(fields.artifactType),
    annotations: annotationsOf(fields.annotations),
  };
};

/** The descriptors under `key` (`layers` of a manifest, `manifests` of an index); ones without a sha256 digest are dropped. */
export const descriptorsOf = (body: string, key: 'layers' | 'manifests'): E.Either<string, readonly Descriptor[]> => {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch (_notJson) {
    return E.left('is not JSON');
  }
  const list = record(json)?.[key];
  if (!Array.isArray(list)) return E.left(`has no "${key}" list`);
  return E.right(list.map(descriptor).filter((d): d is Descriptor => d !== undefined));
};

/** The top-level `artifactType` of a manifest, or its config's media type (the pre-1.1 way). */
export const artifactTypeOf = (body: string): string | undefined => {
  try {
    const json = record(JSON.parse(body));
    return text(json?.artifactType) ?? text(record(json?.config)?.mediaType);
  } catch (_notJson) {
    return undefined;
  }
};

/** Content fetched by digest must hash to it; a registry (or a proxy) serving other bytes is caught here. */
export const matchesDigest = (body: string, digest: string): boolean =>
  `sha256:${createHash('sha256').update(body, 'utf8').digest('hex')}` === digest;
