import * as E from 'fp-ts/lib/Either.js';
import { describe, expect, it } from 'vitest';
import { parseTickConfig } from '../src/config/parse-config.js';
import { kubernetesEventsFor } from '../src/machine/kubernetes-events.js';
import { runTick, type TickPorts } from '../src/run-tick.js';
import { SIM_HALT_ENVIRONMENT, SimWorld, simConfig, simDigest, simPorts } from '../src/sim/index.js';
import { withFailingClock } from './support/failing-clock.js';
import { aHaltEdge } from './support/halt-edge.js';

// docs/behaviour.md §3.4d, on the simulator's virtual clock (0 is Thursday
// 2026-01-01T00:00Z): outside every window a changed digest waits, said with
// when the next opens; inside, a plan starts only with room for what it is
// expected to take here, and each rollout it completes is timed and kept.

const JM = 'tracebloc/jobs-manager';
const RM = 'tracebloc/resource-monitor';
const RECORD = 'tracebloc.io/last-refreshed-jobs-manager-digest';
const SECONDS = (workload: string) => `tracebloc.io/rollout-seconds-${workload}`;
const HOUR = 3_600_000;
const MINUTE = 60_000;
/** Friday 2026-01-02, 01:00Z: inside `Fri 01:00-04:00 UTC`. */
const FRIDAY_1AM = 25 * HOUR;
/** The trust the simulator signs with, without watching a halt. */
const SIM_HALT_KEYS = { SIGNATURE_PUBLIC_KEYS: SIM_HALT_ENVIRONMENT.SIGNATURE_PUBLIC_KEYS };

type Outcome = Awaited<ReturnType<typeof runTick>>;

/** A fresh edge whose first tick has recorded build 1 of everything, at Thursday 00:00Z. */
const edge = async (env: Record<string, string>, wrap: (ports: TickPorts) => TickPorts = (p) => p) => {
  const config = simConfig(env);
  const world = new SimWorld(config);
  const ports = wrap(simPorts(world));
  const first = await runTick(config, ports);
  expect(first.result).toBe('complete');
  return { config, world, ports, tick: () => runTick(config, ports) };
};

const lines = (outcome: Outcome, code: string) => outcome.events.filter((e) => e.code === code).map((e) => e.message);
const clockReads = (world: SimWorld) => world.calls.filter((c) => c.op === 'readClock').length;
const apiImage = (world: SimWorld) => world.workload('jobs-manager').images.api;

describe('MAINTENANCE_WINDOW unset (the default)', () => {
  it("reads no clock and writes no duration: a re-image tick is the script's", async () => {
    const e = await edge({});
    e.world.publish(JM, simDigest('jm 2'));
    const reimaged = await e.tick();
    expect(reimaged.result).toBe('complete');
    expect(reimaged.reimages.map((r) => r.workload.id)).toEqual(['jobs-manager', 'requests-proxy']);
    expect(clockReads(e.world)).toBe(0);
    expect(JSON.stringify(reimaged.writes)).not.toContain('rollout-seconds');
  });
});

