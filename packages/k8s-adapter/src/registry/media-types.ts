// docs/behaviour.md §3.3: one Accept listing all four manifest media
// types, so a multi-arch index and a single manifest, OCI or Docker, each
// answer with the digest the tag points to. Verified on distribution 2.8.2:
// without the OCI types an OCI manifest answers 404 — a wrong NotFound.

export const MANIFEST_MEDIA_TYPES = [
  'application/vnd.oci.image.index.v1+json',
  'application/vnd.oci.image.manifest.v1+json',
  'application/vnd.docker.distribution.manifest.list.v2+json',
  'application/vnd.docker.distribution.manifest.v2+json',
] as const;

/** The value of the single Accept header every manifest HEAD carries. */
export const MANIFEST_ACCEPT = MANIFEST_MEDIA_TYPES.join(', ');
