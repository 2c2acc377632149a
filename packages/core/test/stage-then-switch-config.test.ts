import * as E from 'fp-ts/lib/Either.js';
import { describe, expect, it } from 'vitest';
import { parseTickConfig } from '../src/config/parse-config.js';
import { describeConfigError } from '../src/config/tick-config.js';
import { portBounds } from '../src/machine/port-bounds.js';
import { worstCaseTickMs } from '../src/machine/tick-deadline.js';
import { SIM_ENVIRONMENT, simConfig } from '../src/sim/index.js';

// PLATFORM_CHECK and PREPULL (docs/behaviour.md §3.4a step 4, §3.5a): off by
// default, every problem named at once (exit 2), the config untouched when off.

const problemsOf = (env: Record<string, string>): string[] => {
  const parsed = parseTickConfig({ ...SIM_ENVIRONMENT, ...env });
  return E.isLeft(parsed) ? parsed.left.map(describeConfigError) : [];
};

describe('PLATFORM_CHECK and PREPULL configuration', () => {
  it('both off by default, and off spelled out: the config carries nothing of them (I43)', () => {
    for (const env of [{}, { PLATFORM_CHECK: 'off', PREPULL: 'off' }, { PLATFORM_CHECK: '', PREPULL: '' }]) {
      expect(simConfig(env)).not.toHaveProperty('staging');
    }
  });

  it('PREPULL=on defaults to PREPULL_TIMEOUT=30m and PREPULL_PARALLEL=1', () => {
    expect(simConfig({ PREPULL: 'on' }).staging).toEqual({
      platformCheck: false,
      prepull: { timeoutMs: 1_800_000, parallel: 1 },
    });
    expect(simConfig({ PLATFORM_CHECK: 'on' }).staging).toEqual({ platformCheck: true });
    expect(simConfig({ PREPULL: 'on', PREPULL_TIMEOUT: '1h30m', PREPULL_PARALLEL: '3' }).staging?.prepull).toEqual({
      timeoutMs: 5_400_000,
      parallel: 3,
    });
    // More than one digit: a site with a fat link may pull on a dozen nodes at once.
    expect(simConfig({ PREPULL: 'on', PREPULL_PARALLEL: '12' }).staging?.prepull?.parallel).toBe(12);
  });

  it('anything but off or on is exit 2, named', () => {
    expect(problemsOf({ PLATFORM_CHECK: '1', PREPULL: 'yes' })).toEqual([
      'PLATFORM_CHECK="1": must be "off" (the script\'s behaviour) or "on"',
      'PREPULL="yes": must be "off" (the script\'s behaviour) or "on"',
    ]);
  });

  it('PREPULL_TIMEOUT takes a unit, is above zero and at most 24h; PREPULL_PARALLEL is a whole number ≥ 1', () => {
    const on = { PREPULL: 'on' };
    expect(problemsOf({ ...on, PREPULL_TIMEOUT: '30' })).toEqual([
      'PREPULL_TIMEOUT="30": is not a duration (use a unit, e.g. 30s, 10m, 1h30m)',
    ]);
    expect(problemsOf({ ...on, PREPULL_TIMEOUT: '0s' })).toEqual(['PREPULL_TIMEOUT="0s": must be longer than zero']);
    expect(problemsOf({ ...on, PREPULL_TIMEOUT: '24h' })).toEqual([]);
    expect(problemsOf({ ...on, PREPULL_TIMEOUT: '24h1s' })).toEqual([
      `PREPULL_TIMEOUT="24h1s": must be at most 24h (it is waited for inside one tick, which the Job's activeDeadlineSeconds must hold)`,
    ]);
    for (const parallel of ['0', '-1', '1.5', 'all', ' 2', '2 ', '2e1']) {
      expect(problemsOf({ ...on, PREPULL_PARALLEL: parallel })).toEqual([
        `PREPULL_PARALLEL=${JSON.stringify(parallel)}: must be a whole number of at least 1 (nodes pulling at once)`,
      ]);
    }
  });

  it('a PREPULL that is neither off nor on is the one problem: its two variables are not looked at either', () => {
    expect(problemsOf({ PREPULL: 'yes', PREPULL_TIMEOUT: 'soon', PREPULL_PARALLEL: '0' })).toEqual([
      'PREPULL="yes": must be "off" (the script\'s behaviour) or "on"',
    ]);
  });

  it('with PREPULL off its two variables are not looked at', () => {
    expect(problemsOf({ PREPULL_TIMEOUT: 'soon', PREPULL_PARALLEL: 'many' })).toEqual([]);
  });
});

describe('what the two switches add to the worst-case tick', () => {
  const base = worstCaseTickMs(simConfig());
  it('nothing, off (I43)', () => {
    expect(worstCaseTickMs(simConfig({ PLATFORM_CHECK: 'off', PREPULL: 'off' }))).toBe(base);
  });

  it('PLATFORM_CHECK: six manifest reads of four requests each, and one Event', () => {
    const config = simConfig({ PLATFORM_CHECK: 'on' });
    expect(worstCaseTickMs(config) - base).toBe(6 * 4 * 10_000 + 2_000 + 17_000);
  });

  it('PREPULL: PREPULL_TIMEOUT, two request bounds and the grace, and two Events', () => {
    const config = simConfig({ PREPULL: 'on', PREPULL_TIMEOUT: '20m' });
    expect(portBounds(config).stagingMs).toBe(1_200_000 + 2 * 15_000 + 2_000);
    expect(worstCaseTickMs(config) - base).toBe(1_232_000 + 2 * 17_000);
  });
});
