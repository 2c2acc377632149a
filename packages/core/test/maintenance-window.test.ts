import { describe, expect, it } from 'vitest';
import { type MaintenanceWindow, parseMaintenanceWindows } from '../src/config/maintenance-window-grammar.js';
import { instantOf, isTimeZone, localTimeAt } from '../src/config/zoned-time.js';
import { longestOpenMs, openStretches, windowStateAt } from '../src/domain/maintenance-window.js';

// MAINTENANCE_WINDOW's grammar and arithmetic (docs/behaviour.md §3.4d), table by table:
// the grammar, then instants across the clock changes of two zones — Europe/
// Berlin (last Sundays of March and October, at 01:00 UTC) and America/New_York
// (second Sunday of March, first of November, at 02:00 local) — and windows
// that cross midnight.

const at = (iso: string) => Date.parse(iso);
const iso = (ms: number) => new Date(ms).toISOString();
const windows = (text: string): readonly MaintenanceWindow[] => {
  const parsed = parseMaintenanceWindows(text);
  if ('problems' in parsed) throw new Error(parsed.problems.join('; '));
  return parsed.windows;
};
const state = (text: string, nowIso: string) => {
  const s = windowStateAt(windows(text), at(nowIso));
  return s._tag === 'Open' ? `open until ${iso(s.closesMs)}` : `closed until ${iso(s.opensMs)}`;
};

describe('the grammar', () => {
  it('days, ranges (wrapping too), 24-hour times, 24:00, a zone; several windows split by ";"', () => {
    expect(windows('Mon-Fri 01:00-04:00 Europe/Berlin; Sat,Sun 00:00-06:00 Europe/Berlin')).toEqual([
      {
        text: 'Mon-Fri 01:00-04:00 Europe/Berlin',
        days: [0, 1, 2, 3, 4],
        startMinute: 60,
        endMinute: 240,
        zone: 'Europe/Berlin',
      },
      {
        text: 'Sat,Sun 00:00-06:00 Europe/Berlin',
        days: [5, 6],
        startMinute: 0,
        endMinute: 360,
        zone: 'Europe/Berlin',
      },
    ]);
    expect(windows('fri-mon 22:00-24:00 UTC')[0]).toMatchObject({
      days: [0, 4, 5, 6],
      startMinute: 1320,
      endMinute: 1440,
    });
    expect(windows('  Wed   23:30-00:30   America/New_York ;')).toEqual([
      {
        text: 'Wed   23:30-00:30   America/New_York',
        days: [2],
        startMinute: 1410,
        endMinute: 30,
        zone: 'America/New_York',
      },
    ]);
    expect(windows('Mon 00:00-24:00 UTC')[0]).toMatchObject({ startMinute: 0, endMinute: 1440 });
  });

  it.each([
    ['Mon-Fri 01:00-04:00', 'must be <days> <HH:MM>-<HH:MM> <time zone>'],
    ['Mon-Fro 01:00-04:00 UTC', '"Mon-Fro" is not a day'],
    ['Mon-Fri-Sat 01:00-04:00 UTC', '"Mon-Fri-Sat" is not a day'],
    ['Mon 1:00-04:00 UTC', '"1:00-04:00" is not <HH:MM>-<HH:MM>'],
    ['Mon 24:00-04:00 UTC', 'is not <HH:MM>-<HH:MM>'],
    ['Mon 01:00-04:60 UTC', 'is not <HH:MM>-<HH:MM>'],
    ['Mon 01:00 UTC', 'is not <HH:MM>-<HH:MM>'],
    ['Mon 04:00-04:00 UTC', 'a window of no length'],
    ['Mon 01:00-04:00 Europe/Berln', '"Europe/Berln" is not a time zone'],
    ['Mon 01:00-04:00 +02:00', 'is not a time zone'],
  ])('%s is refused: %s', (text, problem) => {
    const parsed = parseMaintenanceWindows(text);
    expect('problems' in parsed && parsed.problems).toEqual([expect.stringContaining(problem)]);
    expect('problems' in parsed && parsed.problems[0]).toContain(`window 1 "${text}"`);
  });

  it('a trailing ";" closes the list; nothing at all, or only ";", is an empty window', () => {
    expect(windows('Mon 01:00-02:00 UTC;').map((w) => w.text)).toEqual(['Mon 01:00-02:00 UTC']);
    for (const text of ['', ';', ' ; '])
      expect(parseMaintenanceWindows(text)).toEqual({
        problems: ['window 1 is empty (windows are separated by ";")'],
      });
  });

  it('names every malformed window at once, by its place', () => {
    const parsed = parseMaintenanceWindows('Mon 01:00-02:00 UTC; Tue 3-4 UTC;; Thu 01:00-02:00 Mars/Base');
    expect('problems' in parsed && parsed.problems.map((p) => p.slice(0, 9))).toEqual([
      'window 2 ',
      'window 3 ',
      'window 4 ',
    ]);
  });

  it('knows a zone by its IANA name, and nothing else', () => {
    expect(['UTC', 'Europe/Berlin', 'America/New_York', 'Asia/Kolkata'].map(isTimeZone)).toEqual([
      true,
      true,
      true,
      true,
    ]);
    expect(['', 'Berlin', 'Europe/Berln', ' UTC'].map(isTimeZone)).toEqual([false, false, false, false]);
  });
});

