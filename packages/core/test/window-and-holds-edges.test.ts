import * as O from 'fp-ts/lib/Option.js';
import { describe, expect, it } from 'vitest';
import { type MaintenanceWindow, parseMaintenanceWindows } from '../src/config/maintenance-window-grammar.js';
import type { Hold } from '../src/domain/admission.js';
import type { Digest } from '../src/domain/digest.js';
import { heldDigestsOf } from '../src/domain/held-result.js';
import { openStretches, windowStateAt } from '../src/domain/maintenance-window.js';
import type { ImageResolution } from '../src/domain/plan.js';
import { registryBudgetOf } from '../src/domain/registry-budget.js';
import { isRegistryUnreachable, judgeRegistrySilence } from '../src/domain/registry-silence.js';
import { countSkip, skipResultOf } from '../src/domain/skip-streak.js';
import { simConfig } from '../src/sim/index.js';

// The edges of the maintenance window's arithmetic (docs/behaviour.md §3.4d)
// and the verdicts the registry guards, the skip streak and the holds hand
// back, each read as its callers read it.

const at = (iso: string) => Date.parse(iso);
const windows = (text: string): readonly MaintenanceWindow[] => {
  const parsed = parseMaintenanceWindows(text);
  if ('problems' in parsed) throw new Error(parsed.problems.join('; '));
  return parsed.windows;
};
const stretches = (text: string, fromIso: string, toIso: string) =>
  openStretches(windows(text), at(fromIso), at(toIso)).map((s) => [
    new Date(s.fromMs).toISOString(),
    new Date(s.toMs).toISOString(),
  ]);

describe('the open stretches that overlap [from, to)', () => {
  // The week of 2026-12-07 (Monday), in UTC: Monday's window is 01:00–02:00.
  const HOURLY = 'Mon-Sun 01:00-02:00 UTC';

  it('a stretch that closes exactly at `from`, or opens exactly at `to`, does not overlap: the span is half-open', () => {
    expect(stretches(HOURLY, '2026-12-07T02:00:00Z', '2026-12-08T01:00:00Z')).toEqual([]);
  });

  it('a minute more on either side takes each of them in, whole', () => {
    expect(stretches(HOURLY, '2026-12-07T01:59:00Z', '2026-12-08T01:01:00Z')).toEqual([
      ['2026-12-07T01:00:00.000Z', '2026-12-07T02:00:00.000Z'],
      ['2026-12-08T01:00:00.000Z', '2026-12-08T02:00:00.000Z'],
    ]);
  });

  it('a window that opened the day before `from` and is still open at it is found', () => {
    // Saturday 22:00 to Sunday 02:00: asked from Sunday 01:00, it is yesterday's.
    expect(stretches('Sat 22:00-02:00 UTC', '2026-12-06T01:00:00Z', '2026-12-06T03:00:00Z')).toEqual([
      ['2026-12-05T22:00:00.000Z', '2026-12-06T02:00:00.000Z'],
    ]);
  });

  it("a window on the last local date the span reaches is found, though a clock change at midnight made the span's first day short", () => {
    // America/Havana springs forward at midnight: Sunday 2026-03-08 00:00 CST
    // is 01:00 CDT, a 23-hour day. 24 hours from Saturday 23:30 reach Monday
    // 00:30, two local dates on: Monday's 00:00–01:00 window opens inside.
    expect(stretches('Mon 00:00-01:00 America/Havana', '2026-03-08T04:30:00Z', '2026-03-09T04:30:00Z')).toEqual([
      ['2026-03-09T04:00:00.000Z', '2026-03-09T05:00:00.000Z'],
    ]);
  });
});

describe('inside or outside, with no window at all', () => {
  it('nothing ever opens: closed, the next opening never (fail closed, nothing starts)', () => {
    expect(windowStateAt([], at('2026-12-07T12:00:00Z'))).toEqual({
      _tag: 'Closed',
      opensMs: Number.POSITIVE_INFINITY,
    });
  });
});

