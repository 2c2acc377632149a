// A registry URL may carry `user:password@` (IMAGE_REFRESH_REGISTRY_URL,
// which Node turns into Basic auth). No secret may reach a log line, an
// Event or an error message, so every place that shows such a URL shows it
// through this (docs/behaviour.md §2, the registry's credentials).

// Up to the authority's last "@": a password may hold a raw "@", which URL
// parsers take as part of the userinfo (https://u:p@ss@host is user u,
// password p@ss, host `host`).
const USERINFO = /^(https?:\/\/)[^/?#]*@/i;

/** True when `url` names a user (and maybe a password) before its host. */
export const hasUserinfo = (url: string): boolean => USERINFO.test(url);

/** `url` with any `user:password@` replaced by `…@`, safe to show. */
export const withoutUserinfo = (url: string): string => url.replace(USERINFO, '$1…@');
