import { type ConfigError, type SignatureConfig, verifiesNothing } from '@image-refresh/core';
import * as E from 'fp-ts/lib/Either.js';
import type { SignatureTrust } from './signature-trust.js';

// With VERIFY_SIGNATURES=off (the default) nothing of the
// signature check is evaluated — no key read, no verifier, no node:crypto:
// the steady tick's memory stays what it was (README, Benchmarks). A fleet
// halt (FLEET_HALT_REF, docs/behaviour.md §3.4b) is verified with the same
// trust, so it loads it too.

/** The trust VERIFY_SIGNATURES (or FLEET_HALT_REF) verifies with, loaded only when one is on. */
export const loadSignatureTrust = async (
  signatures: SignatureConfig,
): Promise<E.Either<readonly ConfigError[], SignatureTrust | undefined>> =>
  verifiesNothing(signatures)
    ? E.right(undefined)
    : (await import('./signature-trust.js')).readSignatureTrust(signatures);