describe('outside every window', () => {
  it('a changed digest waits: no re-image, no record, exit 0, one line with when the next window opens', async () => {
    const e = await edge({ MAINTENANCE_WINDOW: 'Fri 01:00-04:00 UTC' });
    const build2 = simDigest('jm 2');
    e.world.publish(JM, build2);
    e.world.clockMs = 12 * HOUR; // Thursday noon
    const held = await e.tick();
    expect(held.result).toBe('outsideWindow');
    expect(held.exitCode).toBe(0);
    expect(held.reimages).toEqual([]);
    expect(held.writes).toEqual([]);
    expect(lines(held, 'WINDOW_CLOSED')).toEqual(['outside the maintenance window: next opens 2026-01-02T01:00:00Z']);
    expect(held.held).toEqual([{ image: 'jobs-manager', digest: build2, reason: 'outsideWindow' }]);
    expect(kubernetesEventsFor(held).map((k) => `${k.type} ${k.reason}`)).toContain('Normal RefreshWindowWait');
    expect(apiImage(e.world)).toBe(`docker.io/${JM}:stg`);
  });

  it('a steady tick reads no clock: nothing changed, nothing to hold', async () => {
    const e = await edge({ MAINTENANCE_WINDOW: 'Fri 01:00-04:00 UTC' });
    e.world.clockMs = 12 * HOUR;
    const steady = await e.tick();
    expect(steady.result).toBe('complete');
    expect(clockReads(e.world)).toBe(0);
  });

  it('a changed digest is held before the signature check: no signature is asked about outside the window', async () => {
    const e = await edge({ MAINTENANCE_WINDOW: 'Fri 01:00-04:00 UTC', VERIFY_SIGNATURES: 'enforce', ...SIM_HALT_KEYS });
    e.world.publish(JM, simDigest('jm 2'));
    e.world.clockMs = 12 * HOUR;
    e.world.calls.length = 0;
    const held = await e.tick();
    expect(held.result).toBe('outsideWindow');
    expect(e.world.calls.filter((c) => c.op === 'verifySignature')).toEqual([]);
    expect(held.events.filter((e) => e.code.startsWith('SIGNATURE'))).toEqual([]);
  });

  it('the clock unreadable as the window is judged: nothing is asked about either, the tick holds (fail closed)', async () => {
    const e = await edge(
      { MAINTENANCE_WINDOW: 'Fri 01:00-04:00 UTC', VERIFY_SIGNATURES: 'enforce', ...SIM_HALT_KEYS },
      (ports) => withFailingClock(ports, () => true),
    );
    e.world.publish(JM, simDigest('jm 2'));
    e.world.calls.length = 0;
    const held = await e.tick();
    expect(held.reimages).toEqual([]);
    expect(e.world.calls.filter((c) => c.op === 'verifySignature')).toEqual([]);
    expect(lines(held, 'CLOCK_UNAVAILABLE')).toHaveLength(1);
  });

  it('the clock unreadable: nothing starts (fail closed), said as a WARN', async () => {
    const e = await edge({ MAINTENANCE_WINDOW: 'Fri 01:00-04:00 UTC' }, (ports) => withFailingClock(ports, () => true));
    e.world.publish(JM, simDigest('jm 2'));
    e.world.clockMs = FRIDAY_1AM;
    const held = await e.tick();
    expect(held.reimages).toEqual([]);
    expect(held.exitCode).toBe(0);
    expect(lines(held, 'CLOCK_UNAVAILABLE')).toEqual([
      'WARN: could not read the clock to judge the maintenance window (Transport: clock gone); nothing is re-imaged this tick. Will retry next tick.',
    ]);
  });
});

