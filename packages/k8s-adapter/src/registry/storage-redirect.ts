import * as E from 'fp-ts/lib/Either.js';

// A registry may answer a blob GET with a redirect to where the blob is stored
// (GHCR, Harbor on S3, GitLab answer 307 to a signed storage URL). It is
// followed once, inside the same REGISTRY_TIMEOUT as the GET it answers
// (http-exchange.ts), so a check's request bounds (core's port-bounds.ts) are
// what they were. What authenticated the GET — a pull token, or Basic from
// REGISTRY_AUTH_FILE — goes along only to the registry's own origin: a storage
// URL carries its own signature in its query, and a credential never reaches
// another origin (docs/configuration.md, "The registry"). A redirect from
// https to plain http is refused.

const REDIRECTS: ReadonlySet<number> = new Set([301, 302, 303, 307, 308]);

export const isRedirect = (status: number): boolean => REDIRECTS.has(status);

/** Where a redirect sends a GET, with the headers that may go along; or why it is not followed. */
export const redirectedRequest = (
  from: URL,
  location: string | null,
  headers: Readonly<Record<string, string>>,
): E.Either<string, { readonly url: URL; readonly headers: Readonly<Record<string, string>> }> => {
  if (location === null || location === '') return E.left('a redirect without a Location');
  if (!URL.canParse(location, from.href)) return E.left('a redirect to a Location that is no URL');
  const url = new URL(location, from);
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return E.left(`a redirect to a ${url.protocol} URL`);
  if (from.protocol === 'https:' && url.protocol !== 'https:') return E.left('a redirect from https to plain http');
  if (url.origin === from.origin) return E.right({ url, headers });
  const { Authorization: _stays, ...rest } = headers;
  return E.right({ url, headers: rest });
};
