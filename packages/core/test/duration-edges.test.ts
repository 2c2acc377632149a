import { describe, expect, it } from 'vitest';
import { formatDuration, parseDurationMs } from '../src/config/duration.js';

// ROLLOUT_TIMEOUT, SETTLE_TIMEOUT, API_TIMEOUT and REGISTRY_TIMEOUT are read
// in kubectl's --timeout syntax (Go's time.ParseDuration) and printed back in
// it (docs/behaviour.md §2): the edges of both directions, where a value read
// wrongly becomes a timer of another length.

describe('parseDurationMs at its edges', () => {
  it.each([
    ['1h2m3s4ms', 3_723_004],
    ['1s500000us', 1_500],
    ['1s500000\u00b5s', 1_500],
    ['1500000000ns', 1_500],
    ['2us', 0.002],
    ['3ns', 0.000003],
    ['.5s', 500],
    ['5.s', 5_000],
    ['1m1m', 120_000],
    ['0.25h', 900_000],
    // Fractions of more than one digit, in the first part and in a later one.
    ['.25s', 250],
    ['1m1.25s', 61_250],
    ['1m.25s', 60_250],
  ])('%j is %d ms', (text, ms) => expect(parseDurationMs(text)).toBeCloseTo(ms, 9));

  it.each([
    'ms',
    '1',
    '1.5.5s',
    '1S',
    '1M',
    's1',
    '1s ',
    ' 1s',
    '1s1',
    '1 s',
    '1sm',
    '1 h',
    '1d1s',
    '.',
    '..5s',
    '1e3s',
  ])('%j is not a duration', (text) => expect(parseDurationMs(text)).toBeUndefined());

  it('a number too large to be finite is no duration, never Infinity', () => {
    expect(parseDurationMs(`1${'0'.repeat(400)}h`)).toBeUndefined();
  });
});

describe('formatDuration at its edges', () => {
  it.each([
    [-5, '0ms'],
    [0.4, '0ms'],
    [999.4, '999ms'],
    [999.6, '1s'],
    [1_001, '1.001s'],
    [59_999, '59.999s'],
    [60_000, '1m'],
    [3_600_000, '1h'],
    [3_660_000, '1h1m'],
    [86_400_000, '24h'],
  ])('%d ms reads %s', (ms, text) => expect(formatDuration(ms)).toBe(text));
});