describe('a local time as an instant, across clock changes', () => {
  it.each([
    // Europe/Berlin, 2026-03-29: 02:00 CET becomes 03:00 CEST at 01:00 UTC.
    ['Europe/Berlin', [2026, 3, 29], '01:30', '2026-03-29T00:30:00.000Z'],
    ['Europe/Berlin', [2026, 3, 29], '02:00', '2026-03-29T01:00:00.000Z'], // skipped: the change itself
    ['Europe/Berlin', [2026, 3, 29], '02:30', '2026-03-29T01:00:00.000Z'], // skipped: the change itself
    ['Europe/Berlin', [2026, 3, 29], '03:00', '2026-03-29T01:00:00.000Z'],
    ['Europe/Berlin', [2026, 3, 29], '03:30', '2026-03-29T01:30:00.000Z'],
    // 2026-10-25: 03:00 CEST becomes 02:00 CET at 01:00 UTC; 02:00–03:00 happens twice.
    ['Europe/Berlin', [2026, 10, 25], '02:30', '2026-10-25T00:30:00.000Z'], // the first of the two
    ['Europe/Berlin', [2026, 10, 25], '03:00', '2026-10-25T02:00:00.000Z'],
    // America/New_York, 2026-03-08: 02:00 EST becomes 03:00 EDT (07:00 UTC).
    ['America/New_York', [2026, 3, 8], '02:15', '2026-03-08T07:00:00.000Z'],
    ['America/New_York', [2026, 3, 8], '03:15', '2026-03-08T07:15:00.000Z'],
    // 2026-11-01: 02:00 EDT becomes 01:00 EST (06:00 UTC); 01:00–02:00 happens twice.
    ['America/New_York', [2026, 11, 1], '01:30', '2026-11-01T05:30:00.000Z'],
    ['America/New_York', [2026, 11, 1], '02:00', '2026-11-01T07:00:00.000Z'],
    ['UTC', [2026, 12, 31], '24:00', '2027-01-01T00:00:00.000Z'],
  ] as const)('%s %j %s → %s', (zone, [year, month, day], time, expected) => {
    const [h = 0, m = 0] = time.split(':').map(Number);
    expect(iso(instantOf(zone, { year, month, day }, h * 60 + m))).toBe(expected);
  });

  it("reads an instant's local weekday and time", () => {
    expect(localTimeAt('Europe/Berlin', at('2026-12-05T23:30:00Z'))).toEqual({
      year: 2026,
      month: 12,
      day: 6,
      weekday: 6,
      minuteOfDay: 30,
    });
  });
});

