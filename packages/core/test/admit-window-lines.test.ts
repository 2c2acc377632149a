import { describe, expect, it } from 'vitest';
import { runTick } from '../src/run-tick.js';
import { SimWorld, simConfig, simDigest, simPorts } from '../src/sim/index.js';
import { CLOCK_GONE, withFailingClock } from './support/failing-clock.js';

// The maintenance window's operator lines, whole (docs/behaviour.md §3.4d):
// the level a log shipper keys on, the code, the phrase operators grep for and
// the hints, at each of the window's verdicts and when the clock cannot be read.

const JM = 'tracebloc/jobs-manager';
const RECORD = 'tracebloc.io/last-refreshed-jobs-manager-digest';
const SECONDS = (workload: string) => `tracebloc.io/rollout-seconds-${workload}`;
const HOUR = 3_600_000;
const MINUTE = 60_000;
/** Friday 2026-01-02, 01:00Z on the simulator's clock (0 is Thursday 2026-01-01T00:00Z). */
const FRIDAY_1AM = 25 * HOUR;

type Outcome = Awaited<ReturnType<typeof runTick>>;

/** A fresh edge whose first tick recorded build 1 of everything; `failingReads` are the clock reads (1-based, counted from the next tick) that fail. */
const edge = async (env: Record<string, string>, failingReads: readonly number[] = []) => {
  const config = simConfig(env);
  const world = new SimWorld(config);
  let reads = 0;
  const ports = withFailingClock(simPorts(world), () => {
    reads += 1;
    return failingReads.includes(reads);
  });
  const first = await runTick(config, ports);
  expect(first.result).toBe('complete');
  reads = 0;
  return { world, tick: () => runTick(config, ports) };
};

const eventsOf = (outcome: Outcome, code: string) => outcome.events.filter((e) => e.code === code);

describe('the window says where the tick stands, as info lines', () => {
  it('outside every window: one info line with when the next opens', async () => {
    const e = await edge({ MAINTENANCE_WINDOW: 'Fri 01:00-04:00 UTC' });
    e.world.publish(JM, simDigest('jm 2'));
    e.world.clockMs = 12 * HOUR;
    const held = await e.tick();
    expect(eventsOf(held, 'WINDOW_CLOSED')).toEqual([
      {
        level: 'info',
        code: 'WINDOW_CLOSED',
        message: 'outside the maintenance window: next opens 2026-01-02T01:00:00Z',
      },
    ]);
  });

  it('a held change says in its verdict that it waits for the maintenance window', async () => {
    const e = await edge({ MAINTENANCE_WINDOW: 'Fri 01:00-04:00 UTC' });
    const build1 = e.world.annotations[RECORD];
    const build2 = simDigest('jm 2');
    e.world.publish(JM, build2);
    e.world.clockMs = 12 * HOUR;
    const held = await e.tick();
    expect(eventsOf(held, 'DIGEST_CHANGED').map((ev) => ev.message)).toEqual([
      `${JM}: digest changed (${build1} -> ${build2}); held back for the maintenance window`,
    ]);
  });

  it('inside, with room: one info line with what the plan needs and what is left', async () => {
    const e = await edge({ MAINTENANCE_WINDOW: 'Fri 01:00-04:00 UTC' });
    e.world.publish(JM, simDigest('jm 2'));
    e.world.clockMs = FRIDAY_1AM;
    const started = await e.tick();
    expect(eventsOf(started, 'WINDOW_ROOM')).toEqual([
      { level: 'info', code: 'WINDOW_ROOM', message: 'inside the maintenance window: needs ~20m, 2h59m59s left' },
    ]);
  });

  it('inside, without room: an info line, its hints naming each rollout by what it was sized from', async () => {
    const e = await edge({ MAINTENANCE_WINDOW: 'Fri 01:00-01:30 UTC' });
    // jobs-manager has a recorded rollout here; requests-proxy has none, so it counts ROLLOUT_TIMEOUT.
    e.world.setAnnotation(SECONDS('jobs-manager'), '300 900 60');
    e.world.publish(JM, simDigest('jm 2'));
    e.world.clockMs = FRIDAY_1AM + 20 * MINUTE;
    const held = await e.tick();
    expect(held.reimages).toEqual([]);
    expect(eventsOf(held, 'WINDOW_NO_ROOM')).toEqual([
      {
        level: 'info',
        code: 'WINDOW_NO_ROOM',
        message: 'not enough window left: needs ~25m, 9m59s left',
        hints: [
          'jobs-manager ~15m (longest recorded here), requests-proxy ~10m (no rollout recorded yet: the bounds)',
          'the next window opens 2026-01-09T01:00:00Z',
        ],
      },
    ]);
  });

  it('less than a second of the window left is said as 0s, not in milliseconds', async () => {
    const e = await edge({ MAINTENANCE_WINDOW: 'Fri 01:00-01:30 UTC' });
    e.world.publish(JM, simDigest('jm 2'));
    e.world.clockMs = FRIDAY_1AM + 30 * MINUTE - 900;
    const held = await e.tick();
    expect(held.reimages).toEqual([]);
    expect(eventsOf(held, 'WINDOW_NO_ROOM').map((ev) => ev.message)).toEqual([
      'not enough window left: needs ~20m, 0s left',
    ]);
  });

  it('a plan longer than the longest window: the finding names what the plan is made of, and what to do', async () => {
    const e = await edge({ MAINTENANCE_WINDOW: 'Fri 01:00-01:15 UTC' });
    e.world.publish(JM, simDigest('jm 2'));
    e.world.clockMs = FRIDAY_1AM;
    const finding = await e.tick();
    expect(finding.exitCode).toBe(1);
    expect(eventsOf(finding, 'WINDOW_TOO_SHORT')).toEqual([
      {
        level: 'error',
        code: 'WINDOW_TOO_SHORT',
        message:
          'ERROR: WINDOW TOO SHORT: the plan needs ~20m, and the longest maintenance window is 15m (MAINTENANCE_WINDOW="Fri 01:00-01:15 UTC"): it can never start',
        hints: [
          'jobs-manager ~10m (no rollout recorded yet: the bounds), requests-proxy ~10m (no rollout recorded yet: the bounds)',
          'Lengthen a window, re-image fewer workloads at once (pin some with their pinnedBy variable), or lower ROLLOUT_TIMEOUT where no rollout is recorded yet.',
        ],
      },
    ]);
  });
});

