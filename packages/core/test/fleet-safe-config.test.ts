import * as E from 'fp-ts/lib/Either.js';
import { describe, expect, it } from 'vitest';
import { parseTickConfig } from '../src/config/parse-config.js';
import { describeConfigError } from '../src/config/tick-config.js';
import { SIM_ENVIRONMENT } from '../src/sim/index.js';

// The fleet-safe rollout's switches (docs/behaviour.md §3.4a step 2, §3.3):
// MIN_DIGEST_AGE, ROLLOUT_RING, RING_DELAY, START_JITTER.

const problemsOf = (env: Record<string, string>): string[] => {
  const parsed = parseTickConfig({ ...SIM_ENVIRONMENT, ...env });
  return E.isLeft(parsed) ? parsed.left.map(describeConfigError) : [];
};

describe('fleet-safe rollout configuration', () => {
  it('defaults to the script: no soak, ring 0, RING_DELAY 1h, no jitter', () => {
    const parsed = parseTickConfig(SIM_ENVIRONMENT);
    expect(E.isRight(parsed) && parsed.right).toMatchObject({
      minDigestAgeMs: 0,
      rolloutRing: 0,
      ringDelayMs: 3_600_000,
      startJitterMs: 0,
    });
  });

  it('reads the four variables', () => {
    const parsed = parseTickConfig({
      ...SIM_ENVIRONMENT,
      MIN_DIGEST_AGE: '1h',
      ROLLOUT_RING: '2',
      RING_DELAY: '30m',
      START_JITTER: '90s',
    });
    expect(E.isRight(parsed) && parsed.right).toMatchObject({
      minDigestAgeMs: 3_600_000,
      rolloutRing: 2,
      ringDelayMs: 1_800_000,
      startJitterMs: 90_000,
    });
  });

  it('a ring that is not a whole number ≥ 0 is exit 2, named', () => {
    for (const ring of ['-1', '1.5', 'canary', ' 1']) {
      expect(problemsOf({ ROLLOUT_RING: ring })).toEqual([
        `ROLLOUT_RING=${JSON.stringify(ring)}: must be a whole number, 0 or more (0: the canary ring)`,
      ]);
    }
  });

  it('durations take a unit; MIN_DIGEST_AGE and START_JITTER may be 0s, RING_DELAY may not', () => {
    expect(problemsOf({ MIN_DIGEST_AGE: '0s', START_JITTER: '0s' })).toEqual([]);
    // A switch whose 0s is off says so in its example; a bound's example starts above zero.
    expect(problemsOf({ START_JITTER: '5', RING_DELAY: '5' })).toEqual([
      'RING_DELAY="5": is not a duration (use a unit, e.g. 30s, 10m, 1h30m)',
      'START_JITTER="5": is not a duration (use a unit, e.g. 0s, 30s, 10m, 1h30m)',
    ]);
    expect(problemsOf({ MIN_DIGEST_AGE: '60' })).toEqual([
      'MIN_DIGEST_AGE="60": is not a duration (use a unit, e.g. 0s, 30s, 10m, 1h30m)',
    ]);
    expect(problemsOf({ RING_DELAY: '0s' })).toEqual(['RING_DELAY="0s": must be longer than zero']);
  });

  it('START_JITTER is waited inside the tick: capped at 10m, what the shipped deadline holds', () => {
    expect(problemsOf({ START_JITTER: '10m' })).toEqual([]);
    expect(problemsOf({ START_JITTER: '10m1ms' })).toEqual([
      `START_JITTER="10m1ms": must be at most 10m: it is waited inside the tick, before its first registry request, so the Job's activeDeadlineSeconds (5400 s as shipped) must hold it beside every other bound of the tick, and a longer spread runs into the next tick of the 15-minute schedule`,
    ]);
  });

  it('MIN_DIGEST_AGE and RING_DELAY are ages, not waits: their own limit, 720h, and a reason that says so', () => {
    expect(problemsOf({ MIN_DIGEST_AGE: '720h', RING_DELAY: '48h' })).toEqual([]);
    for (const variable of ['MIN_DIGEST_AGE', 'RING_DELAY']) {
      const [problem] = problemsOf({ [variable]: '720h1ms' });
      expect(problem).toBe(
        `${variable}="720h1ms": must be at most 720h (30 days): it is an age, compared with this edge's record of when it first saw the digest, not a wait; a tag that moves more often than the required age never gets a build through, so a longer one is refused as a likely typo`,
      );
    }
  });

  it('the whole required age, MIN_DIGEST_AGE + ROLLOUT_RING × RING_DELAY, has the same limit, named on the ring', () => {
    expect(problemsOf({ ROLLOUT_RING: '30', RING_DELAY: '24h' })).toEqual([]);
    expect(problemsOf({ MIN_DIGEST_AGE: '700h', ROLLOUT_RING: '1', RING_DELAY: '20h' })).toEqual([]);
    expect(problemsOf({ MIN_DIGEST_AGE: '700h', ROLLOUT_RING: '1', RING_DELAY: '21h' })).toEqual([
      expect.stringMatching(
        /^ROLLOUT_RING="1": makes the required age MIN_DIGEST_AGE \+ ROLLOUT_RING × RING_DELAY = 700h \+ 1 × 21h = 721h, more than 720h \(30 days\): it is an age/,
      ),
    ]);
    expect(problemsOf({ ROLLOUT_RING: '1000', RING_DELAY: '24h' })).toEqual([
      expect.stringMatching(
        /^ROLLOUT_RING="1000": makes the required age .* = 0s \+ 1000 × 24h = 24000h, more than 720h/,
      ),
    ]);
    // Another variable's problem does not stop the sum being judged: every problem at once (I18).
    expect(problemsOf({ IMAGE_TAG: 'no spaces', ROLLOUT_RING: '1000', RING_DELAY: '24h' })).toEqual([
      expect.stringMatching(/^IMAGE_TAG="no spaces": /),
      expect.stringMatching(/^ROLLOUT_RING="1000": makes the required age/),
    ]);
    // A part that did not parse is named on its own; the sum is not judged from a guess.
    expect(problemsOf({ MIN_DIGEST_AGE: '1x', ROLLOUT_RING: '1000', RING_DELAY: '24h' })).toEqual([
      expect.stringMatching(/^MIN_DIGEST_AGE="1x": is not a duration/),
    ]);
  });
});
