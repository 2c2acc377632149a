import { describePortError, type RegistryError } from '../domain/port-error.js';
import type { SignatureResult } from '../domain/signature-admission.js';
import type { TickEvent } from './tick-event.js';

// The operator's lines of the signature check (issue 15, docs/behaviour.md
// §3.4a step 3). `SIGNATURE NOT VERIFIED for <repo>@<digest>: <why>` is the
// issue's phrase, kept verbatim: operators grep for it.

const at = (repo: string, digest: string): string => `${repo}@${digest}`;

export const signatureVerified = (repo: string, digest: string, by: string): TickEvent => ({
  level: 'info',
  code: 'SIGNATURE_VERIFIED',
  message: `signature of ${at(repo, digest)} verified by ${by}`,
});

/** VERIFY_SIGNATURES=enforce: a finding, and the image is not re-imaged. */
export const signatureRejected = (repo: string, digest: string, why: string): TickEvent => ({
  level: 'error',
  code: 'SIGNATURE_REJECTED',
  message: `ERROR: SIGNATURE NOT VERIFIED for ${at(repo, digest)}: ${why}`,
  hints: [
    'this digest is not re-imaged (VERIFY_SIGNATURES=enforce); the other images go on.',
    'sign it with a key in SIGNATURE_PUBLIC_KEYS (or the keyless identity), or set VERIFY_SIGNATURES=warn to re-image unverified digests.',
  ],
});

/** VERIFY_SIGNATURES=warn: said loudly, re-imaged anyway. */
export const signatureNotVerifiedWarn = (repo: string, digest: string, why: string): TickEvent => ({
  level: 'warn',
  code: 'SIGNATURE_NOT_VERIFIED',
  message: `WARN: SIGNATURE NOT VERIFIED for ${at(repo, digest)}: ${why} -- re-imaging anyway (VERIFY_SIGNATURES=warn)`,
});

/** A registry failure left no verdict: a resolution failure of that image, retried next tick. */
export const signatureCheckFailed = (repo: string, digest: string, e: RegistryError): TickEvent => ({
  level: 'warn',
  code: 'SIGNATURE_CHECK_FAILED',
  message: `WARN: could not check the signature of ${at(repo, digest)} (${describePortError(e)}); not re-imaging this image this tick, the others go on. Will retry next tick.`,
  cause: e._tag,
});

/** First observation: the baseline is recorded as with `off`; the check only reports (I8). */
export const baselineSignature = (
  repo: string,
  digest: string,
  result: { readonly by: string } | { readonly why: string } | { readonly error: RegistryError },
): TickEvent =>
  'by' in result
    ? {
        level: 'info',
        code: 'SIGNATURE_BASELINE',
        message: `signature of ${at(repo, digest)}: verified by ${result.by} (first observation)`,
      }
    : {
        level: 'warn',
        code: 'SIGNATURE_BASELINE',
        message:
          'why' in result
            ? `WARN: signature of ${at(repo, digest)} not verified (first observation, nothing rolled): ${result.why}`
            : `WARN: could not check the signature of ${at(repo, digest)} (first observation, nothing rolled): ${describePortError(result.error)}`,
      };

/** The line one digest's check ends in, by whether it is gated and the mode. */
export const announceSignatureCheck = (
  mode: 'warn' | 'enforce',
  report: { readonly repo: string; readonly digest: string; readonly gated: boolean; readonly result: SignatureResult },
): TickEvent => {
  const { repo, digest, gated, result } = report;
  if (!gated) {
    return baselineSignature(
      repo,
      digest,
      result._tag === 'Verified'
        ? { by: result.by }
        : result._tag === 'NotVerified'
          ? { why: result.why }
          : { error: result.error },
    );
  }
  switch (result._tag) {
    case 'Verified':
      return signatureVerified(repo, digest, result.by);
    case 'NotVerified':
      return mode === 'enforce'
        ? signatureRejected(repo, digest, result.why)
        : signatureNotVerifiedWarn(repo, digest, result.why);
    case 'CheckFailed':
      return signatureCheckFailed(repo, digest, result.error);
  }
};