describe('the clock unreadable: a WARN, and nothing starts (fail closed)', () => {
  const UNAVAILABLE = {
    level: 'warn',
    code: 'CLOCK_UNAVAILABLE',
    message: `WARN: could not read the clock to judge the maintenance window (Transport: ${CLOCK_GONE}); nothing is re-imaged this tick. Will retry next tick.`,
  };

  it('as the admission check judges the window', async () => {
    const e = await edge({ MAINTENANCE_WINDOW: 'Fri 01:00-04:00 UTC' }, [1]);
    e.world.publish(JM, simDigest('jm 2'));
    e.world.clockMs = FRIDAY_1AM;
    const held = await e.tick();
    expect(held.reimages).toEqual([]);
    expect(eventsOf(held, 'CLOCK_UNAVAILABLE')).toEqual([UNAVAILABLE]);
  });

  it("as the plan's room is judged: the window is unread, and the WARN is the one thing it says", async () => {
    const e = await edge({ MAINTENANCE_WINDOW: 'Fri 01:00-04:00 UTC' }, [2]);
    e.world.publish(JM, simDigest('jm 2'));
    e.world.clockMs = FRIDAY_1AM;
    const held = await e.tick();
    expect(held.reimages).toEqual([]);
    expect(held.exitCode).toBe(0);
    expect(held.window).toEqual({ _tag: 'Unread' });
    expect(held.held).toEqual([expect.objectContaining({ image: 'jobs-manager', reason: 'outsideWindow' })]);
    // The WARN comes straight after the plan's verdicts: no other window line before or after it.
    const codes = held.events.map((ev) => ev.code);
    const warnAt = codes.indexOf('CLOCK_UNAVAILABLE');
    expect(codes.slice(warnAt - 1, warnAt + 1)).toEqual(['DIGEST_UNCHANGED', 'CLOCK_UNAVAILABLE']);
    expect(codes.filter((c) => c.startsWith('WINDOW_'))).toEqual([]);
    expect(eventsOf(held, 'CLOCK_UNAVAILABLE')).toEqual([UNAVAILABLE]);
  });
});
