import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isWellFormedDigest } from '../../src/domain/digest.js';
import { requiredDigestAgeMs } from '../../src/domain/digest-age.js';
import { parsePendingDigest, rfc3339, toWholeSeconds } from '../../src/domain/pending-digest.js';
import { runTick, type TickPorts } from '../../src/run-tick.js';
import { SimWorld, simConfig, simDigest, simPorts } from '../../src/sim/index.js';
import { SIM_EPOCH_MS } from '../../src/sim/sim-ports.js';
import { IMAGES } from '../support/chart.js';

// The fleet-safe rollout's invariants (docs/behaviour.md §4, I32–I34), on the
// simulator's clock, which these sequences drive: time passes between ticks,
// the tag moves and moves back, the pending record's read and write fail, the
// node's clock is set back. Each invariant is answered from the world's own log
// and registry — never from the machine's account of itself.

const RUNS = Number(process.env.IMAGE_REFRESH_FLEET_RUNS ?? 150);
const MINUTE = 60_000;
const JM = 'tracebloc/jobs-manager';
const PM = 'tracebloc/pods-monitor';

/** One step between ticks (or a tick). */
type Step =
  | { readonly _tag: 'tick' }
  | { readonly _tag: 'wait'; readonly ms: number }
  | { readonly _tag: 'publish'; readonly repo: string }
  | { readonly _tag: 'moveBack'; readonly repo: string }
  | { readonly _tag: 'clockBack'; readonly ms: number }
  | { readonly _tag: 'pendingReadFails' }
  | { readonly _tag: 'pendingWriteFails' }
  | { readonly _tag: 'unsettled' }
  | { readonly _tag: 'settles' };

const stepArbitrary: fc.Arbitrary<Step> = fc.oneof(
  { arbitrary: fc.constant<Step>({ _tag: 'tick' }), weight: 10 },
  { arbitrary: fc.integer({ min: 1, max: 240 }).map((m): Step => ({ _tag: 'wait', ms: m * MINUTE })), weight: 8 },
  { arbitrary: fc.constantFrom(JM, PM).map((repo): Step => ({ _tag: 'publish', repo })), weight: 2 },
  { arbitrary: fc.constantFrom(JM, PM).map((repo): Step => ({ _tag: 'moveBack', repo })), weight: 1 },
  { arbitrary: fc.integer({ min: 1, max: 600 }).map((m): Step => ({ _tag: 'clockBack', ms: m * MINUTE })), weight: 1 },
  { arbitrary: fc.constant<Step>({ _tag: 'pendingReadFails' }), weight: 1 },
  { arbitrary: fc.constant<Step>({ _tag: 'pendingWriteFails' }), weight: 1 },
  { arbitrary: fc.constant<Step>({ _tag: 'unsettled' }), weight: 1 },
  { arbitrary: fc.constant<Step>({ _tag: 'settles' }), weight: 2 },
);

const soakEnvironment = fc.record({
  MIN_DIGEST_AGE: fc.constantFrom('0s', '30m', '1h', '2h'),
  ROLLOUT_RING: fc.constantFrom('0', '1', '2'),
  RING_DELAY: fc.constantFrom('30m', '1h'),
  START_JITTER: fc.constantFrom('0s', '0s', '5m'),
});

/** What a tag has answered, digest by digest, as the simulated registry holds it. */
class Timeline {
  private builds = 1;
  private readonly previous = new Map<string, string>();
  constructor(private readonly world: SimWorld) {}
  publish(repo: string): void {
    this.builds += 1;
    this.previous.set(repo, this.world.registry.get(`${repo}:stg`) ?? '');
    this.world.publish(repo, simDigest(`${repo}#${this.builds}`));
  }
  moveBack(repo: string): void {
    const before = this.previous.get(repo);
    if (before === undefined || before === '') return;
    this.previous.set(repo, this.world.registry.get(`${repo}:stg`) ?? '');
    this.world.publish(repo, before);
  }
}

