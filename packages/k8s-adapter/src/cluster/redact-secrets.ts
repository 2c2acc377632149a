// The bearer token must never reach a log line or an error text (docs/behaviour.md §2: the
// CronJob's output is read by whoever can read pod logs). Error texts come
// from the server and from the transport, and either may echo a request
// header — a proxy's error page, a debugging sidecar — and a kubeconfig that
// does not parse is quoted back, credential lines included, by the YAML
// parser. So every message the adapter hands out passes through here first.

const BEARER = /\b(Bearer)\s+[A-Za-z0-9._~+/=-]+/gi;
/** A JWT (service-account tokens are JWTs): three base64url segments, the first two JSON objects. */
const JWT = /\beyJ[A-Za-z0-9_-]*\.eyJ[A-Za-z0-9_-]*\.[A-Za-z0-9_-]*/g;
/** `token: x`, `"password": "x"`, `client-key-data=x` — a credential field of a kubeconfig or a JSON body. */
const CREDENTIAL_FIELD =
  /\b(token|id-token|refresh-token|access-token|password|client-key-data|client-certificate-data)(["']?\s*[:=]\s*["']?)[^\s"',}]+/gi;
const REDACTED = '[REDACTED]';

/** `text` with every known secret and anything shaped like a credential removed. */
export const redactSecrets = (text: string, secrets: readonly string[] = []): string => {
  let out = text;
  for (const secret of secrets) {
    // Too short to be a credential, and replacing it would mangle the text.
    if (secret.length >= 8) out = out.split(secret).join(REDACTED);
  }
  return out.replace(BEARER, `$1 ${REDACTED}`).replace(JWT, REDACTED).replace(CREDENTIAL_FIELD, `$1$2${REDACTED}`);
};