describe('inside a window', () => {
  it('with room: the plan starts, each rollout is timed and kept on the gate with the digests', async () => {
    const e = await edge({ MAINTENANCE_WINDOW: 'Fri 01:00-04:00 UTC' });
    const build2 = simDigest('jm 2');
    e.world.publish(JM, build2);
    e.world.clockMs = FRIDAY_1AM;
    const reimaged = await e.tick();
    expect(reimaged.result).toBe('complete');
    expect(reimaged.reimages.map((r) => r.workload.id)).toEqual(['jobs-manager', 'requests-proxy']);
    // Nothing recorded yet: each is expected to take ROLLOUT_TIMEOUT (10m).
    expect(lines(reimaged, 'WINDOW_ROOM')).toEqual(['inside the maintenance window: needs ~20m, 2h59m59s left']);
    const record = reimaged.writes.find((w) => w.kind === 'recordDigests');
    expect(record?.annotations[RECORD]).toBe(build2);
    const seconds = [SECONDS('jobs-manager'), SECONDS('requests-proxy')].map((k) => record?.annotations[k]);
    for (const s of seconds) expect(s).toMatch(/^[0-9]+$/);
    expect(e.world.annotations[SECONDS('jobs-manager')]).toBe(seconds[0]);
  });

  it('keeps the last five durations of a workload, oldest first', async () => {
    const e = await edge({ MAINTENANCE_WINDOW: 'Fri 01:00-04:00 UTC' });
    e.world.setAnnotation(SECONDS('jobs-manager'), '1 2 3 4 5');
    e.world.publish(JM, simDigest('jm 2'));
    e.world.clockMs = FRIDAY_1AM;
    await e.tick();
    const kept = (e.world.annotations[SECONDS('jobs-manager')] ?? '').split(' ');
    expect(kept.slice(0, 4)).toEqual(['2', '3', '4', '5']);
    expect(kept).toHaveLength(5);
  });

  it("sized by this edge's history: the longest recorded rollout of each workload, not the bounds", async () => {
    const e = await edge({ MAINTENANCE_WINDOW: 'Fri 01:00-01:30 UTC' });
    e.world.setAnnotation(SECONDS('jobs-manager'), '300 900 60');
    e.world.setAnnotation(SECONDS('requests-proxy'), '120');
    e.world.publish(JM, simDigest('jm 2'));
    e.world.clockMs = FRIDAY_1AM + 10 * MINUTE - 30_000; // 20m30s left: 15m + 2m fit
    const reimaged = await e.tick();
    expect(lines(reimaged, 'WINDOW_ROOM')).toEqual(['inside the maintenance window: needs ~17m, 20m29s left']);
    expect(reimaged.reimages).toHaveLength(2);
  });

  it('without room: the plan waits for the next window, said with what it needs and what is left', async () => {
    const e = await edge({ MAINTENANCE_WINDOW: 'Fri 01:00-01:30 UTC', WINDOW_MARGIN: '2m' });
    e.world.publish(JM, simDigest('jm 2'));
    e.world.clockMs = FRIDAY_1AM + 15 * MINUTE - 30_000; // 15m30s left; needs 2 × ROLLOUT_TIMEOUT + 2m
    const held = await e.tick();
    expect(held.result).toBe('outsideWindow');
    expect(held.exitCode).toBe(0);
    expect(held.reimages).toEqual([]);
    expect(held.writes).toEqual([]);
    const [line] = held.events.filter((ev) => ev.code === 'WINDOW_NO_ROOM');
    expect(line?.message).toBe('not enough window left: needs ~22m, 15m29s left');
    expect(line?.hints).toEqual([
      'jobs-manager ~10m (no rollout recorded yet: the bounds), requests-proxy ~10m (no rollout recorded yet: the bounds) with WINDOW_MARGIN=2m',
      'the next window opens 2026-01-09T01:00:00Z',
    ]);
  });

  it('a plan longer than the longest window can never start: WINDOW TOO SHORT, a finding, naming both', async () => {
    const e = await edge({ MAINTENANCE_WINDOW: 'Fri 01:00-01:15 UTC' });
    e.world.publish(JM, simDigest('jm 2'));
    e.world.clockMs = FRIDAY_1AM;
    const finding = await e.tick();
    expect(finding.result).toBe('windowTooShort');
    expect(finding.exitCode).toBe(1);
    expect(finding.reimages).toEqual([]);
    expect(lines(finding, 'WINDOW_TOO_SHORT')).toEqual([
      'ERROR: WINDOW TOO SHORT: the plan needs ~20m, and the longest maintenance window is 15m (MAINTENANCE_WINDOW="Fri 01:00-01:15 UTC"): it can never start',
    ]);
    expect(kubernetesEventsFor(finding).map((k) => `${k.type} ${k.reason}`)).toContain('Warning RefreshWindowTooShort');
  });

  it('only the workloads the plan re-images are counted: a resource-monitor build needs its own rollout alone', async () => {
    const e = await edge({ MAINTENANCE_WINDOW: 'Fri 01:00-01:30 UTC' });
    e.world.publish(RM, simDigest('rm 2'));
    e.world.clockMs = FRIDAY_1AM + 15 * MINUTE - 30_000; // 15m30s left, one rollout of 10m
    const reimaged = await e.tick();
    expect(lines(reimaged, 'WINDOW_ROOM')).toEqual(['inside the maintenance window: needs ~10m, 15m29s left']);
    expect(reimaged.reimages.map((r) => r.workload.id)).toEqual(['resource-monitor']);
  });
});

