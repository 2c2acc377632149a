import { describe, expect, it } from 'vitest';
import type { Digest } from '../src/domain/digest.js';
import type { AgeVerdict } from '../src/domain/digest-age.js';
import { judgeSignature } from '../src/domain/signature-admission.js';
import {
  announceSignatureCheck,
  baselineSignature,
  clockTime,
  clockUnavailable,
  digestSoaked,
  digestSoaking,
  pendingDigestsUnreadable,
  pendingDigestsWriteFailed,
  pendingDigestUnparsable,
} from '../src/machine/admit/messages.js';
import { startJitter, startJitterFailed } from '../src/machine/resolve/messages.js';
import { simConfig } from '../src/sim/index.js';

// The soak's lines (MIN_DIGEST_AGE, ROLLOUT_RING, START_JITTER,
// docs/behaviour.md §3.4a step 2) and the signature check's (§3.4a
// step 3), each asserted whole: level, code and the exact text, so a changed
// word, a dropped hint or a wrong level reddens a case.

const NEW = `sha256:${'b'.repeat(64)}` as Digest;
const SHORT = `sha256:${'b'.repeat(12)}…`;
const config = simConfig({ MIN_DIGEST_AGE: '1h', ROLLOUT_RING: '1', RING_DELAY: '1h', START_JITTER: '10m' });
const REQUIRED = '(MIN_DIGEST_AGE=1h, ring 1 × RING_DELAY=1h)';
const at = (iso: string): number => Date.parse(iso);
const change = { image: 'jobs-manager' as const, from: `sha256:${'a'.repeat(64)}`, to: NEW };

describe('clockTime: when a soaking digest is acted on, as an operator reads it', () => {
  it('today: hours and minutes only', () => {
    expect(clockTime(at('2026-03-04T13:05:00Z'), at('2026-03-04T12:00:00Z'))).toBe('13:05Z');
  });
  it('today with seconds: the seconds stay', () => {
    expect(clockTime(at('2026-03-04T13:05:30Z'), at('2026-03-04T12:00:00Z'))).toBe('13:05:30Z');
  });
  it('another day: the date goes first', () => {
    expect(clockTime(at('2026-03-05T00:10:00Z'), at('2026-03-04T23:30:00Z'))).toBe('2026-03-05 00:10Z');
  });
});

describe('the soak says each tick one exact line', () => {
  const now = at('2026-03-04T12:45:00Z');
  const young = (firstSighting: boolean): Extract<AgeVerdict, { _tag: 'TooYoung' }> => ({
    _tag: 'TooYoung',
    change,
    pending: { digest: NEW, firstSeenMs: at('2026-03-04T12:25:00Z') },
    dueMs: at('2026-03-04T14:25:00Z'),
    firstSighting,
  });

  it('DIGEST_SOAK_STARTED on the first sighting, DIGEST_SOAKING after: info, the age and when it acts', () => {
    const line = `tracebloc/jobs-manager@${SHORT} first seen 20m ago; acting after 14:25Z ${REQUIRED}`;
    expect(digestSoaking(config, young(true), now)).toEqual({
      level: 'info',
      code: 'DIGEST_SOAK_STARTED',
      message: line,
    });
    expect(digestSoaking(config, young(false), now)).toEqual({ level: 'info', code: 'DIGEST_SOAKING', message: line });
  });

  it('DIGEST_SOAKED: info, how old it is now and that it acts now', () => {
    expect(
      digestSoaked(
        config,
        { _tag: 'OldEnough', change, pending: { digest: NEW, firstSeenMs: at('2026-03-04T10:15:00Z') } },
        now,
      ),
    ).toEqual({
      level: 'info',
      code: 'DIGEST_SOAKED',
      message: `tracebloc/jobs-manager@${SHORT} first seen 2h30m ago: old enough on this edge ${REQUIRED}; acting now`,
    });
  });

  it('PENDING_DIGEST_UNPARSABLE: warn, the key, the value as read and what it counts instead', () => {
    expect(pendingDigestUnparsable(config, { ...young(true), unparsable: 'yesterday' })).toEqual({
      level: 'warn',
      code: 'PENDING_DIGEST_UNPARSABLE',
      message: `WARN: tracebloc.io/pending-jobs-manager-digest on deployment/stg-jobs-manager holds "yesterday", not "<digest> <RFC 3339 time>"; counting ${SHORT} as first seen now.`,
    });
  });

  it('PENDING_DIGEST_UNREADABLE, CLOCK_UNAVAILABLE, PENDING_DIGEST_WRITE_FAILED: warn, with the cause', () => {
    const e = { _tag: 'Timeout', message: 'no answer in 10s' } as const;
    expect(pendingDigestsUnreadable(config, e)).toEqual({
      level: 'warn',
      code: 'PENDING_DIGEST_UNREADABLE',
      message:
        'WARN: could not read the pending digests on deployment/stg-jobs-manager (Timeout: no answer in 10s); a changed digest whose age is unknown is not acted on, so nothing is re-imaged this tick. Will retry next tick.',
    });
    expect(clockUnavailable(e)).toEqual({
      level: 'warn',
      code: 'CLOCK_UNAVAILABLE',
      message:
        "WARN: could not read the clock (Timeout: no answer in 10s); MIN_DIGEST_AGE / ROLLOUT_RING cannot judge a changed digest's age, so nothing is re-imaged this tick. Will retry next tick.",
    });
    expect(pendingDigestsWriteFailed(config, { _tag: 'Forbidden', status: 403, message: 'denied' })).toEqual({
      level: 'warn',
      code: 'PENDING_DIGEST_WRITE_FAILED',
      message:
        'WARN: could not write the pending digests on deployment/stg-jobs-manager (Forbidden (HTTP 403): denied); a new digest stays held and counts as first seen on the next tick that records it.',
    });
  });

  it('START_JITTER is info with the delay and its source; START_JITTER_FAILED is warn with the cause', () => {
    expect(startJitter(config, 185_000)).toEqual({
      level: 'info',
      code: 'START_JITTER',
      message:
        "waiting 3m5s before the registry (START_JITTER=10m, derived from this edge's deployment/stg-jobs-manager uid)",
    });
    expect(startJitterFailed({ _tag: 'Transport', message: 'timer aborted' })).toEqual({
      level: 'warn',
      code: 'START_JITTER_FAILED',
      message: 'WARN: could not wait START_JITTER (Transport: timer aborted); resolving now.',
    });
  });
});

