import { describe, expect, it } from 'vitest';
import type { TickConfig } from '../src/config/tick-config.js';
import { runTick } from '../src/run-tick.js';
import { SimWorld, simConfig, simDigest, simPorts } from '../src/sim/index.js';
import { withFailingClock } from './support/failing-clock.js';

// Timing each rollout for MAINTENANCE_WINDOW (docs/behaviour.md §3.4d) and
// what a clock that cannot be read then does: the re-image still counts, only
// its duration is lost.

const JM = 'tracebloc/jobs-manager';
const HOUR = 3_600_000;
/** Friday 2026-01-02, 01:00Z on the simulator's clock: inside `Fri 01:00-04:00 UTC`. */
const FRIDAY_1AM = 25 * HOUR;
const SECONDS = (workload: string) => `tracebloc.io/rollout-seconds-${workload}`;

/**
 * An edge whose first tick recorded build 1 of everything; its clock fails
 * every read `failing` picks (given the world's calls so far), from the second tick on.
 */
const anEdgeWithClock = async (config: TickConfig, failing: (world: SimWorld) => boolean) => {
  const world = new SimWorld(config);
  let armed = false;
  /** Every clock read of the armed ticks, answered or failed. */
  const reads: ('answered' | 'failed')[] = [];
  const ports = withFailingClock(simPorts(world), () => {
    if (!armed) return false;
    const fails = failing(world);
    reads.push(fails ? 'failed' : 'answered');
    return fails;
  });
  expect((await runTick(config, ports)).result).toBe('complete');
  world.calls.length = 0;
  armed = true;
  return { world, reads, tick: () => runTick(config, ports) };
};

const ops = (world: SimWorld, op: string) => world.calls.filter((c) => c.op === op);

describe('a rollout whose end the clock cannot read (MAINTENANCE_WINDOW)', () => {
  it('says which workload went untimed, still counts every rollout, and records no duration for this tick', async () => {
    // The first read after a rollout wait: the one that times jobs-manager's rollout.
    const e = await anEdgeWithClock(
      simConfig({ MAINTENANCE_WINDOW: 'Fri 01:00-04:00 UTC' }),
      (world) => ops(world, 'waitForRollout').length === 1,
    );
    const build2 = simDigest('jm 2');
    e.world.publish(JM, build2);
    e.world.clockMs = FRIDAY_1AM;
    const outcome = await e.tick();
    expect(outcome.result).toBe('complete');
    expect(outcome.exitCode).toBe(0);
    expect(outcome.events.filter((ev) => ev.code === 'CLOCK_UNAVAILABLE')).toEqual([
      {
        level: 'warn',
        code: 'CLOCK_UNAVAILABLE',
        message:
          'WARN: could not read the clock to time the rollout of jobs-manager (Transport: clock gone); its duration is not recorded for the maintenance window.',
      },
    ]);
    expect(outcome.events.filter((ev) => ev.code === 'ROLLOUT_COMPLETE').map((ev) => ev.message)).toEqual([
      'deployment/stg-jobs-manager rollout complete',
      'deployment/stg-requests-proxy rollout complete',
    ]);
    expect(outcome.reimages.map((r) => r.workload.id)).toEqual(['jobs-manager', 'requests-proxy']);
    expect(e.world.workload('requests-proxy').images.proxy).toBe(`docker.io/${JM}@${build2}`);
    // The reads before the re-image answer, jobs-manager's fails; the mark is lost with it, so
    // requests-proxy's rollout is not timed (from a stale mark) and asks the clock nothing.
    expect(e.reads).toEqual(['answered', 'answered', 'failed']);
    const record = outcome.writes.find((w) => w.kind === 'recordDigests');
    expect(record?.annotations).toEqual({ 'tracebloc.io/last-refreshed-jobs-manager-digest': build2 });
    expect(e.world.annotations[SECONDS('jobs-manager')]).toBeUndefined();
    expect(e.world.annotations[SECONDS('requests-proxy')]).toBeUndefined();
  });
});

describe('ROLLOUT_STABLE_FOR without MAINTENANCE_WINDOW', () => {
  it('a rollout proven stable is counted without reading the clock: nothing is timed outside a window', async () => {
    const e = await anEdgeWithClock(simConfig({ ROLLOUT_STABLE_FOR: '30s' }), () => true);
    const jm2 = simDigest('jm 2');
    e.world.publish(JM, jm2);
    const outcome = await e.tick();
    expect(outcome.result).toBe('complete');
    expect(ops(e.world, 'watchStability').map((c) => c.detail)).toEqual(['jobs-manager', 'requests-proxy']);
    expect(e.reads).toEqual([]);
    expect(outcome.events.filter((ev) => ev.code === 'CLOCK_UNAVAILABLE')).toEqual([]);
    // The record is the digest alone: no rollout-seconds key beside it.
    expect(outcome.writes.find((w) => w.kind === 'recordDigests')?.annotations).toEqual({
      'tracebloc.io/last-refreshed-jobs-manager-digest': jm2,
    });
  });
});

describe('ROLLOUT_STABLE_FOR under MAINTENANCE_WINDOW', () => {
  it('a rollout proven stable is timed: each workload’s rollout duration is recorded for the window', async () => {
    const e = await anEdgeWithClock(
      simConfig({ MAINTENANCE_WINDOW: 'Fri 01:00-04:00 UTC', ROLLOUT_STABLE_FOR: '1m' }),
      () => false,
    );
    e.world.publish(JM, simDigest('jm 2'));
    e.world.clockMs = FRIDAY_1AM;
    const outcome = await e.tick();
    expect(outcome.result).toBe('complete');
    expect(ops(e.world, 'watchStability').length).toBe(2);
    expect(outcome.reimages.map((r) => r.workload.id)).toEqual(['jobs-manager', 'requests-proxy']);
    // The simulator's rollout takes 30 s and the stability watch its minute: the span timed holds both.
    expect(e.world.annotations[SECONDS('jobs-manager')]).toBe('90');
    expect(e.world.annotations[SECONDS('requests-proxy')]).toBe('90');
  });
});
