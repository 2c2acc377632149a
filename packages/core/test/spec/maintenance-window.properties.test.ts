import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { runTick } from '../../src/run-tick.js';
import { SimWorld, simConfig, simDigest, simPorts } from '../../src/sim/index.js';
import { SIM_EPOCH_MS } from '../../src/sim/sim-ports.js';

// MAINTENANCE_WINDOW's invariants (docs/behaviour.md §4, I47–I48) on the
// simulator's clock, which these sequences drive through a year (so clock
// changes of the zones drawn fall inside): random windows in three zones,
// builds published at random, time passing, rollout histories seeded. Each
// invariant is answered from the world's own log, by an oracle written here:
// the zone's wall clock as Intl shows it at the instant the log recorded.
// Drawn windows open and close on whole hours from 04:00 to 24:00, away from
// the hours a clock change repeats or skips in these zones, where the wall
// clock alone cannot say which occurrence counts (the table tests of
// maintenance-window.test.ts hold those).

const RUNS = Number(process.env.IMAGE_REFRESH_WINDOW_RUNS ?? 120);
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const REPOS = ['tracebloc/jobs-manager', 'tracebloc/pods-monitor', 'tracebloc/resource-monitor'];
const WORKLOADS = ['jobs-manager', 'requests-proxy', 'resource-monitor'];
const DAYS = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'];
const SECONDS = (workload: string) => `tracebloc.io/rollout-seconds-${workload}`;

interface DrawnWindow {
  readonly days: readonly number[];
  readonly start: number;
  readonly hours: number;
  readonly zone: string;
}

const windowArbitrary: fc.Arbitrary<DrawnWindow> = fc
  .record({
    days: fc.uniqueArray(fc.integer({ min: 0, max: 6 }), { minLength: 1, maxLength: 7 }),
    start: fc.integer({ min: 4, max: 23 }),
    hours: fc.integer({ min: 1, max: 6 }),
    zone: fc.constantFrom('UTC', 'Europe/Berlin', 'America/New_York'),
  })
  // Within the day, ending by 24:00: whole hours away from any clock change of these zones.
  .map((w) => ({ ...w, hours: Math.min(w.hours, 24 - w.start) }));

const textOf = (w: DrawnWindow): string => {
  const hh = (h: number) => `${String(h).padStart(2, '0')}:00`;
  return `${[...w.days]
    .sort()
    .map((d) => DAYS[d])
    .join(',')} ${hh(w.start)}-${hh(w.start + w.hours)} ${w.zone}`;
};

/** The oracle: the zone's wall clock at `instantMs`, weekday 0 = Monday, and hours since midnight. */
const wallClock = (zone: string, instantMs: number) => {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      weekday: 'short',
      hour: 'numeric',
      minute: 'numeric',
    })
      .formatToParts(instantMs)
      .map((p) => [p.type, p.value]),
  );
  return { weekday: DAYS.indexOf(parts.weekday ?? ''), hours: Number(parts.hour) + Number(parts.minute) / 60 };
};

/** Inside `w` at `instantMs` by its wall clock. */
const isOpen = (w: DrawnWindow, instantMs: number): boolean => {
  const { weekday, hours } = wallClock(w.zone, instantMs);
  return w.days.includes(weekday) && hours >= w.start && hours < w.start + w.hours;
};

/**
 * How long some window stays open from `instantMs`, walking the wall clocks a
 * minute at a time (windows that touch or overlap are one stretch): -∞
 * outside every window; to the minute below.
 */
const openFor = (windows: readonly DrawnWindow[], instantMs: number): number => {
  if (!windows.some((w) => isOpen(w, instantMs))) return Number.NEGATIVE_INFINITY;
  let ms = MINUTE;
  while (ms < 8 * 24 * HOUR && windows.some((w) => isOpen(w, instantMs + ms))) ms += MINUTE;
  return ms - MINUTE;
};

type Step =
  | { readonly _tag: 'tick' }
  | { readonly _tag: 'wait'; readonly ms: number }
  | { readonly _tag: 'publish'; readonly repo: string }
  | { readonly _tag: 'history'; readonly workload: string; readonly seconds: readonly number[] };

