import * as E from 'fp-ts/lib/Either.js';
import { describe, expect, it } from 'vitest';
import { formatPendingDigest, parsePendingDigest, rfc3339 } from '../src/domain/pending-digest.js';
import { transport } from '../src/domain/port-error.js';
import { kubernetesEventsFor } from '../src/machine/kubernetes-events.js';
import { runTick, runTickAsActor, type TickPorts } from '../src/run-tick.js';
import { SimWorld, simConfig, simDigest, simPorts } from '../src/sim/index.js';
import { SIM_EPOCH_MS } from '../src/sim/sim-ports.js';

// docs/behaviour.md §3.4a step 2: a changed digest is acted on only
// once this edge's own pending record says it is MIN_DIGEST_AGE + ROLLOUT_RING
// × RING_DELAY old; time is the simulator's virtual clock, driven here.

const JM = 'tracebloc/jobs-manager';
const PENDING = 'tracebloc.io/pending-jobs-manager-digest';
const RECORD = 'tracebloc.io/last-refreshed-jobs-manager-digest';
const HOUR = 3_600_000;
const MINUTE = 60_000;

/** A fresh edge whose first tick has recorded build 1 of everything. */
const edge = async (env: Record<string, string>) => {
  const config = simConfig(env);
  const world = new SimWorld(config);
  const ports = simPorts(world);
  const first = await runTick(config, ports);
  expect(first.result).toBe('complete');
  return { config, world, ports, tick: () => runTick(config, ports) };
};

const apiImage = (world: SimWorld): string | undefined => world.workload('jobs-manager').images.api;
const lines = (outcome: { events: readonly { code: string; message: string }[] }, code: string) =>
  outcome.events.filter((e) => e.code === code).map((e) => e.message);
const pendingWrites = (outcome: { writes: readonly { kind: string; annotations: unknown }[] }) =>
  outcome.writes.filter((w) => w.kind === 'writePendingDigests');

describe('the pending record', () => {
  it('is `<digest> <RFC 3339 time first seen>` and reads back', () => {
    const d = simDigest('x');
    const value = formatPendingDigest({ digest: d, firstSeenMs: Date.UTC(2026, 11, 1, 12, 5, 7, 450) });
    expect(value).toBe(`${d} 2026-12-01T12:05:07Z`);
    expect(parsePendingDigest(value)).toEqual({ digest: d, firstSeenMs: Date.UTC(2026, 11, 1, 12, 5, 7) });
    expect(parsePendingDigest(`${d} 2026-12-01T13:05:07+01:00`)?.firstSeenMs).toBe(Date.UTC(2026, 11, 1, 12, 5, 7));
    for (const bad of ['', d, `${d} yesterday`, `sha256:nope ${rfc3339(0)}`, `${d} ${rfc3339(0)} extra`]) {
      expect(parsePendingDigest(bad)).toBeUndefined();
    }
  });
});