const apply = (world: SimWorld, timeline: Timeline, step: Step): void => {
  switch (step._tag) {
    case 'wait':
      world.clockMs += step.ms;
      return;
    case 'clockBack':
      world.clockMs = Math.max(0, world.clockMs - step.ms);
      return;
    case 'publish':
      timeline.publish(step.repo);
      return;
    case 'moveBack':
      timeline.moveBack(step.repo);
      return;
    case 'pendingReadFails':
      // The tick's fourth read of jobs-manager is the age check's (guard, streak, records, pending).
      world.armClusterFault({ op: 'readGate', readIndex: 3 }, 'Transport', 1);
      return;
    case 'pendingWriteFails':
      world.injectClusterFault('patchBookkeeping', 'Forbidden', 1, 'tracebloc.io/pending-');
      return;
    case 'unsettled':
      world.setBehaviour('jobs-manager', 'neverReady');
      return;
    case 'settles':
      world.setBehaviour('jobs-manager', 'settles');
      return;
    case 'tick':
      return;
  }
};

/** How often I32 judged a set-image of a changed digest under a soak: it is not vacuous. */
const judged = { ticks: 0, reimages: 0 };

/**
 * digest → every wall-clock time (whole seconds) at which a tick of this
 * edge resolved the tag to it and read its clock: the only times this edge's
 * own record may say it first saw the digest (a record never backdates).
 */
type Sightings = Map<string, Set<number>>;

const recordKeyOf = (image: string) => IMAGES.find((i) => i.name === image)?.recordKey ?? '';
const pendingKeyOf = (image: string) => IMAGES.find((i) => i.name === image)?.pendingKey ?? '';

/**
 * Run one tick and say which set-images carried a changed digest younger
 * than required by this edge's own record: the pending record the tick found
 * must name that digest, at a time a tick of this edge really saw it, at
 * least the required age before the tick's clock read.
 */
const tickAndJudge = async (
  world: SimWorld,
  ports: TickPorts,
  required: number,
  sightings: Sightings,
): Promise<string[]> => {
  const registryBefore = new Map(world.registry);
  const before = { ...world.annotations };
  const firstCall = world.calls.length;
  await runTick(world.config, ports);
  const calls = world.calls.slice(firstCall);
  const clockRead = calls.find((c) => c.op === 'readClock');
  const nowMs = clockRead === undefined ? undefined : SIM_EPOCH_MS + clockRead.at;
  for (const image of IMAGES) {
    const resolved = calls.some((c) => c.op === 'resolveDigest' && c.detail === image.repo && c.outcome === 'ok');
    const digest = registryBefore.get(`${image.repo}:stg`);
    if (!resolved || digest === undefined || !isWellFormedDigest(digest) || nowMs === undefined) continue;
    sightings.set(digest, (sightings.get(digest) ?? new Set()).add(toWholeSeconds(nowMs)));
  }
  const young: string[] = [];
  if (required > 0) judged.ticks += 1;
  for (const call of calls.filter((c) => c.op === 'setImages' && c.outcome === 'ok')) {
    for (const image of IMAGES) {
      const digest = call.detail.match(new RegExp(`${image.repo}@(\\S+)`))?.[1];
      if (digest === undefined || digest === before[recordKeyOf(image.name)]) continue;
      // With no age required the check is off (the script's tick, I33): a clock set back judges nothing.
      if (required === 0) continue;
      judged.reimages += 1;
      const record = parsePendingDigest(before[pendingKeyOf(image.name)] ?? '');
      const why =
        nowMs === undefined
          ? 'without reading the clock'
          : record === undefined || record.digest !== digest
            ? `without a pending record of it (${before[pendingKeyOf(image.name)] ?? 'none'})`
            : !(sightings.get(digest)?.has(record.firstSeenMs) ?? false)
              ? `by a record of a time no tick saw it (${rfc3339(record.firstSeenMs)})`
              : nowMs - record.firstSeenMs < required
                ? `at age ${nowMs - record.firstSeenMs} ms, required ${required} ms`
                : undefined;
      if (why !== undefined) young.push(`${image.repo}@${digest} set ${why}`);
    }
  }
  return young;
};

