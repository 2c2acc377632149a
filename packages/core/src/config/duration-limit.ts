import { formatDuration, parseDurationMs } from './duration.js';

// One judge for every duration variable (parse-config.ts, staging-config.ts):
// the same three sentences wherever a duration is read, so an operator who
// greps one finds them all.

/**
 * The longest any duration that becomes a timer or a wait inside one tick may
 * be (docs/behaviour.md §3, Bounds). ROLLOUT_TIMEOUT=720h overflowed Node's
 * 32-bit timer (it fires at once: the rollout "failed", an attempt was spent) —
 * and no Job deadline holds a tick that long anyway. Every port bound derived
 * from these (port-bounds.ts, at most 3 × 24h + grace) stays below
 * MAX_TIMER_MS.
 */
export const MAX_TICK_DURATION_MS = 24 * 3_600_000;

/** The longest a duration may be, and the sentence that says why when it is longer. */
export interface DurationLimit {
  readonly ms: number;
  readonly problem: string;
}

/** Every wait inside one tick: ROLLOUT_TIMEOUT, the port timeouts, PREPULL_TIMEOUT. */
export const TICK_WAIT: DurationLimit = {
  ms: MAX_TICK_DURATION_MS,
  problem: `must be at most ${formatDuration(MAX_TICK_DURATION_MS)} (it is waited for inside one tick, which the Job's activeDeadlineSeconds must hold)`,
};

/**
 * Zero `refused`: a bound (a timeout of 0 would fail every call). Zero
 * `allowed`: a switch whose `0s` is off, the script's behaviour
 * (ROLLOUT_STABLE_FOR, MIN_DIGEST_AGE, START_JITTER).
 */
export type ZeroDuration = 'refused' | 'allowed';

/** A duration's milliseconds, or the sentence that says what is wrong with it. */
export const judgeDuration = (
  value: string,
  zero: ZeroDuration,
  limit: DurationLimit = TICK_WAIT,
): { readonly ms: number } | { readonly problem: string } => {
  const ms = parseDurationMs(value);
  if (ms === undefined) {
    const example = zero === 'allowed' ? 'e.g. 0s, 30s, 10m, 1h30m' : 'e.g. 30s, 10m, 1h30m';
    return { problem: `is not a duration (use a unit, ${example})` };
  }
  if (zero === 'refused' && ms <= 0) return { problem: 'must be longer than zero' };
  if (ms > limit.ms) return { problem: limit.problem };
  return { ms };
};