describe('RECONCILE_LIVE=1 outside the window', () => {
  it('a live re-pin waits as a re-image does', async () => {
    const e = await edge({ MAINTENANCE_WINDOW: 'Fri 01:00-04:00 UTC', RECONCILE_LIVE: '1' });
    // A helm upgrade put requests-proxy back on its tag: a live drift from the recorded digest.
    e.world.publish(JM, simDigest('jm 2'));
    e.world.clockMs = FRIDAY_1AM;
    expect((await e.tick()).reimages).toHaveLength(2);
    e.world.workload('requests-proxy').images.proxy = `docker.io/${JM}:stg`;
    e.world.clockMs = FRIDAY_1AM + 12 * HOUR;
    const outside = await e.tick();
    expect(outside.reimages).toEqual([]);
    expect(lines(outside, 'WINDOW_CLOSED')).toEqual([
      'outside the maintenance window: next opens 2026-01-09T01:00:00Z',
    ]);
  });
});

/**
 * Build 2 of jobs-manager rolled out in the last window; twelve hours later,
 * outside it, the fleet halts that build with build 1 as the pin while
 * resource-monitor publishes a build 2: the edge, build 1, and that tick.
 */
const haltedOutsideTheWindow = async (env: Record<string, string> = {}) => {
  const edge = aHaltEdge({ MAINTENANCE_WINDOW: 'Fri 01:00-04:00 UTC', ...env });
  const jm1 = simDigest(`${JM}#1`);
  const jm2 = simDigest(`${JM}#2`);
  expect((await edge.tick()).exitCode).toBe(0);
  edge.world.clockMs = FRIDAY_1AM;
  edge.world.publish(JM, jm2);
  expect((await edge.tick()).reimages).toHaveLength(2);
  edge.world.clockMs = FRIDAY_1AM + 12 * HOUR;
  edge.world.sign(JM, jm1);
  edge.publishHalt({ [JM]: { digests: [jm2], pin: jm1 } });
  edge.world.publish(RM, simDigest(`${RM}#2`));
  return { edge, jm1, outcome: await edge.tick() };
};

describe('safety actions are never held', () => {
  it("a fleet halt's pin-back goes outside the window, while another image's new build waits", async () => {
    const { edge, jm1, outcome } = await haltedOutsideTheWindow();
    expect(outcome.reimages.map((r) => r.workload.id)).toEqual(['jobs-manager', 'requests-proxy']);
    expect(edge.world.workload('jobs-manager').images.api).toBe(`docker.io/${JM}@${jm1}`);
    expect(outcome.held).toEqual([expect.objectContaining({ image: 'resource-monitor', reason: 'outsideWindow' })]);
    expect(edge.line('WINDOW_CLOSED')).toBe('outside the maintenance window: next opens 2026-01-09T01:00:00Z');
  });

  it("staging ahead of the window (PREPULL_OUTSIDE_WINDOW=on) pulls only the held build; the halt's pin-back is staged in its own re-image", async () => {
    const { edge, outcome } = await haltedOutsideTheWindow({ PREPULL: 'on', PREPULL_OUTSIDE_WINDOW: 'on' });
    expect(outcome.reimages.map((r) => r.workload.id)).toEqual(['jobs-manager', 'requests-proxy']);
    expect(outcome.held).toEqual([expect.objectContaining({ image: 'resource-monitor', reason: 'outsideWindow' })]);
    expect(edge.calls().filter((c) => c.startsWith('stageImages'))).toEqual([
      'stageImages resource-monitor',
      'stageImages jobs-manager requests-proxy',
    ]);
  });
});

