import { shortDigest } from '@image-refresh/core';

/** `sha256:0123456789ab…` for a pinned reference, `tag stg` for a floating one. */
export const liveOf = (reference: string | undefined): string => {
  if (reference === undefined) return '-';
  const at = reference.indexOf('@');
  if (at >= 0) return shortDigest(reference.slice(at + 1));
  const colon = reference.lastIndexOf(':');
  return colon > reference.lastIndexOf('/') ? `tag ${reference.slice(colon + 1)}` : reference;
};
