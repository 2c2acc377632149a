import type { Digest } from '../../src/domain/digest.js';

/** A readable fixed digest for unit tests: `repeatedDigest('a')` is `sha256:aaa…a` (64 hex). */
export const repeatedDigest = (c: string): Digest => `sha256:${c.repeat(64)}` as Digest;
