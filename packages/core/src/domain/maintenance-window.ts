import type { MaintenanceWindow } from '../config/maintenance-window-grammar.js';
import { addDays, instantOf, type LocalDate, localTimeAt, weekdayOf } from '../config/zoned-time.js';

// MAINTENANCE_WINDOW (docs/behaviour.md §3.4d): when a re-image may start,
// as arithmetic on instants — the tick reads its clock once and asks. The
// windows' grammar is config/maintenance-window-grammar.ts.

/** A stretch of time in which some window is open: [fromMs, toMs). Touching windows make one. */
export interface OpenStretch {
  readonly fromMs: number;
  readonly toMs: number;
}

/** Where `nowMs` falls: inside a window (until when), or outside (until when). */
export type WindowState =
  | { readonly _tag: 'Open'; readonly closesMs: number }
  | { readonly _tag: 'Closed'; readonly opensMs: number };

const DAY_MS = 86_400_000;

/** The instants one window is open on the local date it opens. */
const occurrence = (window: MaintenanceWindow, date: LocalDate): OpenStretch => {
  const crossesMidnight = window.endMinute < window.startMinute;
  return {
    fromMs: instantOf(window.zone, date, window.startMinute),
    toMs: instantOf(window.zone, crossesMidnight ? addDays(date, 1) : date, window.endMinute),
  };
};

/**
 * Every stretch in which some window is open that overlaps [fromMs, toMs),
 * in order; windows that overlap or touch make one stretch. A window a clock
 * change leaves no time in (02:00–02:30 on a spring-forward night) adds none.
 */
export const openStretches = (
  windows: readonly MaintenanceWindow[],
  fromMs: number,
  toMs: number,
): readonly OpenStretch[] => {
  const found: OpenStretch[] = [];
  for (const window of windows) {
    // From the day before (a window opened yesterday may still be open) to the day after.
    const first = addDays(localTimeAt(window.zone, fromMs), -1);
    const days = Math.ceil((toMs - fromMs) / DAY_MS) + 2;
    for (let offset = 0; offset <= days; offset += 1) {
      const date = addDays(first, offset);
      if (!window.days.includes(weekdayOf(date))) continue;
      const stretch = occurrence(window, date);
      if (stretch.toMs > stretch.fromMs && stretch.toMs > fromMs && stretch.fromMs < toMs) found.push(stretch);
    }
  }
  found.sort((a, b) => a.fromMs - b.fromMs);
  const merged: OpenStretch[] = [];
  for (const stretch of found) {
    const last = merged.at(-1);
    if (last !== undefined && stretch.fromMs <= last.toMs) {
      merged[merged.length - 1] = { fromMs: last.fromMs, toMs: Math.max(last.toMs, stretch.toMs) };
    } else merged.push(stretch);
  }
  return merged;
};

/**
 * How far ahead a next opening is looked for: two weeks and a day — a weekly
 * window a clock change leaves no time in (`Sun 02:00-03:00` on a
 * spring-forward Sunday) opens again only a week after it.
 */
const LOOK_AHEAD_MS = 15 * DAY_MS;

/**
 * Inside a window at `nowMs` (and when the stretch it is in closes), or
 * outside (and when the next one opens). Every window opens at least once in
 * two weeks, so a next opening is always found; `Infinity` if not, which the
 * lines say as "none in two weeks" (fail closed: nothing starts).
 */
export const windowStateAt = (windows: readonly MaintenanceWindow[], nowMs: number): WindowState => {
  // A stretch that is open now may have opened days ago (touching windows).
  const stretches = openStretches(windows, nowMs - LOOK_AHEAD_MS, nowMs + LOOK_AHEAD_MS);
  const current = stretches.find((s) => s.fromMs <= nowMs && nowMs < s.toMs);
  if (current !== undefined) return { _tag: 'Open', closesMs: current.toMs };
  const next = stretches.find((s) => s.fromMs > nowMs);
  // Unreachable with parsed windows (each opens within a week); fail closed: no window opens.
  return { _tag: 'Closed', opensMs: next?.fromMs ?? Number.POSITIVE_INFINITY };
};

/**
 * The longest the windows stay open at a stretch in the weeks after
 * `nowMs`: a plan that needs longer can never fit (WINDOW TOO SHORT).
 * Windows open all week long count as at least the look-ahead, two weeks.
 */
export const longestOpenMs = (windows: readonly MaintenanceWindow[], nowMs: number): number =>
  Math.max(0, ...openStretches(windows, nowMs, nowMs + 2 * 7 * DAY_MS).map((s) => s.toMs - s.fromMs));
