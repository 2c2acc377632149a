// A registry URL may carry `user:password@` (IMAGE_REFRESH_REGISTRY_URL,
// which Node turns into Basic auth). No secret may reach a log line, an
// Event or an error message, so every place that shows such a URL shows it
// through this (docs/behaviour.md §2, the registry's credentials).

const USERINFO = /^(https?:\/\/)[^/?#@]*@/i;

/** True when `url` names a user (and maybe a password) before its host. */
export const hasUserinfo = (url: string): boolean => USERINFO.test(url);

/** `url` with any `user:password@` replaced by `…@`, safe to show. */
export const withoutUserinfo = (url: string): string => url.replace(USERINFO, '$1…@');