describe('PREPULL_OUTSIDE_WINDOW=on', () => {
  const STAGE_AHEAD = { MAINTENANCE_WINDOW: 'Fri 01:00-04:00 UTC', PREPULL: 'on', PREPULL_OUTSIDE_WINDOW: 'on' };

  it('a plan the window holds is staged now: pulled onto its nodes, nothing switched, recorded or attempted; in the window only the switch is left', async () => {
    const e = await edge(STAGE_AHEAD);
    const build2 = simDigest('jm 2');
    e.world.slowLink(build2, 20 * MINUTE);
    e.world.publish(JM, build2);
    e.world.clockMs = 12 * HOUR;
    const ahead = await e.tick();
    expect(ahead.result).toBe('outsideWindow');
    expect(ahead.exitCode).toBe(0);
    expect(ahead.reimages).toEqual([]);
    expect(ahead.writes).toEqual([]);
    expect(lines(ahead, 'STAGED')).toHaveLength(2);
    expect(e.world.calls.filter((c) => c.op === 'stageImages')).toHaveLength(1);
    // The next window: the build is on the nodes, the switch takes seconds, not the 20-minute pull.
    e.world.clockMs = FRIDAY_1AM;
    const before = e.world.clockMs;
    const switched = await e.tick();
    expect(switched.reimages.map((r) => r.workload.id)).toEqual(['jobs-manager', 'requests-proxy']);
    expect(apiImage(e.world)).toBe(`docker.io/${JM}@${build2}`);
    expect(e.world.clockMs - before).toBeLessThan(5 * MINUTE);
  });

  it('without it, the held plan is not staged until the window', async () => {
    const e = await edge({ MAINTENANCE_WINDOW: 'Fri 01:00-04:00 UTC', PREPULL: 'on' });
    e.world.publish(JM, simDigest('jm 2'));
    e.world.clockMs = 12 * HOUR;
    await e.tick();
    expect(e.world.calls.filter((c) => c.op === 'stageImages')).toEqual([]);
  });

  it('with staging off it means nothing, and says so: exit 2 naming it', () => {
    const parsed = parseTickConfig({
      RELEASE_NAME: 'stg',
      RELEASE_NAMESPACE: 'tracebloc',
      IMAGE_TAG: 'stg',
      MAINTENANCE_WINDOW: 'Fri 01:00-04:00 UTC',
      PREPULL_OUTSIDE_WINDOW: 'on',
    });
    expect(E.isLeft(parsed) && parsed.left.map((p) => `${p.variable}: ${p.problem}`)).toEqual([
      'PREPULL_OUTSIDE_WINDOW: stages a held plan ahead of the window, which needs PREPULL=on (staging is off)',
    ]);
  });
});

describe('what a review found, held', () => {
  it('a decoupled pass that would move a workload it cannot record is held too: nothing starts without room', async () => {
    const e = await edge({ MAINTENANCE_WINDOW: 'Fri 01:00-01:30 UTC', DECOUPLED_REFRESH: '1' });
    e.world.setBehaviour('jobs-manager', 'neverReady');
    e.world.publish(JM, simDigest('jm 2'));
    e.world.clockMs = FRIDAY_1AM + 26 * MINUTE; // 4 minutes left, requests-proxy needs ROLLOUT_TIMEOUT
    const held = await e.tick();
    expect(held.reimages).toEqual([]);
    expect(e.world.calls.filter((c) => c.op === 'setImages')).toEqual([]);
    expect(lines(held, 'WINDOW_NO_ROOM')).toHaveLength(1);
  });

  it("a fleet halt's pin-back counts in the plan's size: it runs first, so another build waits when both do not fit", async () => {
    const edge = aHaltEdge({ MAINTENANCE_WINDOW: 'Fri 01:00-01:15 UTC; Sat 01:00-03:00 UTC' });
    const jm1 = simDigest(`${JM}#1`);
    const jm2 = simDigest(`${JM}#2`);
    expect((await edge.tick()).exitCode).toBe(0);
    edge.world.setAnnotation(SECONDS('jobs-manager'), '2400');
    edge.world.setAnnotation(SECONDS('requests-proxy'), '60');
    edge.world.setAnnotation(SECONDS('resource-monitor'), '60');
    edge.world.clockMs = FRIDAY_1AM + 24 * HOUR; // Saturday 01:00, two hours open
    edge.world.publish(JM, jm2);
    expect((await edge.tick()).reimages).toHaveLength(2);
    edge.world.sign(JM, jm1);
    edge.publishHalt({ [JM]: { digests: [jm2], pin: jm1 } });
    edge.world.publish(RM, simDigest(`${RM}#2`));
    edge.world.clockMs = FRIDAY_1AM + 24 * HOUR + 110 * MINUTE; // 10 minutes left: the pin-back's 40m + 1m + 1m do not fit
    const outcome = await edge.tick();
    expect(outcome.reimages.map((r) => r.workload.id)).toEqual(['jobs-manager', 'requests-proxy']);
    expect(outcome.held).toEqual([expect.objectContaining({ image: 'resource-monitor', reason: 'outsideWindow' })]);
    expect(edge.line('WINDOW_NO_ROOM')).toMatch(/^not enough window left: needs ~42m, 9m\d*s? left/);
  });

  it('a plan no window can hold is said at once, outside the window too: WINDOW TOO SHORT, exit 1', async () => {
    const e = await edge({ MAINTENANCE_WINDOW: 'Fri 01:00-01:15 UTC' });
    e.world.publish(JM, simDigest('jm 2'));
    e.world.clockMs = 12 * HOUR; // Thursday noon
    const finding = await e.tick();
    expect(finding.result).toBe('windowTooShort');
    expect(finding.exitCode).toBe(1);
    expect(finding.reimages).toEqual([]);
  });

  it('a weekly window a clock change leaves no time in opens again a week later: the tick says when, and does not fail', async () => {
    const e = await edge({ MAINTENANCE_WINDOW: 'Sun 02:00-03:00 Europe/Berlin' });
    e.world.publish(JM, simDigest('jm 2'));
    // Saturday 2026-03-28, noon UTC: the next Sunday 02:00 in Berlin does not exist (spring forward).
    e.world.clockMs = Date.UTC(2026, 2, 28, 12) - Date.UTC(2026, 0, 1);
    const held = await e.tick();
    expect(held.exitCode).toBe(0);
    expect(lines(held, 'WINDOW_CLOSED')).toEqual(['outside the maintenance window: next opens 2026-04-05T00:00:00Z']);
  });

  it('staging ahead never pulls a digest the signature check refused (VERIFY_SIGNATURES=enforce), nor in a flap lockout', async () => {
    const e = await edge({
      ...SIM_HALT_KEYS,
      VERIFY_SIGNATURES: 'enforce',
      MAINTENANCE_WINDOW: 'Fri 01:00-04:00 UTC',
      PREPULL: 'on',
      PREPULL_OUTSIDE_WINDOW: 'on',
    });
    e.world.publish(JM, simDigest('jm 2 unsigned'));
    e.world.clockMs = 12 * HOUR;
    const held = await e.tick();
    expect(held.result).toBe('signatureRejected');
    expect(e.world.calls.filter((c) => c.op === 'stageImages')).toEqual([]);
    // Signed, but the flap back-off has locked refresh out: nothing is staged for a window it will not use.
    const signed = simDigest('jm 3');
    e.world.sign(JM, signed);
    e.world.publish(JM, signed);
    e.world.setAnnotation('tracebloc.io/refresh-flap-detected', '3');
    await e.tick();
    expect(e.world.calls.filter((c) => c.op === 'stageImages')).toEqual([]);
  });
});

