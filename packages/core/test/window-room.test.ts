import * as E from 'fp-ts/lib/Either.js';
import { describe, expect, it } from 'vitest';
import { parseMaintenanceWindows } from '../src/config/maintenance-window-grammar.js';
import { parseTickConfig } from '../src/config/parse-config.js';
import { isTimeZone } from '../src/config/zoned-time.js';
import type { Digest } from '../src/domain/digest.js';
import type { RefreshPlan } from '../src/domain/plan.js';
import {
  expectedRollouts,
  holdsReimages,
  judgeWindowRoom,
  onlyPinBacks,
  recordedRolloutSeconds,
  rolloutSecondsWrite,
  type WindowJudgement,
  waitsForAWindow,
  windowedDigests,
  windowedWorkloads,
  withWindowHolds,
} from '../src/domain/window-room.js';
import { SHOP_PROFILE, simConfig } from '../src/sim/index.js';

// The window's pieces one by one (docs/behaviour.md §3.4d): its variables as
// the tick reads them, what a plan is expected to take, the boundaries of
// "room", what each judgement holds and why, and the durations kept.

const CHART = { RELEASE_NAME: 'stg', RELEASE_NAMESPACE: 'tracebloc', IMAGE_TAG: 'stg' };
const problems = (env: Record<string, string>) => {
  const parsed = parseTickConfig({ ...CHART, ...env });
  return E.isLeft(parsed) ? parsed.left.map((p) => `${p.variable}: ${p.problem}`) : [];
};
const KEY = (w: string) => `tracebloc.io/rollout-seconds-${w}`;
const D1 = `sha256:${'1'.repeat(64)}` as Digest;
const D2 = `sha256:${'2'.repeat(64)}` as Digest;

describe('the variables', () => {
  it('MAINTENANCE_WINDOW set: its margin and staging-ahead switch read, each wrong value named', () => {
    const config = simConfig({
      MAINTENANCE_WINDOW: 'Mon 01:00-04:00 UTC',
      WINDOW_MARGIN: '5m',
      PREPULL: 'on',
      PREPULL_OUTSIDE_WINDOW: 'on',
    });
    expect(config.maintenanceWindow).toMatchObject({ marginMs: 300_000, stageOutside: true });
    expect(simConfig({ MAINTENANCE_WINDOW: 'Mon 01:00-04:00 UTC' }).maintenanceWindow).toMatchObject({
      marginMs: 0,
      stageOutside: false,
    });
    expect(
      problems({ MAINTENANCE_WINDOW: 'Mon 01:00-04:00 UTC', WINDOW_MARGIN: '5', PREPULL_OUTSIDE_WINDOW: 'yes' }),
    ).toEqual([
      expect.stringMatching(/^WINDOW_MARGIN: /),
      'PREPULL_OUTSIDE_WINDOW: must be "off" (the default) or "on"',
    ]);
    expect(problems({ MAINTENANCE_WINDOW: 'Mon 01:00-04:00 UTC', WINDOW_MARGIN: '25h' })).toEqual([
      expect.stringContaining('WINDOW_MARGIN: must be at most 24h'),
    ]);
    // A bad window and a bad margin: both named, no config.
    expect(problems({ MAINTENANCE_WINDOW: 'Mon 1-4 UTC', WINDOW_MARGIN: 'x' })).toHaveLength(2);
  });

  it('unset: neither of the other two is read, and the config has no window', () => {
    expect(simConfig({ WINDOW_MARGIN: 'x', PREPULL_OUTSIDE_WINDOW: 'x' }).maintenanceWindow).toBeUndefined();
  });

  it('a workload id too long for its rollout-seconds key is refused with the window set, not without', () => {
    const id = 'w'.repeat(48);
    const profile = {
      annotationPrefix: 'shop.example.com',
      gate: id,
      images: [{ name: 'web', repository: 'shop/web' }],
      workloads: [{ id, kind: 'Deployment', namespace: 'shop', name: 'web', containers: { web: 'web' } }],
    };
    const withWindow = parseTickConfig({ IMAGE_TAG: 'stg', MAINTENANCE_WINDOW: 'Mon 01:00-04:00 UTC' }, profile);
    expect(E.isLeft(withWindow) && withWindow.left.map((p) => p.problem)).toEqual([
      `needs each workload's rollout durations under rollout-seconds-<workload id>, at most 63 characters: workload id "${id}" is 48 characters, at most 47 fit`,
    ]);
    expect(E.isRight(parseTickConfig({ IMAGE_TAG: 'stg' }, profile))).toBe(true);
  });

  it('the grammar takes any whitespace between the parts, and anchors its times', () => {
    const parsed = parseMaintenanceWindows('Mon-Fri\t01:00-04:00   UTC ;  ');
    expect('windows' in parsed && parsed.windows.map((w) => [w.days, w.startMinute, w.endMinute])).toEqual([
      [[0, 1, 2, 3, 4], 60, 240],
    ]);
    for (const bad of ['Mon 001:00-04:00 UTC', 'Mon 01:00-04:000 UTC', 'Mon x01:00-04:00 UTC']) {
      expect('problems' in parseMaintenanceWindows(bad), bad).toBe(true);
    }
  });

  it('a zone is an IANA name: never a bare offset, whatever the runtime accepts', () => {
    expect(['UTC', 'Etc/GMT+2', 'Asia/Kolkata', 'America/Argentina/Buenos_Aires'].map(isTimeZone)).toEqual([
      true,
      true,
      true,
      true,
    ]);
    expect(['+02:00', '-05:00', ' UTC', 'UTC ', 'Mars/Olympus'].map(isTimeZone)).toEqual([
      false,
      false,
      false,
      false,
      false,
    ]);
  });
});

