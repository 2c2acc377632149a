import { verify } from 'node:crypto';
import type { TrustedKey } from './public-keys.js';

// One signature over some bytes, checked with one key, as cosign signs them
// (cosign specs/SIGNATURE_SPEC.md "Signature Schemes": the hash is the
// registry's, SHA-256): ECDSA with SHA-256 and a DER signature, RSA
// PKCS#1 v1.5 with SHA-256, Ed25519 over the bytes themselves.

/** True only when `signature` is `key`'s signature over `payload`; any malformed input is false. */
export const verifyWithKey = (key: TrustedKey, payload: Buffer, signature: Buffer): boolean => {
  try {
    if (key.kind === 'ed25519') return verify(null, payload, key.key, signature);
    if (key.kind === 'rsa') return verify('sha256', payload, key.key, signature);
    return verify('sha256', payload, { key: key.key, dsaEncoding: 'der' }, signature);
  } catch (_malformedSignature) {
    // OpenSSL throws on some malformed DER instead of answering false: that is
    // a signature that does not verify, nothing more.
    return false;
  }
};