describe('MIN_DIGEST_AGE and ROLLOUT_RING', () => {
  it('a new digest waits, said once per tick, then rolls on a later tick; the record removes the pending annotation', async () => {
    const e = await edge({ MIN_DIGEST_AGE: '1h', ROLLOUT_RING: '1', RING_DELAY: '1h' });
    const build2 = simDigest('jm 2');
    e.world.publish(JM, build2);
    e.world.clockMs = 12 * HOUR; // 2026-01-01T12:00Z
    const seen = await e.tick();
    expect(seen.exitCode).toBe(0);
    expect(seen.reimages).toEqual([]);
    expect(pendingWrites(seen)).toEqual([
      { kind: 'writePendingDigests', annotations: { [PENDING]: `${build2} 2026-01-01T12:00:00Z` } },
    ]);
    expect(lines(seen, 'DIGEST_SOAK_STARTED')).toEqual([
      `${JM}@${build2.slice(0, 19)}… first seen 0s ago; acting after 14:00Z (MIN_DIGEST_AGE=1h, ring 1 × RING_DELAY=1h)`,
    ]);
    expect(kubernetesEventsFor(seen).map((k) => k.reason)).toContain('RefreshDigestSoakStarted');

    e.world.clockMs += 20 * MINUTE;
    const waiting = await e.tick();
    expect(waiting.exitCode).toBe(0);
    expect(waiting.writes).toEqual([]);
    expect(waiting.reimages).toEqual([]);
    expect(lines(waiting, 'DIGEST_SOAKING')).toEqual([
      `${JM}@${build2.slice(0, 19)}… first seen 20m ago; acting after 14:00Z (MIN_DIGEST_AGE=1h, ring 1 × RING_DELAY=1h)`,
    ]);
    expect(kubernetesEventsFor(waiting).map((k) => k.reason)).not.toContain('RefreshDigestSoakStarted');
    expect(apiImage(e.world)).toBe(`docker.io/${JM}:stg`);

    e.world.clockMs = 14 * HOUR;
    const due = await e.tick();
    expect(due.result).toBe('complete');
    expect(lines(due, 'DIGEST_SOAKED')).toHaveLength(1);
    expect(kubernetesEventsFor(due).map((k) => k.reason)).toContain('RefreshDigestSoaked');
    expect(apiImage(e.world)).toBe(`docker.io/${JM}@${build2}`);
    const record = due.writes.find((w) => w.kind === 'recordDigests');
    expect(record?.annotations).toEqual({ [RECORD]: build2, [PENDING]: null });
    expect(e.world.annotations[PENDING]).toBeUndefined();
  });

  it('a tag that moves again restarts the clock for the new digest', async () => {
    const e = await edge({ MIN_DIGEST_AGE: '1h' });
    e.world.publish(JM, simDigest('jm 2'));
    await e.tick();
    e.world.clockMs += 50 * MINUTE;
    const build3 = simDigest('jm 3');
    e.world.publish(JM, build3);
    const moved = await e.tick();
    expect(pendingWrites(moved)[0]?.annotations).toEqual({
      [PENDING]: `${build3} ${rfc3339(SIM_EPOCH_MS + e.world.clockMs)}`,
    });
    expect(lines(moved, 'DIGEST_SOAK_STARTED')).toHaveLength(1);
    e.world.clockMs += 30 * MINUTE;
    expect((await e.tick()).reimages).toEqual([]);
    e.world.clockMs += 31 * MINUTE;
    expect((await e.tick()).reimages.map((r) => r.workload.id)).toEqual(['jobs-manager', 'requests-proxy']);
  });

  it('a tag moved back to the recorded digest removes the superseded pending record', async () => {
    const e = await edge({ MIN_DIGEST_AGE: '1h' });
    const build1 = e.world.registry.get(`${JM}:stg`) ?? '';
    e.world.publish(JM, simDigest('jm 2'));
    await e.tick();
    e.world.publish(JM, build1);
    const back = await e.tick();
    expect(pendingWrites(back)).toEqual([{ kind: 'writePendingDigests', annotations: { [PENDING]: null } }]);
    expect(e.world.annotations[PENDING]).toBeUndefined();
  });

  it('first observation is not delayed: it rolls nothing', async () => {
    const config = simConfig({ MIN_DIGEST_AGE: '1h' });
    const world = new SimWorld(config);
    const outcome = await runTick(config, simPorts(world));
    expect(outcome.writes.map((w) => w.kind)).toEqual(['recordTopologyFingerprint', 'recordDigests']);
    expect(world.calls.map((c) => c.op)).not.toContain('readClock');
  });

  it('an unparsable pending value counts as first seen now, with a WARN', async () => {
    const e = await edge({ MIN_DIGEST_AGE: '1h' });
    const build2 = simDigest('jm 2');
    e.world.publish(JM, build2);
    e.world.annotations[PENDING] = `${build2} last tuesday`;
    e.world.clockMs += 5 * HOUR;
    const outcome = await e.tick();
    expect(outcome.exitCode).toBe(0);
    expect(outcome.reimages).toEqual([]);
    expect(lines(outcome, 'PENDING_DIGEST_UNPARSABLE')[0]).toMatch(/^WARN: tracebloc.io\/pending-jobs-manager-digest/);
    expect(e.world.annotations[PENDING]).toBe(`${build2} ${rfc3339(SIM_EPOCH_MS + e.world.clockMs)}`);
  });

  it('an unreadable pending record fails closed: no re-image that tick, a WARN', async () => {
    const e = await edge({ MIN_DIGEST_AGE: '1h' });
    const build2 = simDigest('jm 2');
    e.world.publish(JM, build2);
    e.world.annotations[PENDING] = `${build2} ${rfc3339(SIM_EPOCH_MS - 10 * HOUR)}`;
    // The tick's reads: guard, skip streak, recorded digests, then the age check's.
    e.world.armClusterFault({ op: 'readGate', readIndex: 3 }, 'Forbidden', 1);
    const outcome = await e.tick();
    expect(outcome.exitCode).toBe(0);
    expect(outcome.reimages).toEqual([]);
    expect(outcome.writes).toEqual([]);
    expect(lines(outcome, 'PENDING_DIGEST_UNREADABLE')[0]).toMatch(/^WARN: could not read the pending digests/);
    expect((await e.tick()).reimages.length).toBeGreaterThan(0);
  });

  it('without a clock port a digest that needs an age is held back (fail closed), with a WARN', async () => {
    const e = await edge({ MIN_DIGEST_AGE: '1h' });
    e.world.publish(JM, simDigest('jm 2'));
    e.world.annotations[PENDING] = `${simDigest('jm 2')} ${rfc3339(SIM_EPOCH_MS - 10 * HOUR)}`;
    const { clock: _clock, ...noClock } = e.ports;
    const outcome = await runTick(e.config, noClock as TickPorts);
    expect(outcome.reimages).toEqual([]);
    expect(lines(outcome, 'CLOCK_UNAVAILABLE')[0]).toMatch(/no clock port/);
    const broken: TickPorts = {
      ...e.ports,
      clock: {
        now: () => () => Promise.resolve(E.left(transport('ntp'))),
        sleep: () => () => Promise.resolve(E.right(undefined)),
      },
    };
    expect((await runTick(e.config, broken)).reimages).toEqual([]);
  });

  it('a clock that went backwards never makes a digest older', async () => {
    const e = await edge({ MIN_DIGEST_AGE: '1h' });
    e.world.clockMs = 10 * HOUR;
    e.world.publish(JM, simDigest('jm 2'));
    await e.tick();
    e.world.clockMs = 2 * HOUR; // the node's clock was set back 8h
    const back = await e.tick();
    expect(back.reimages).toEqual([]);
    expect(back.writes).toEqual([]);
    e.world.clockMs = 10 * HOUR + 59 * MINUTE;
    expect((await e.tick()).reimages).toEqual([]);
    e.world.clockMs = 11 * HOUR;
    expect((await e.tick()).reimages.length).toBeGreaterThan(0);
  });

  it('a failed pending write keeps the digest held and says so', async () => {
    const e = await edge({ MIN_DIGEST_AGE: '1h' });
    e.world.publish(JM, simDigest('jm 2'));
    e.world.injectClusterFault('patchBookkeeping', 'Forbidden', 1, 'tracebloc.io/pending-');
    const outcome = await e.tick();
    expect(outcome.exitCode).toBe(0);
    expect(outcome.reimages).toEqual([]);
    expect(lines(outcome, 'PENDING_DIGEST_WRITE_FAILED')).toHaveLength(1);
  });

  it('the machine run as an xstate actor (provideTickPorts) soaks alike: the clock and the wait are actors there too', async () => {
    const [a, b] = [
      await edge({ MIN_DIGEST_AGE: '1h', START_JITTER: '1m' }),
      await edge({ MIN_DIGEST_AGE: '1h', START_JITTER: '1m' }),
    ];
    for (const e of [a, b]) e.world.publish(JM, simDigest('jm 2'));
    const folded = await a.tick();
    const asActor = await runTickAsActor(b.config, b.ports);
    expect(asActor.events).toEqual(folded.events);
    expect(asActor.writes).toEqual(folded.writes);
    expect(b.world.calls.map((c) => c.op)).toEqual(a.world.calls.map((c) => c.op));
    expect(folded.events.map((e) => e.code)).toEqual(expect.arrayContaining(['START_JITTER', 'DIGEST_SOAK_STARTED']));
  });

  it('with the defaults the check reads nothing, writes nothing and never asks the clock', async () => {
    const e = await edge({});
    e.world.publish(JM, simDigest('jm 2'));
    const before = e.world.calls.length;
    const outcome = await e.tick();
    expect(outcome.reimages.length).toBe(2);
    expect(e.world.calls.slice(before).filter((c) => c.op === 'readClock' || c.op === 'sleep')).toEqual([]);
    expect(e.world.calls.slice(before).filter((c) => c.op === 'readGate')).toHaveLength(4);
  });
});
