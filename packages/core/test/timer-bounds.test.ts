import * as E from 'fp-ts/lib/Either.js';
import { describe, expect, it } from 'vitest';
import { parseTickConfig } from '../src/config/parse-config.js';
import type { TickConfig } from '../src/config/tick-config.js';
import { portBounds } from '../src/machine/port-bounds.js';
import { MAX_TIMER_MS, worstCaseTickMs } from '../src/machine/tick-deadline.js';

// docs/behaviour.md §3, Bounds: ROLLOUT_TIMEOUT=720h overflowed Node's 32-bit
// timer — the rollout "failed" at once and spent an attempt. Every duration
// that becomes a timer or a wait inside a tick is capped at 24h (exit 2 naming
// the variable and the cap), and at the cap no bound handed to a timer
// overflows.

const BASE = { RELEASE_NAME: 'stg', RELEASE_NAMESPACE: 'tracebloc', IMAGE_TAG: 'prod' };
const DURATIONS = ['ROLLOUT_TIMEOUT', 'SETTLE_TIMEOUT', 'API_TIMEOUT', 'REGISTRY_TIMEOUT'] as const;

const configOf = (env: Record<string, string>): TickConfig => {
  const parsed = parseTickConfig({ ...BASE, ...env });
  if (E.isLeft(parsed)) throw new Error(JSON.stringify(parsed.left));
  return parsed.right;
};

describe('every duration waited for inside a tick is at most 24h', () => {
  it.each(DURATIONS)('%s=24h is accepted, 24h1s and 720h are exit 2 naming the variable and the cap', (variable) => {
    expect(E.isRight(parseTickConfig({ ...BASE, [variable]: '24h' }))).toBe(true);
    for (const value of ['24h1s', '720h']) {
      expect(parseTickConfig({ ...BASE, [variable]: value })).toEqual(
        E.left([
          {
            variable,
            value,
            problem:
              "must be at most 24h (it is waited for inside one tick, which the Job's activeDeadlineSeconds must hold)",
          },
        ]),
      );
    }
  });

  it("at the cap, every port bound handed to a timer fits Node's 32-bit timer", () => {
    const config = configOf(Object.fromEntries(DURATIONS.map((v) => [v, '24h'])));
    const bounds = portBounds(config);
    for (const ms of [bounds.apiMs, bounds.observeMs, bounds.rolloutMs, bounds.resolveMs(3)]) {
      expect(ms).toBeLessThanOrEqual(MAX_TIMER_MS);
    }
  });

  it("a tick's worst case is the sum of its bounds: per workload an observation, a re-image and its Event; 1 resolve, 12 requests, 18 Events; the registry silence's write and Event", () => {
    // At the chart's defaults: observe 27 s, resolve 102 s (REGISTRY_TIMEOUT × (3 per image + 1 per pass, the known realm's token) + grace), api 17 s, rollout 617 s.
    expect(worstCaseTickMs(configOf({}))).toBe(
      3 * 27_000 + 102_000 + 3 * (17_000 + 617_000) + 12 * 17_000 + (18 + 2) * 17_000 + 2 * 17_000,
    );
    expect(worstCaseTickMs(configOf({ MAX_RESOLVE_FAILURE_TICKS: 'off' }))).toBe(
      3 * 27_000 + 102_000 + 3 * (17_000 + 617_000) + 12 * 17_000 + (18 + 2) * 17_000,
    );
  });
});
