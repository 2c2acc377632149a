import type { ConfigError, SignatureConfig } from '@image-refresh/core';
import * as E from 'fp-ts/lib/Either.js';
import type { SignatureTrust } from './signature-trust.js';

// With VERIFY_SIGNATURES=off (the default) nothing of the signature check is
// evaluated — no key read, no verifier, no node:crypto: the steady tick's
// memory stays what it was (README, Benchmarks).

/** The trust VERIFY_SIGNATURES verifies with, loaded only when it is on. */
export const loadSignatureTrust = async (
  signatures: SignatureConfig,
): Promise<E.Either<readonly ConfigError[], SignatureTrust | undefined>> =>
  signatures.mode === 'off'
    ? E.right(undefined)
    : (await import('./signature-trust.js')).readSignatureTrust(signatures);