describe('what a plan is expected to take here', () => {
  const config = simConfig({ MAINTENANCE_WINDOW: 'Mon 01:00-04:00 UTC' });
  it("each workload's longest recorded rollout; the bounds where none is, or none parses", () => {
    const bookkeeping = { [KEY('jobs-manager')]: '120 900 x 60', [KEY('requests-proxy')]: 'never' };
    expect(expectedRollouts(config, ['jobs-manager', 'requests-proxy'], bookkeeping)).toEqual([
      { workload: 'jobs-manager', ms: 900_000, measured: true },
      { workload: 'requests-proxy', ms: 600_000, measured: false },
    ]);
    expect(recordedRolloutSeconds({ k: ' 5  7 1234567890 8 ' }, 'k')).toEqual([5, 7, 8]);
  });

  it('with PREPULL=on, the staging bound too, staged ahead or not', () => {
    for (const env of [{ PREPULL: 'on' }, { PREPULL: 'on', PREPULL_OUTSIDE_WINDOW: 'on' }]) {
      const c = simConfig({ MAINTENANCE_WINDOW: 'Mon 01:00-04:00 UTC', ...env });
      expect(expectedRollouts(c, ['jobs-manager'], {})).toEqual([
        { workload: 'jobs-manager', ms: 600_000 + 1_800_000, measured: false },
      ]);
    }
  });
});

