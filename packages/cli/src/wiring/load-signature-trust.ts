import { type ConfigError, signatureModeOf, type TickConfig } from '@image-refresh/core';
import * as E from 'fp-ts/lib/Either.js';
import type { SignatureTrust } from './signature-trust.js';

// Issue 15: with VERIFY_SIGNATURES=off (the default) nothing of the
// signature check is evaluated — no key read, no verifier, no node:crypto:
// the steady tick's memory stays what it was (README, Benchmarks).

/** The trust VERIFY_SIGNATURES verifies with, loaded only when it is on. */
export const loadSignatureTrust = async (
  config: TickConfig,
): Promise<E.Either<readonly ConfigError[], SignatureTrust | undefined>> =>
  signatureModeOf(config) === 'off'
    ? E.right(undefined)
    : (await import('./signature-trust.js')).readSignatureTrust(config);
