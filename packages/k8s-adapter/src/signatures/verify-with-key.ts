import { verify } from 'node:crypto';
import type { KeyKind, TrustedKey } from './public-keys.js';

// One signature over some bytes, checked with one key, as cosign signs them
// (sigstore/cosign specs/SIGNATURE_SPEC "Signature Schemes"): ECDSA with a DER
// signature, RSA PKCS#1 v1.5 with SHA-256, Ed25519 over the bytes themselves.
// ECDSA's hash: cosign's `verify --key` loads every key with SHA-256, while a
// signer on its key type's defaults (sigstore/sigstore's algorithm registry)
// hashes P-384 with SHA-384 and P-521 with SHA-512 — both are accepted for
// those curves; either is a signature by that key over these very bytes.

const ECDSA_HASHES: Readonly<Partial<Record<KeyKind, readonly string[]>>> = {
  'ecdsa-p256': ['sha256'],
  'ecdsa-p384': ['sha256', 'sha384'],
  'ecdsa-p521': ['sha256', 'sha512'],
};

const verifies = (algorithm: string | null, payload: Buffer, key: TrustedKey, signature: Buffer): boolean => {
  try {
    return algorithm === null || key.kind === 'rsa'
      ? verify(algorithm, payload, key.key, signature)
      : verify(algorithm, payload, { key: key.key, dsaEncoding: 'der' }, signature);
  } catch (_malformedSignature) {
    // OpenSSL throws on some malformed DER instead of answering false: that is
    // a signature that does not verify, nothing more.
    return false;
  }
};

/** True only when `signature` is `key`'s signature over `payload`; any malformed input is false. */
export const verifyWithKey = (key: TrustedKey, payload: Buffer, signature: Buffer): boolean => {
  if (key.kind === 'ed25519') return verifies(null, payload, key, signature);
  if (key.kind === 'rsa') return verifies('sha256', payload, key, signature);
  return (ECDSA_HASHES[key.kind] ?? []).some((hash) => verifies(hash, payload, key, signature));
};