describe('the clock or the staging failing after the plan', () => {
  it("the clock read for the plan's room fails: nothing starts (fail closed), said as a WARN", async () => {
    let reads = 0;
    // The admission check's read answers; the plan's does not.
    const e = await edge({ MAINTENANCE_WINDOW: 'Fri 01:00-04:00 UTC' }, (ports) =>
      withFailingClock(ports, () => {
        reads += 1;
        return reads === 2;
      }),
    );
    reads = 0;
    e.world.publish(JM, simDigest('jm 2'));
    e.world.clockMs = FRIDAY_1AM;
    const held = await e.tick();
    expect(reads).toBe(2);
    expect(held.reimages).toEqual([]);
    expect(held.exitCode).toBe(0);
    expect(lines(held, 'CLOCK_UNAVAILABLE')).toEqual([
      'WARN: could not read the clock to judge the maintenance window (Transport: clock gone); nothing is re-imaged this tick. Will retry next tick.',
    ]);
  });

  it('staging ahead that fails as a whole is said per workload; the plan waits as it would have', async () => {
    const e = await edge({ MAINTENANCE_WINDOW: 'Fri 01:00-04:00 UTC', PREPULL: 'on', PREPULL_OUTSIDE_WINDOW: 'on' });
    e.world.publish(JM, simDigest('jm 2'));
    e.world.clockMs = 12 * HOUR;
    e.world.injectClusterFault('stageImages', 'Transport', 1);
    const held = await e.tick();
    expect(held.result).toBe('outsideWindow');
    expect(held.exitCode).toBe(0);
    expect(held.reimages).toEqual([]);
    expect(lines(held, 'STAGING_FAILED')).toHaveLength(2);
    expect(lines(held, 'STAGING_FAILED')[0]).toContain('the staging call failed');
  });
});