describe('fleet-safe rollout invariants on a driven clock', () => {
  it('I32: no set-image carries a digest younger than its required age by this edge’s own record (a time one of its ticks saw it)', async () => {
    await fc.assert(
      fc.asyncProperty(
        soakEnvironment,
        fc.array(stepArbitrary, { minLength: 20, maxLength: 80 }),
        async (env, steps) => {
          const config = simConfig(env);
          const world = new SimWorld(config);
          const ports = simPorts(world);
          const timeline = new Timeline(world);
          const sightings: Sightings = new Map();
          const required = requiredDigestAgeMs(config);
          for (const step of [{ _tag: 'tick' } as Step, ...steps]) {
            apply(world, timeline, step);
            if (step._tag !== 'tick') continue;
            const young = await tickAndJudge(world, ports, required, sightings);
            expect(young, `${JSON.stringify(env)}`).toEqual([]);
          }
        },
      ),
      { numRuns: RUNS },
    );
    expect(
      judged.reimages,
      `set-images of a changed digest judged under a soak, of ${judged.ticks} ticks`,
    ).toBeGreaterThan(RUNS / 10);
  }, 300_000);

  it('I33: with the defaults (MIN_DIGEST_AGE=0s, ROLLOUT_RING=0, START_JITTER=0s) exits and writes are exactly today’s', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('30m', '1h', '3h'),
        fc.array(stepArbitrary, { maxLength: 60 }),
        async (ringDelay, steps) => {
          // Today's tick: no switch set, and no clock port at all (as without the switches, I33).
          const today = new SimWorld(simConfig({}));
          const { clock: _none, ...todayPorts } = simPorts(today);
          // The defaults spelled out, with a clock the tick could call.
          const explicit = new SimWorld(
            simConfig({ MIN_DIGEST_AGE: '0s', ROLLOUT_RING: '0', RING_DELAY: ringDelay, START_JITTER: '0s' }),
          );
          const explicitPorts = simPorts(explicit);
          const timelines = [new Timeline(today), new Timeline(explicit)] as const;
          for (const step of [{ _tag: 'tick' } as Step, ...steps]) {
            apply(today, timelines[0], step);
            apply(explicit, timelines[1], step);
            if (step._tag !== 'tick') continue;
            const [a, b] = [await runTick(today.config, todayPorts), await runTick(explicit.config, explicitPorts)];
            expect({ exit: b.exitCode, result: b.result, writes: b.writes, events: b.events }).toEqual({
              exit: a.exitCode,
              result: a.result,
              writes: a.writes,
              events: a.events,
            });
          }
          const spoken = (w: SimWorld) => w.calls.map((c) => `${c.op} ${c.detail} ${c.outcome}`);
          expect(spoken(explicit)).toEqual(spoken(today));
          expect(explicit.calls.filter((c) => c.op === 'readClock' || c.op === 'sleep')).toEqual([]);
        },
      ),
      { numRuns: RUNS },
    );
  }, 300_000);

  it('I34: a tag that flips back and forth never ages enough to roll', async () => {
    await fc.assert(
      fc.asyncProperty(
        soakEnvironment.filter((env) => requiredDigestAgeMs(simConfig(env)) > 0),
        // Each stay of the tag on one side: 1–4 ticks, time passing between them, all within the required age.
        fc.array(fc.array(fc.integer({ min: 1, max: 29 }), { minLength: 1, maxLength: 4 }), {
          minLength: 2,
          maxLength: 16,
        }),
        fc.boolean(),
        async (env, stays, withWriteFaults) => {
          const config = simConfig({ ...env, START_JITTER: '0s' });
          const required = requiredDigestAgeMs(config);
          const world = new SimWorld(config);
          const ports = simPorts(world);
          await runTick(config, ports); // records build 1
          const good = world.registry.get(`${JM}:stg`) ?? '';
          const flipped = simDigest('jobs-manager, the build that flips');
          for (const [index, waits] of stays.entries()) {
            world.publish(JM, index % 2 === 0 ? flipped : good);
            const total = waits.reduce((a, b) => a + b, 0);
            // Scaled so a whole stay (its waits, and the ticks' own time) stays below the required age.
            const scale = Math.floor((required * 0.9) / total);
            for (const wait of waits) {
              // A first sighting that could not be written (`key=`; a failed removal, `key-`, is the limit
              // docs/behaviour.md §3.4a step 2 names: a flip back on the very next tick).
              if (withWriteFaults && wait % 5 === 0)
                world.injectClusterFault(
                  'patchBookkeeping',
                  'Transport',
                  1,
                  'tracebloc.io/pending-jobs-manager-digest=',
                );
              await runTick(config, ports);
              world.clockMs += wait * scale;
            }
          }
          await runTick(config, ports);
          const rolled = world.calls.filter((c) => c.op === 'setImages' && c.detail.includes(flipped));
          expect(rolled).toEqual([]);
        },
      ),
      { numRuns: RUNS },
    );
  }, 300_000);
});