describe('the signature check ends each digest in one exact line', () => {
  const repo = 'tracebloc/jobs-manager';
  const verified = { _tag: 'Verified', by: 'key 1 of SIGNATURE_PUBLIC_KEYS', format: 'cosign-sig-tag' } as const;
  const notVerified = { _tag: 'NotVerified', why: 'no signature found' } as const;
  const failed = { _tag: 'CheckFailed', error: { _tag: 'RateLimited', message: 'HTTP 429' } } as const;
  const report = (gated: boolean, result: typeof verified | typeof notVerified | typeof failed) => ({
    repo,
    digest: NEW,
    gated,
    result,
  });

  it('gated and verified: SIGNATURE_VERIFIED at info', () => {
    expect(announceSignatureCheck(judgeSignature('enforce', report(true, verified)), report(true, verified))).toEqual({
      level: 'info',
      code: 'SIGNATURE_VERIFIED',
      message: `signature of ${repo}@${NEW} verified by key 1 of SIGNATURE_PUBLIC_KEYS`,
    });
  });

  it('enforce, not verified: SIGNATURE_REJECTED at error, with both hints', () => {
    expect(
      announceSignatureCheck(judgeSignature('enforce', report(true, notVerified)), report(true, notVerified)),
    ).toEqual({
      level: 'error',
      code: 'SIGNATURE_REJECTED',
      message: `ERROR: SIGNATURE NOT VERIFIED for ${repo}@${NEW}: no signature found`,
      hints: [
        'this digest is not re-imaged (VERIFY_SIGNATURES=enforce); the other images go on.',
        'sign it with a key in SIGNATURE_PUBLIC_KEYS (or the keyless identity), or set VERIFY_SIGNATURES=warn to re-image unverified digests.',
      ],
    });
  });

  it('warn, not verified: SIGNATURE_NOT_VERIFIED at warn, re-imaging anyway', () => {
    expect(
      announceSignatureCheck(judgeSignature('warn', report(true, notVerified)), report(true, notVerified)),
    ).toEqual({
      level: 'warn',
      code: 'SIGNATURE_NOT_VERIFIED',
      message: `WARN: SIGNATURE NOT VERIFIED for ${repo}@${NEW}: no signature found -- re-imaging anyway (VERIFY_SIGNATURES=warn)`,
    });
  });

  it('a registry failure: SIGNATURE_CHECK_FAILED at warn, with the cause tag', () => {
    expect(announceSignatureCheck(judgeSignature('enforce', report(true, failed)), report(true, failed))).toEqual({
      level: 'warn',
      code: 'SIGNATURE_CHECK_FAILED',
      message: `WARN: could not check the signature of ${repo}@${NEW} (RateLimited: HTTP 429); not re-imaging this image this tick, the others go on. Will retry next tick.`,
      cause: 'RateLimited',
    });
  });

  it('first observation (not gated): SIGNATURE_BASELINE, info when verified, warn otherwise, naming why', () => {
    expect(announceSignatureCheck(judgeSignature('enforce', report(false, verified)), report(false, verified))).toEqual(
      {
        level: 'info',
        code: 'SIGNATURE_BASELINE',
        message: `signature of ${repo}@${NEW}: verified by key 1 of SIGNATURE_PUBLIC_KEYS (first observation)`,
      },
    );
    expect(
      announceSignatureCheck(judgeSignature('enforce', report(false, notVerified)), report(false, notVerified)),
    ).toEqual({
      level: 'warn',
      code: 'SIGNATURE_BASELINE',
      message: `WARN: signature of ${repo}@${NEW} not verified (first observation, nothing rolled): no signature found`,
    });
    expect(announceSignatureCheck(judgeSignature('warn', report(false, failed)), report(false, failed))).toEqual({
      level: 'warn',
      code: 'SIGNATURE_BASELINE',
      message: `WARN: could not check the signature of ${repo}@${NEW} (first observation, nothing rolled): RateLimited: HTTP 429`,
    });
    expect(baselineSignature(repo, NEW, { why: 'bad key' }).level).toBe('warn');
  });
});
