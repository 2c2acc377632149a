import * as E from 'fp-ts/lib/Either.js';
import { describe, expect, it } from 'vitest';
import { parseTickConfig } from '../src/config/parse-config.js';
import type { TickConfig } from '../src/config/tick-config.js';
import { portBounds } from '../src/machine/port-bounds.js';
import { worstCaseTickMs } from '../src/machine/tick-deadline.js';

// The way back's switches (docs/behaviour.md §3.6): ON_ROLLOUT_FAILURE
// keep|revert, ROLLOUT_STABLE_FOR a duration that may be 0s, capped like every
// other; and their waits count in the tick's worst case (I17) — at their
// defaults, not at all.

const BASE = { RELEASE_NAME: 'stg', RELEASE_NAMESPACE: 'tracebloc', IMAGE_TAG: 'prod' };
const configOf = (env: Record<string, string>): TickConfig => {
  const parsed = parseTickConfig({ ...BASE, ...env });
  if (E.isLeft(parsed)) throw new Error(JSON.stringify(parsed.left));
  return parsed.right;
};
const problemOf = (env: Record<string, string>) => {
  const parsed = parseTickConfig({ ...BASE, ...env });
  return E.isLeft(parsed) ? parsed.left.map((p) => [p.variable, p.value, p.problem]) : [];
};

describe('ON_ROLLOUT_FAILURE and ROLLOUT_STABLE_FOR', () => {
  it('default to keep and 0s, the script', () => {
    expect(configOf({})).toMatchObject({ onRolloutFailure: 'keep', rolloutStableForMs: 0 });
  });

  it('read revert and a window', () => {
    expect(configOf({ ON_ROLLOUT_FAILURE: 'revert', ROLLOUT_STABLE_FOR: '1m30s' })).toMatchObject({
      onRolloutFailure: 'revert',
      rolloutStableForMs: 90_000,
    });
  });

  it('anything else is exit 2 naming the variable', () => {
    expect(problemOf({ ON_ROLLOUT_FAILURE: 'rollback' })).toEqual([
      [
        'ON_ROLLOUT_FAILURE',
        'rollback',
        'must be "keep" (leave a failed rollout as it is, as the script) or "revert" (roll it back to the last recorded digest)',
      ],
    ]);
    expect(problemOf({ ROLLOUT_STABLE_FOR: '30' })).toEqual([
      ['ROLLOUT_STABLE_FOR', '30', 'is not a duration (use a unit, e.g. 0s, 30s, 10m, 1h30m)'],
    ]);
    expect(problemOf({ ROLLOUT_STABLE_FOR: '24h1s' })).toEqual([
      [
        'ROLLOUT_STABLE_FOR',
        '24h1s',
        "must be at most 24h (it is waited for inside one tick, which the Job's activeDeadlineSeconds must hold)",
      ],
    ]);
  });
});

describe("the way back's waits count in the tick's worst case", () => {
  it('at the defaults they add nothing', () => {
    const plain = configOf({});
    expect(worstCaseTickMs(configOf({ ON_ROLLOUT_FAILURE: 'keep', ROLLOUT_STABLE_FOR: '0s' }))).toBe(
      worstCaseTickMs(plain),
    );
  });

  it('revert adds a rollback patch and rollout wait per workload, the quarantine write and its 3 Events; a window adds itself per workload', () => {
    const plain = configOf({});
    const b = portBounds(plain);
    expect(worstCaseTickMs(configOf({ ON_ROLLOUT_FAILURE: 'revert' })) - worstCaseTickMs(plain)).toBe(
      3 * (b.apiMs + b.rolloutMs) + b.apiMs + 3 * b.apiMs,
    );
    const windowed = configOf({ ROLLOUT_STABLE_FOR: '2m' });
    expect(worstCaseTickMs(windowed) - worstCaseTickMs(plain)).toBe(3 * portBounds(windowed).stabilityMs);
    expect(portBounds(windowed).stabilityMs).toBe(120_000 + 15_000 + 2_000);
  });
});