describe("the window's word on a plan", () => {
  const window = (text: string, marginMs = 0) => ({
    windows:
      'windows' in parseMaintenanceWindows(text) ? (parseMaintenanceWindows(text) as { windows: never }).windows : [],
    marginMs,
    stageOutside: false,
  });
  const config = simConfig({});
  const MONDAY_1AM = Date.UTC(2026, 11, 7, 1);
  const bookkeeping = { [KEY('jobs-manager')]: '600' };

  it('room exactly as long as the need starts; a second less waits; the margin counts', () => {
    const w = window('Mon 01:00-01:10 UTC');
    expect(judgeWindowRoom(config, w, MONDAY_1AM, ['jobs-manager'], bookkeeping)._tag).toBe('Room');
    expect(judgeWindowRoom(config, w, MONDAY_1AM + 1000, ['jobs-manager'], bookkeeping)).toMatchObject({
      _tag: 'NoRoom',
      needsMs: 600_000,
      leftMs: 599_000,
      opensMs: Date.UTC(2026, 11, 14, 1),
    });
    expect(
      judgeWindowRoom(config, window('Mon 01:00-01:20 UTC', 600_000), MONDAY_1AM, ['jobs-manager'], bookkeeping)._tag,
    ).toBe('Room');
    expect(
      judgeWindowRoom(config, window('Mon 01:00-01:20 UTC', 600_001), MONDAY_1AM, ['jobs-manager'], bookkeeping)._tag,
    ).toBe('TooShort');
  });

  it('a need as long as the longest window still fits it; longer never does, outside a window too', () => {
    const w = window('Mon 01:00-01:10 UTC');
    expect(judgeWindowRoom(config, w, MONDAY_1AM - 3_600_000, ['jobs-manager'], bookkeeping)._tag).toBe('Closed');
    expect(judgeWindowRoom(config, w, MONDAY_1AM - 3_600_000, ['jobs-manager', 'requests-proxy'], bookkeeping)).toEqual(
      {
        _tag: 'TooShort',
        needsMs: 1_200_000,
        longestMs: 600_000,
        windows: 'Mon 01:00-01:10 UTC',
      },
    );
  });

  it('each judgement that holds says why in the hold; the first reason of an image stays', () => {
    const digests = [{ image: 'jobs-manager', to: D2 }];
    const why = (j: Parameters<typeof withWindowHolds>[2]) => withWindowHolds({}, digests, j)['jobs-manager'];
    expect(why({ _tag: 'Closed', nowMs: 0, opensMs: 1 })).toEqual({
      _tag: 'OutsideWindow',
      image: 'jobs-manager',
      digest: D2,
      why: 'closed',
    });
    expect(why({ _tag: 'NoRoom', nowMs: 0, needsMs: 2, leftMs: 1, opensMs: 3 })).toMatchObject({ why: 'noRoom' });
    expect(why({ _tag: 'TooShort', needsMs: 2, longestMs: 1, windows: 'w' })).toMatchObject({ why: 'tooShort' });
    expect(why({ _tag: 'Unread' })).toMatchObject({ why: 'unread' });
    const soaking = { 'jobs-manager': { _tag: 'Soaking' as const, image: 'jobs-manager', digest: D2 } };
    expect(withWindowHolds(soaking, digests, { _tag: 'Unread' })).toEqual(soaking);
  });
});

describe('what each judgement means for the plan', () => {
  const judgements: readonly [WindowJudgement | undefined, boolean, boolean][] = [
    // judgement, holds the plan's re-images, a wait staging ahead may fill
    [undefined, false, false],
    [{ _tag: 'Open' } as WindowJudgement, false, false],
    [{ _tag: 'Room', nowMs: 0, needsMs: 1, leftMs: 2 }, false, false],
    [{ _tag: 'Closed', nowMs: 0, opensMs: 1 }, true, true],
    [{ _tag: 'NoRoom', nowMs: 0, needsMs: 2, leftMs: 1, opensMs: 3 }, true, true],
    [{ _tag: 'TooShort', needsMs: 2, longestMs: 1, windows: 'w' }, true, false],
    [{ _tag: 'Unread' }, true, false],
  ];

  it.each(judgements)('%o: holds %s; waits for a window %s', (judgement, holds, waits) => {
    expect(holdsReimages(judgement)).toBe(holds);
    expect(waitsForAWindow(judgement)).toBe(waits);
  });

  it('a plan too long for every window names them all', () => {
    const parsed = parseMaintenanceWindows('Mon 01:00-01:10 UTC; Sat 02:00-02:05 UTC');
    const windows = 'windows' in parsed ? parsed.windows : [];
    const judgement = judgeWindowRoom(
      simConfig({}),
      { windows, marginMs: 0, stageOutside: false },
      Date.UTC(2026, 11, 7, 1),
      ['jobs-manager'],
      { [KEY('jobs-manager')]: '3600' },
    );
    expect(judgement).toMatchObject({ _tag: 'TooShort', windows: 'Mon 01:00-01:10 UTC; Sat 02:00-02:05 UTC' });
  });
});

