import * as E from 'fp-ts/lib/Either.js';
import { describe, expect, it } from 'vitest';
import { parseTickConfig } from '../src/config/parse-config.js';
import { describeConfigError } from '../src/config/tick-config.js';
import { SIM_ENVIRONMENT } from '../src/sim/index.js';

// Issue 17's switches: MIN_DIGEST_AGE, ROLLOUT_RING, RING_DELAY, START_JITTER.

const problemsOf = (env: Record<string, string>): string[] => {
  const parsed = parseTickConfig({ ...SIM_ENVIRONMENT, ...env });
  return E.isLeft(parsed) ? parsed.left.map(describeConfigError) : [];
};

describe('fleet-safe rollout configuration (issue 17)', () => {
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

  it('durations take a unit and are capped at 24h like the others; MIN_DIGEST_AGE and START_JITTER may be 0s', () => {
    expect(problemsOf({ MIN_DIGEST_AGE: '0s', START_JITTER: '0s' })).toEqual([]);
    expect(problemsOf({ MIN_DIGEST_AGE: '60' })).toEqual([
      'MIN_DIGEST_AGE="60": is not a duration (use a unit, e.g. 0s, 30s, 10m, 1h30m)',
    ]);
    expect(problemsOf({ START_JITTER: '25h' })).toEqual([
      `START_JITTER="25h": must be at most 24h (it is waited for inside one tick, which the Job's activeDeadlineSeconds must hold)`,
    ]);
    expect(problemsOf({ RING_DELAY: '0s' })).toEqual(['RING_DELAY="0s": must be longer than zero']);
    expect(problemsOf({ RING_DELAY: '48h' })[0]).toMatch(/^RING_DELAY="48h": must be at most 24h/);
  });
});