const stepArbitrary: fc.Arbitrary<Step> = fc.oneof(
  { arbitrary: fc.constant<Step>({ _tag: 'tick' }), weight: 10 },
  { arbitrary: fc.integer({ min: 1, max: 600 }).map((m): Step => ({ _tag: 'wait', ms: m * MINUTE })), weight: 8 },
  { arbitrary: fc.constantFrom(...REPOS).map((repo): Step => ({ _tag: 'publish', repo })), weight: 3 },
  {
    arbitrary: fc
      .record({
        workload: fc.constantFrom(...WORKLOADS),
        seconds: fc.array(fc.integer({ min: 1, max: 5400 }), { minLength: 1, maxLength: 5 }),
      })
      .map((h): Step => ({ _tag: 'history', ...h })),
    weight: 1,
  },
);

/** How often the invariants judged a re-image, and saw one held: neither is vacuous. */
const judged = { reimages: 0, held: 0 };

describe('maintenance window invariants on a driven clock', () => {
  it('I47: no re-image starts outside every window; I48: none starts with less of its window left than its expected duration', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(windowArbitrary, { minLength: 1, maxLength: 2 }),
        fc.constantFrom('0s', '5m'),
        fc.integer({ min: 0, max: 364 }),
        fc.array(stepArbitrary, { minLength: 10, maxLength: 60 }),
        async (windows, margin, startDay, steps) => {
          const config = simConfig({ MAINTENANCE_WINDOW: windows.map(textOf).join('; '), WINDOW_MARGIN: margin });
          const world = new SimWorld(config);
          const ports = simPorts(world);
          world.clockMs = startDay * 24 * HOUR;
          let builds = 1;
          for (const step of [{ _tag: 'tick' } as Step, ...steps]) {
            if (step._tag === 'wait') world.clockMs += step.ms;
            if (step._tag === 'publish') world.publish(step.repo, simDigest(`${step.repo}#${++builds}`));
            if (step._tag === 'history') world.setAnnotation(SECONDS(step.workload), step.seconds.join(' '));
            if (step._tag !== 'tick') continue;
            const before = { ...world.annotations };
            const first = world.calls.length;
            const outcome = await runTick(config, ports);
            const calls = world.calls.slice(first);
            if ((outcome.held ?? []).some((h) => h.reason === 'outsideWindow')) judged.held += 1;
            const sets = calls.filter((c) => c.op === 'setImages' && c.outcome === 'ok');
            if (sets.length === 0) continue;
            judged.reimages += 1;
            // I47: the first set image of the tick, by the wall clock at the instant the log recorded it.
            const startedAt = SIM_EPOCH_MS + (sets[0]?.at ?? 0);
            const left = openFor(windows, startedAt);
            expect(
              left,
              `set image outside every window at ${new Date(startedAt).toISOString()}`,
            ).toBeGreaterThanOrEqual(0);
            // I48: its window had room, at the tick's clock read, for what this edge's history expects of the plan.
            const read = calls.findLast((c) => c.op === 'readClock' && c.at <= (sets[0]?.at ?? 0));
            const readAt = SIM_EPOCH_MS + (read?.at ?? 0);
            // To the minute below: a minute of slack against the tick's own reading.
            const leftAtRead = openFor(windows, readAt) + MINUTE;
            const reimaged = new Set(sets.map((c) => c.detail.split(' ')[0] ?? ''));
            const needs =
              [...reimaged].reduce((sum, workload) => {
                const kept = (before[SECONDS(workload)] ?? '').split(' ').filter((s) => /^[0-9]+$/.test(s));
                return sum + (kept.length > 0 ? Math.max(...kept.map(Number)) * 1000 : config.rolloutTimeoutMs);
              }, 0) + (margin === '5m' ? 5 * MINUTE : 0);
            expect(leftAtRead, `needs ${needs} ms at ${new Date(readAt).toISOString()}`).toBeGreaterThanOrEqual(needs);
          }
        },
      ),
      { numRuns: RUNS },
    );
    expect(judged.reimages, 'ticks that re-imaged inside a window').toBeGreaterThan(RUNS / 10);
    expect(judged.held, 'ticks that held a build for the window').toBeGreaterThan(RUNS / 10);
  }, 300_000);
});