describe('which changes the window holds', () => {
  const config = simConfig({});
  const change = (id: string, containers: string[]): RefreshPlan['changes'][number] => {
    const workload = config.topology.workloads.find((w) => w.id === id);
    if (workload === undefined) throw new Error(`no workload ${id}`);
    return { workload, images: containers.map((container) => ({ container, image: `docker.io/x@${D2}` })) };
  };
  const plan = (changes: RefreshPlan['changes']): RefreshPlan => ({
    verdicts: [
      { _tag: 'Drift', image: 'jobs-manager', from: D1, to: D2 },
      { _tag: 'Drift', image: 'resource-monitor', from: D1, to: D2 },
    ],
    live: [],
    firstObservations: {},
    drift: {},
    changes,
    pins: {},
  });

  it("a change that only sends an image back to a fleet halt's pin is never held; any other is, with every digest it moves", () => {
    const p = plan([
      change('jobs-manager', ['api']),
      change('requests-proxy', ['proxy']),
      change('resource-monitor', ['tracebloc-resource-monitor']),
    ]);
    const pins = { 'jobs-manager': { image: 'jobs-manager', from: D1, to: D2 } };
    expect(windowedWorkloads(config.topology, p, pins)).toEqual(['resource-monitor']);
    expect(windowedDigests(config.topology, p, pins)).toEqual([{ image: 'resource-monitor', to: D2 }]);
    expect(onlyPinBacks(config.topology, p, pins).changes.map((c) => c.workload.id)).toEqual([
      'jobs-manager',
      'requests-proxy',
    ]);
    // No pin: every change is the window's, its digests all held (a change the plan cannot record included).
    expect(windowedWorkloads(config.topology, p, {})).toEqual(['jobs-manager', 'requests-proxy', 'resource-monitor']);
    expect(windowedDigests(config.topology, p, {})).toEqual([
      { image: 'jobs-manager', to: D2 },
      { image: 'resource-monitor', to: D2 },
    ]);
  });
});

describe('which changes the window holds, on a topology whose containers share names', () => {
  // The shop: web runs containers web and log, worker runs the web image in its container worker.
  const config = simConfig(
    {},
    {
      ...SHOP_PROFILE,
      workloads: [...SHOP_PROFILE.workloads.map((w) => (w.id === 'worker' ? { ...w, containers: { log: 'web' } } : w))],
    },
  );
  const workload = (id: string) => {
    const found = config.topology.workloads.find((w) => w.id === id);
    if (found === undefined) throw new Error(`no workload ${id}`);
    return found;
  };
  const change = (id: string, containers: string[]): RefreshPlan['changes'][number] => ({
    workload: workload(id),
    images: containers.map((container) => ({ container, image: `docker.io/x@${D2}` })),
  });
  const plan = (changes: RefreshPlan['changes'], verdicts: RefreshPlan['verdicts']): RefreshPlan => ({
    verdicts,
    live: [],
    firstObservations: {},
    drift: {},
    changes,
    pins: {},
  });

  it("a container is the image of its own workload's container of that name, not another workload's", () => {
    // worker's container `log` runs the web image; web's container `log` runs the log image.
    const p = plan([change('worker', ['log'])], [{ _tag: 'Drift', image: 'web', from: D1, to: D2 }]);
    const webPinned = { web: { image: 'web', from: D1, to: D2 } };
    expect(windowedWorkloads(config.topology, p, webPinned)).toEqual([]);
    expect(windowedWorkloads(config.topology, p, { log: { image: 'log', from: D1, to: D2 } })).toEqual(['worker']);
  });

  it("a change is the window's when any of its containers moves an image no halt pins, not only when all do", () => {
    const p = plan(
      [change('web', ['web', 'log'])],
      [
        { _tag: 'Drift', image: 'web', from: D1, to: D2 },
        { _tag: 'Drift', image: 'log', from: D1, to: D2 },
      ],
    );
    const webPinned = { web: { image: 'web', from: D1, to: D2 } };
    expect(windowedWorkloads(config.topology, p, webPinned)).toEqual(['web']);
    expect(windowedDigests(config.topology, p, webPinned)).toEqual([{ image: 'log', to: D2 }]);
  });

  it('only the drift of an image a windowed change moves is held: not a first observation, not an image it does not move', () => {
    const p = plan(
      [change('web', ['log'])],
      [
        { _tag: 'FirstObservation', image: 'log', digest: D2 },
        { _tag: 'Drift', image: 'agent', from: D1, to: D2 },
      ],
    );
    expect(windowedWorkloads(config.topology, p, {})).toEqual(['web']);
    expect(windowedDigests(config.topology, p, {})).toEqual([]);
  });
});

describe('the durations kept', () => {
  const config = simConfig({});
  it('whole seconds appended, the last five kept, what does not parse dropped', () => {
    const write = rolloutSecondsWrite(
      config.topology,
      { [KEY('jobs-manager')]: '1 2 x 3 4 5', [KEY('requests-proxy')]: '' },
      { 'jobs-manager': 61_499, 'requests-proxy': 500, 'resource-monitor': -5 },
    );
    expect(write).toEqual({
      [KEY('jobs-manager')]: '2 3 4 5 61',
      [KEY('requests-proxy')]: '1',
      [KEY('resource-monitor')]: '0',
    });
  });
});
