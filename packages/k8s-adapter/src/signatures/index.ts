// Public surface of the signature check (docs/behaviour.md §3.4a step 3); src/index.ts re-exports it.

export {
  createSignatureVerifier,
  type SignatureVerifier,
  type SignatureVerifierOptions,
} from './create-signature-verifier.js';
export { type KeyFileError, type KeyKind, parsePublicKeys, type TrustedKey } from './public-keys.js';
export type { RequestCount } from './repo-session.js';
export { DEFAULT_SIGNATURE_LIMITS, type SignatureLimits } from './signature-limits.js';
export type { SignatureCheck, SignatureFormat, SignatureTarget, SignatureVerdict } from './signature-verdict.js';
export type { KeylessTrust } from './verify-bundle.js';
