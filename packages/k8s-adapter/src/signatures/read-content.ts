import type { RegistryError } from '@image-refresh/core';
import * as E from 'fp-ts/lib/Either.js';
import { matchesDigest } from './oci-documents.js';
import type { RepoSession } from './repo-session.js';

// Reading one signature document — a manifest, an index or a blob — the one
// way every part of the check reads: capped, checked against its digest, and
// judged. Unusable content (missing, oversized, not what its digest says) is
// a reason the signature does not count; only a registry failure is a Left.

export type Read = E.Either<RegistryError, { readonly body: string } | { readonly why: string }>;

const SHA256 = /^sha256:[0-9a-f]{64}$/;

/** GET `manifests/<digest>` or `blobs/<digest>`; `what` names it in a reason ("its payload blob"). */
export const readByDigest = async (
  session: RepoSession,
  kind: 'manifests' | 'blobs',
  digest: string,
  accept: string,
  maxBytes: number,
  what: string,
): Promise<Read> => {
  const answer = await session.get(session.path(kind, digest), accept, maxBytes);
  if (E.isLeft(answer)) return answer;
  const found = answer.right;
  if (found._tag === 'Absent') return E.right({ why: `${what} ${digest} is missing from the registry` });
  if (found._tag === 'TooLarge') return E.right({ why: `${what} is larger than ${found.limit} bytes: not read` });
  if (!matchesDigest(found.body, digest)) return E.right({ why: `${what} does not hash to ${digest}` });
  return E.right({ body: found.body });
};

/**
 * HEAD a tag (a 404 costs no pull on Docker Hub), then GET the manifest it
 * names by digest. `absent` when the tag does not exist.
 */
export const readTag = async (
  session: RepoSession,
  tag: string,
  accept: string,
  maxBytes: number,
  what: string,
): Promise<
  E.Either<RegistryError, { readonly body: string } | { readonly why: string } | { readonly absent: true }>
> => {
  const head = await session.head(session.path('manifests', tag), accept);
  if (E.isLeft(head)) return head;
  if (head.right._tag !== 'Found') return E.right({ absent: true });
  const named = head.right.headers.get('docker-content-digest');
  if (named === null || !SHA256.test(named)) return E.right({ why: `${what}: its HEAD named no sha256 digest` });
  return readByDigest(session, 'manifests', named, accept, maxBytes, what);
};