describe('inside or outside, and until when', () => {
  it.each([
    // A night window on weekdays, in Berlin winter time (UTC+1).
    ['Mon-Fri 01:00-04:00 Europe/Berlin', '2026-12-07T00:30:00Z', 'open until 2026-12-07T03:00:00.000Z'],
    ['Mon-Fri 01:00-04:00 Europe/Berlin', '2026-12-07T03:00:00Z', 'closed until 2026-12-08T00:00:00.000Z'],
    ['Mon-Fri 01:00-04:00 Europe/Berlin', '2026-12-05T12:00:00Z', 'closed until 2026-12-07T00:00:00.000Z'], // Saturday
    // Crossing midnight: opens Friday 22:00, closes Saturday 02:00; the days name the opening day.
    ['Fri 22:00-02:00 UTC', '2026-12-05T01:00:00Z', 'open until 2026-12-05T02:00:00.000Z'],
    ['Fri 22:00-02:00 UTC', '2026-12-05T02:00:00Z', 'closed until 2026-12-11T22:00:00.000Z'],
    ['Sat 22:00-02:00 UTC', '2026-12-05T01:00:00Z', 'closed until 2026-12-05T22:00:00.000Z'],
    // Touching windows are one stretch: Saturday and Sunday all day.
    ['Sat 00:00-24:00 UTC; Sun 00:00-24:00 UTC', '2026-12-05T10:00:00Z', 'open until 2026-12-07T00:00:00.000Z'],
    // Spring forward in Berlin: a 02:00–04:00 window opens at the change and is an hour long.
    ['Sun 02:00-04:00 Europe/Berlin', '2026-03-29T00:59:00Z', 'closed until 2026-03-29T01:00:00.000Z'],
    ['Sun 02:00-04:00 Europe/Berlin', '2026-03-29T01:00:00Z', 'open until 2026-03-29T02:00:00.000Z'],
    // Fall back: 02:30 counts once, at its first occurrence; the repeated hour is outside a 02:30–02:45 window.
    ['Sun 02:30-02:45 Europe/Berlin', '2026-10-25T00:35:00Z', 'open until 2026-10-25T00:45:00.000Z'],
    ['Sun 02:30-02:45 Europe/Berlin', '2026-10-25T01:35:00Z', 'closed until 2026-11-01T01:30:00.000Z'],
    // New York's nights, across its own changes.
    ['Sun 01:00-03:00 America/New_York', '2026-03-08T06:30:00Z', 'open until 2026-03-08T07:00:00.000Z'],
    ['Sun 01:00-03:00 America/New_York', '2026-11-01T06:30:00Z', 'open until 2026-11-01T08:00:00.000Z'],
  ])('%s at %s: %s', (text, now, expected) => {
    expect(state(text, now)).toBe(expected);
  });

  it('a window a clock change leaves no time in adds no stretch', () => {
    expect(
      openStretches(windows('Sun 02:00-02:30 Europe/Berlin'), at('2026-03-28T00:00:00Z'), at('2026-03-30T00:00:00Z')),
    ).toEqual([]);
  });

  it('the longest stretch: one window, touching windows merged, and an always-open week', () => {
    const now = at('2026-12-05T12:00:00Z');
    expect(longestOpenMs(windows('Mon-Fri 01:00-04:00 Europe/Berlin'), now)).toBe(3 * 3_600_000);
    expect(longestOpenMs(windows('Fri 22:00-24:00 UTC; Sat 00:00-03:00 UTC'), now)).toBe(5 * 3_600_000);
    expect(longestOpenMs(windows('Mon-Sun 00:00-24:00 UTC'), now)).toBeGreaterThanOrEqual(14 * 86_400_000);
  });
});
