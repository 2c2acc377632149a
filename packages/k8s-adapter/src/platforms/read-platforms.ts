import type { Platform, PlatformAnswer, PlatformPort, RegistryError } from '@image-refresh/core';
import * as E from 'fp-ts/lib/Either.js';
import { MANIFEST_ACCEPT } from '../registry/media-types.js';
import { type RegistryPortOptions, registryClient } from '../registry/registry-client.js';
import { readByDigest } from '../signatures/read-content.js';
import { openRepoSession, type RepoSession } from '../signatures/repo-session.js';

// PLATFORM_CHECK (docs/behaviour.md §3.4a step 4) on the registry API: the
// platforms a digest provides. An OCI index or a Docker manifest list names
// them in its entries; a single image (OCI image manifest, Docker v2) in its
// config blob. Each read is a GET by digest, capped and checked against that
// digest, on the registry port's transport (REGISTRY_TIMEOUT and the tick's
// signals per request) with one anonymous pull token per repository per tick.
// Docker Hub counts the manifest GET as a pull; the blob GET it does not.

/** Caps on what one platform read takes in; see {@link DEFAULT_PLATFORM_LIMITS}. */
export interface PlatformLimits {
  /** A manifest or an index: a multi-platform index of a few dozen entries is a few KiB. */
  readonly maxManifestBytes: number;
  /** An image config: its history and environment, rarely more than some tens of KiB. */
  readonly maxConfigBytes: number;
}

/** 512 KiB per manifest or index (as the signature check's), 1 MiB per config blob. */
export const DEFAULT_PLATFORM_LIMITS: PlatformLimits = {
  maxManifestBytes: 512 * 1024,
  maxConfigBytes: 1024 * 1024,
};

const INDEX_TYPES = new Set([
  'application/vnd.oci.image.index.v1+json',
  'application/vnd.docker.distribution.manifest.list.v2+json',
]);
const MANIFEST_TYPES = new Set([
  'application/vnd.oci.image.manifest.v1+json',
  'application/vnd.docker.distribution.manifest.v2+json',
]);
const CONFIG_TYPES = new Set([
  'application/vnd.oci.image.config.v1+json',
  'application/vnd.docker.container.image.v1+json',
]);
const CONFIG_ACCEPT = [...CONFIG_TYPES].join(', ');

const record = (value: unknown): Record<string, unknown> | undefined =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
const text = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);

const parsed = (body: string): Record<string, unknown> | undefined => {
  try {
    return record(JSON.parse(body));
  } catch (_notJson) {
    // Not JSON: the caller says the manifest holds no answer (fail closed), never a platform.
    return undefined;
  }
};

/** `os`, `architecture` and `variant` of an index entry's `platform` or of an image config. */
const platformOf = (fields: Record<string, unknown> | undefined): Platform | undefined => {
  const os = text(fields?.os);
  const architecture = text(fields?.architecture);
  if (os === undefined || architecture === undefined) return undefined;
  const variant = text(fields?.variant);
  return variant === undefined ? { os, architecture } : { os, architecture, variant };
};

const unreadable = (why: string): E.Either<never, PlatformAnswer> => E.right({ _tag: 'Unreadable', why });

/** buildx's attestation manifests sit in the index beside the images, as `unknown/unknown`; neither runs anywhere. */
const isAttestation = (entry: Record<string, unknown>): boolean =>
  record(entry.annotations)?.['vnd.docker.reference.type'] === 'attestation-manifest';

/** The platforms an index names: each entry that is an image for some platform. */
const indexPlatforms = (index: Record<string, unknown>): E.Either<never, PlatformAnswer> => {
  const entries = Array.isArray(index.manifests) ? index.manifests.map(record) : undefined;
  if (entries === undefined) return unreadable('the index has no "manifests" list');
  const platforms = entries.flatMap((entry) =>
    entry === undefined || isAttestation(entry)
      ? []
      : [platformOf(record(entry.platform))].filter((p) => p !== undefined),
  );
  return E.right({ _tag: 'Platforms', platforms });
};

/** A single image's platform, from its config blob (GET by digest, capped, checked against the digest). */
const configPlatform = async (
  session: RepoSession,
  manifest: Record<string, unknown>,
  limits: PlatformLimits,
): Promise<E.Either<RegistryError, PlatformAnswer>> => {
  const config = record(manifest.config);
  const digest = text(config?.digest);
  const mediaType = text(config?.mediaType);
  if (digest === undefined) return unreadable('the manifest names no config');
  if (mediaType !== undefined && !CONFIG_TYPES.has(mediaType)) {
    return unreadable(`its config is ${mediaType}, not an image config: not an image`);
  }
  const read = await readByDigest(session, 'blobs', digest, CONFIG_ACCEPT, limits.maxConfigBytes, 'its config blob');
  if (E.isLeft(read)) return read;
  if ('why' in read.right) return unreadable(read.right.why);
  const platform = platformOf(parsed(read.right.body));
  return platform === undefined
    ? unreadable(`its config blob ${digest} names no os and architecture`)
    : E.right({ _tag: 'Platforms', platforms: [platform] });
};

const readPlatformsOf = async (
  session: RepoSession,
  digest: string,
  limits: PlatformLimits,
): Promise<E.Either<RegistryError, PlatformAnswer>> => {
  const read = await readByDigest(
    session,
    'manifests',
    digest,
    MANIFEST_ACCEPT,
    limits.maxManifestBytes,
    'the manifest',
  );
  if (E.isLeft(read)) return read;
  if ('why' in read.right) return unreadable(read.right.why);
  const manifest = parsed(read.right.body);
  if (manifest === undefined) return unreadable('the manifest is not a JSON object');
  // OCI 1.1 asks for the field; an older OCI manifest may leave it out, and its shape says what it is.
  const mediaType =
    text(manifest.mediaType) ??
    (Array.isArray(manifest.manifests) ? 'application/vnd.oci.image.index.v1+json' : undefined) ??
    (record(manifest.config) === undefined ? undefined : 'application/vnd.oci.image.manifest.v1+json');
  if (mediaType !== undefined && INDEX_TYPES.has(mediaType)) return indexPlatforms(manifest);
  if (mediaType !== undefined && MANIFEST_TYPES.has(mediaType)) return configPlatform(session, manifest, limits);
  return unreadable(
    `its media type ${mediaType ?? '(none)'} is not one the check reads (OCI index or image manifest, Docker list or v2)`,
  );
};

/** What `createPlatformReader` needs: the registry (as for the registry port), and the read caps. */
export interface PlatformReaderOptions {
  readonly registry: RegistryPortOptions;
  readonly limits?: PlatformLimits;
}

/**
 * Core's `PlatformPort` on the registry API (PLATFORM_CHECK): the platforms of
 * a digest, from its index or its image config. Build one per tick: it keeps
 * one pull token per repository for the tick. Never throws; a registry
 * failure is a `Left`, a manifest that holds no answer `Unreadable` with the
 * reason (both fail closed in the tick).
 */
export const createPlatformReader = (options: PlatformReaderOptions): PlatformPort => {
  const client = registryClient(options.registry);
  const limits = options.limits ?? DEFAULT_PLATFORM_LIMITS;
  const sessions = new Map<string, RepoSession>();
  const sessionOf = (repo: string): RepoSession => {
    const known = sessions.get(repo);
    if (known !== undefined) return known;
    const session = openRepoSession(client, repo, undefined, 'platform check');
    sessions.set(repo, session);
    return session;
  };
  return { read: (target) => () => readPlatformsOf(sessionOf(target.repo), target.digest, limits) };
};