const D1 = `sha256:${'1'.repeat(64)}` as Digest;
const resolved = (image: string, remaining?: number): ImageResolution => ({
  _tag: 'Resolved',
  image,
  digest: D1,
  rateLimitRemaining: remaining === undefined ? O.none : O.some(remaining),
});
const rateLimited = (image: string): ImageResolution => ({
  _tag: 'Unresolved',
  image,
  error: { _tag: 'RateLimited', message: 'HTTP 429' },
});
const transport = (image: string): ImageResolution => ({
  _tag: 'Unresolved',
  image,
  error: { _tag: 'Transport', message: 'connection refused' },
});

describe('the registry budget with REGISTRY_BUDGET_FLOOR=off (I7b)', () => {
  it('is never low and gives no reason, a 429 and an exhausted budget notwithstanding', () => {
    const off = simConfig({ REGISTRY_BUDGET_FLOOR: 'off' });
    expect(registryBudgetOf(off, [rateLimited('a'), resolved('b', 0)])).toEqual({ low: false, reasons: [] });
  });
});

describe('the registry silence verdict (docs/behaviour.md §3.3, I46)', () => {
  it('MAX_RESOLVE_FAILURE_TICKS=off leaves the streak unchanged, however silent the registry', () => {
    const off = simConfig({ MAX_RESOLVE_FAILURE_TICKS: 'off' });
    expect(judgeRegistrySilence(off, [transport('a')], O.some('7'))).toEqual({ _tag: 'Unchanged' });
  });

  it('a tick with only a 429 unanswered, and no streak recorded, neither counts nor ends one: unchanged', () => {
    expect(judgeRegistrySilence(simConfig(), [resolved('a'), rateLimited('b')], O.none)).toEqual({
      _tag: 'Unchanged',
    });
  });

  it('only a silent verdict at its ceiling is REGISTRY UNREACHABLE; the others are plainly not', () => {
    const config = simConfig({ MAX_RESOLVE_FAILURE_TICKS: '3' });
    const verdicts = [
      judgeRegistrySilence(config, [resolved('a')], O.none), // unchanged
      judgeRegistrySilence(config, [resolved('a')], O.some('2')), // answering after 2
      judgeRegistrySilence(config, [transport('a')], O.some('1')), // silent, 2 of 3
      judgeRegistrySilence(config, [transport('a')], O.some('2')), // silent, 3 of 3
    ];
    expect(verdicts.map((v) => v._tag)).toEqual(['Unchanged', 'Answering', 'Silent', 'Silent']);
    expect(verdicts.map(isRegistryUnreachable)).toEqual([false, false, false, true]);
  });
});

describe('the skip streak (docs/behaviour.md §3.2, I3, I5)', () => {
  it('below MAX_SKIP_TICKS a skip is counted as skipping, one more than the streak read; at it, frozen', () => {
    expect(countSkip(O.some('2'), 5)).toEqual({ _tag: 'Skipping', streak: 3, max: 5 });
    expect(countSkip(O.some('4'), 5)).toEqual({ _tag: 'Frozen', streak: 5, max: 5 });
  });

  it('a tick whose skip was counted ends skipped below the ceiling and frozen at it', () => {
    expect(skipResultOf(countSkip(O.none, 3))).toBe('skipped');
    expect(skipResultOf(countSkip(O.some('2'), 3))).toBe('frozen');
  });
});

describe('a digest awaiting its promotion, as the outcome reports it (docs/fleet-promotion.md)', () => {
  const awaiting = (image: string, unverified: boolean): Hold => ({
    _tag: 'AwaitingPromotion',
    image,
    digest: D1,
    ring: 1,
    unverified,
  });

  it('held because the promotion could not be verified, or because it does not name the digest yet', () => {
    const holds = { a: awaiting('a', true), b: awaiting('b', false) };
    expect(heldDigestsOf(holds, ['a', 'b'])).toEqual([
      { image: 'a', digest: D1, reason: 'promotionUnverified' },
      { image: 'b', digest: D1, reason: 'awaitingPromotion' },
    ]);
  });
});
