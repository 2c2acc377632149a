import * as E from 'fp-ts/lib/Either.js';
import { describe, expect, it } from 'vitest';
import { startJitterDelayMs } from '../src/domain/start-jitter.js';
import { interruptedBy } from '../src/machine/interrupted.js';
import { worstCaseTickMs } from '../src/machine/tick-deadline.js';
import { runTick, type TickPorts } from '../src/run-tick.js';
import { SimWorld, simConfig, simPorts } from '../src/sim/index.js';

// docs/behaviour.md §3.3: before its first registry request a tick
// waits a delay in [0, START_JITTER) derived from the jobs-manager
// Deployment's uid — the same every tick on one edge, spread across edges.

const jittered = (uid: string, env: Record<string, string> = { START_JITTER: '10m' }) => {
  const config = simConfig(env);
  const world = new SimWorld(config);
  world.uid = uid;
  return { config, world, ports: simPorts(world) };
};

const sleeps = (world: SimWorld) => world.calls.filter((c) => c.op === 'sleep').map((c) => Number(c.detail));

describe('START_JITTER', () => {
  it('derives the delay from the uid alone, in [0, START_JITTER)', () => {
    const uids = Array.from({ length: 200 }, (_, i) => `uid-${i}`);
    const delays = uids.map((uid) => startJitterDelayMs(uid, 600_000));
    expect(delays.every((d) => Number.isInteger(d) && d >= 0 && d < 600_000)).toBe(true);
    expect(new Set(delays).size).toBeGreaterThan(190);
    expect(startJitterDelayMs('uid-7', 600_000)).toBe(delays[7]);
    expect(startJitterDelayMs('uid-7', 0)).toBe(0);
  });

  it('waits the same on the same uid every tick, before the first registry request', async () => {
    const { config, world, ports } = jittered('1b4e28ba-2fa1-11d2-883f-0016d3cca427');
    const expected = startJitterDelayMs('1b4e28ba-2fa1-11d2-883f-0016d3cca427', 600_000);
    const first = await runTick(config, ports);
    await runTick(config, ports);
    expect(sleeps(world)).toEqual([expected, expected]);
    const ops = world.calls.map((c) => c.op);
    expect(ops.indexOf('sleep')).toBeLessThan(ops.indexOf('resolveDigest'));
    expect(first.events.find((e) => e.code === 'START_JITTER')?.message).toMatch(
      /^waiting \S+ before the registry \(START_JITTER=10m, derived from this edge's deployment\/stg-jobs-manager uid\)$/,
    );
  });

  it('a read that carries no uid waits the delay of the empty uid: bounded and the same every tick, never skipped', async () => {
    const { config, world, ports } = jittered('edge-a');
    const readGate: TickPorts['cluster']['readGate'] = (settleWithinMs) => async () => {
      const answer = await ports.cluster.readGate(settleWithinMs)();
      return E.map(({ uid: _, ...withoutUid }: { uid?: string }) => withoutUid)(answer) as typeof answer;
    };
    await runTick(config, { ...ports, cluster: { ...ports.cluster, readGate } });
    expect(sleeps(world)).toEqual([startJitterDelayMs('', 600_000)]);
    expect(startJitterDelayMs('', 600_000)).toBeGreaterThan(0);
  });

  it('another edge (another uid) waits another delay', async () => {
    const a = jittered('edge-a');
    const b = jittered('edge-b');
    await runTick(a.config, a.ports);
    await runTick(b.config, b.ports);
    expect(sleeps(a.world)).not.toEqual(sleeps(b.world));
  });

  it('START_JITTER=0s (the default) makes no wait and no port call', async () => {
    const { config, world, ports } = jittered('edge-a', {});
    const outcome = await runTick(config, ports);
    expect(outcome.result).toBe('complete');
    expect(world.calls.filter((c) => c.op === 'sleep' || c.op === 'readClock')).toEqual([]);
    expect(outcome.events.map((e) => e.code)).not.toContain('START_JITTER');
  });

  it('an unsettled tick without a registry request does not wait', async () => {
    const { config, world, ports } = jittered('edge-a');
    world.setBehaviour('jobs-manager', 'neverReady');
    expect((await runTick(config, ports)).result).toBe('skipped');
    expect(sleeps(world)).toEqual([]);
  });

  it('a SIGTERM during the jitter ends the tick interrupted at once, before any registry request', async () => {
    const { config, world, ports } = jittered('edge-a');
    const controller = new AbortController();
    let waited = false;
    const clock: TickPorts['clock'] = {
      now: () => () => Promise.resolve(E.right(0)),
      // The CLI's clock ends its wait on the tick's signal; so does this one.
      sleep: () => () =>
        new Promise((resolve) => {
          waited = true;
          controller.signal.addEventListener('abort', () => resolve(E.right(undefined)));
          setTimeout(() => controller.abort(interruptedBy('SIGTERM')), 5);
        }),
    };
    const started = Date.now();
    const outcome = await runTick(config, { ...ports, clock }, { signal: controller.signal });
    expect(waited).toBe(true);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(outcome.result).toBe('interrupted');
    expect(outcome.exitCode).toBe(143);
    expect(outcome.events.at(-1)?.message).toMatch(
      /^interrupted by SIGTERM while waiting START_JITTER before the registry/,
    );
    expect(world.calls.map((c) => c.op)).not.toContain('resolveDigest');
  });

  it('a failed wait is a WARN and the tick goes on to the registry', async () => {
    const { config, world, ports } = jittered('edge-a');
    const { clock: _clock, ...noClock } = ports;
    const outcome = await runTick(config, noClock as TickPorts);
    expect(outcome.result).toBe('complete');
    expect(outcome.events.find((e) => e.code === 'START_JITTER_FAILED')?.level).toBe('warn');
    expect(world.calls.map((c) => c.op)).toContain('resolveDigest');
  });

  it('counts in the tick bounds: worstCaseTickMs grows by START_JITTER', () => {
    expect(worstCaseTickMs(simConfig({ START_JITTER: '10m' })) - worstCaseTickMs(simConfig({}))).toBeGreaterThanOrEqual(
      600_000,
    );
  });
});

describe('START_JITTER on the decoupled pass (DECOUPLED_REFRESH past an unsettled jobs-manager)', () => {
  it("waits this edge's own delay too: the uid of the unsettled read, not the empty uid's", async () => {
    const { config, world, ports } = jittered('1b4e28ba-2fa1-11d2-883f-0016d3cca427', {
      START_JITTER: '10m',
      DECOUPLED_REFRESH: '1',
    });
    world.setBehaviour('jobs-manager', 'neverReady');
    const outcome = await runTick(config, ports);
    expect(outcome.result).toBe('skipped');
    expect(sleeps(world)).toEqual([startJitterDelayMs('1b4e28ba-2fa1-11d2-883f-0016d3cca427', 600_000)]);
  });
});
