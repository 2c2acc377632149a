import { describe, expect, it } from 'vitest';
import { runTick } from '../src/index.js';
import type { TickEvent } from '../src/machine/tick-event.js';
import type { TickPorts } from '../src/run-tick.js';
import { SimWorld, simConfig, simDigest, simPorts } from '../src/sim/index.js';
import { MIRROR, MIRRORED_SHOP } from './support/mirrored-shop.js';

// What a tick says and does when it pulls through the mirror
// (MIRROR_MODE=follow-upstream, docs/behaviour.md §3.3): the mirror's batch
// failing as a whole (fail closed), an upstream failure beside a served
// digest, and each miss's whole line.

const STREAK = 'shop.example.com/refresh-resolve-failure-streak';
const PROFILE = MIRRORED_SHOP;

/** The shop behind the mirror, whose batches may fail as a whole (a port rejecting its promise). */
const aMirroredEdge = (options: { mirrorBatchFails?: boolean } = {}) => {
  const config = simConfig({ MIRROR_MODE: 'follow-upstream' }, PROFILE);
  const world = new SimWorld(config);
  const sim = simPorts(world);
  const ports: TickPorts = {
    ...sim,
    registry: {
      resolveDigests: (requests) =>
        options.mirrorBatchFails === true && requests.some((r) => r.host === MIRROR)
          ? () => Promise.reject(new Error('connection reset by the mirror'))
          : sim.registry.resolveDigests(requests),
    },
  };
  return { config, world, tick: () => runTick(config, ports) };
};

/** An edge past its first tick: digests recorded, nothing pending. */
const aSteadyMirroredEdge = async (options: { mirrorBatchFails?: boolean } = {}) => {
  const edge = aMirroredEdge(options);
  const first = await edge.tick();
  if (first.result !== 'complete') throw new Error(`setup: the first tick ended ${first.result}`);
  return edge;
};

const eventsOf = (events: readonly TickEvent[], code: TickEvent['code']) => events.filter((e) => e.code === code);

describe('the mirror asked for a changed digest (MIRROR_MODE=follow-upstream)', () => {
  it('a mirror batch that fails as a whole leaves the changed image waiting (fail closed): said with the failure, counted, never re-imaged', async () => {
    const edge = await aSteadyMirroredEdge({ mirrorBatchFails: true });
    const web2 = simDigest('web 2');
    edge.world.publish('shop/web', web2);
    const outcome = await edge.tick();
    expect(outcome.exitCode).toBe(0);
    expect(outcome.result).toBe('complete');
    expect(outcome.unresolved).toEqual(['web']);
    expect(outcome.reimages).toEqual([]);
    expect(edge.world.workloads.web?.images.web).toBe(`${MIRROR}/shop/web:stg`);
    expect(edge.world.annotations[STREAK]).toBe('1');
    expect(eventsOf(outcome.events, 'MIRROR_NOT_SERVING')).toEqual([
      {
        level: 'warn',
        code: 'MIRROR_NOT_SERVING',
        message: `WARN: mirror ${MIRROR} has not served shop/web@${web2} yet (NotFound: mirror ${MIRROR} has not served ${web2} (Transport: unexpected failure: Error: connection reset by the mirror)); shop/web waits: not re-imaged, not recorded, no attempt spent`,
        hints: [`asking ${MIRROR}/shop/web@${web2} makes a pull-through cache fetch it; the next tick asks again`],
      },
    ]);
  });

  it('an image the upstream did not answer passes the mirror step as its own failure while the served one is pinned', async () => {
    const edge = await aSteadyMirroredEdge();
    const web2 = simDigest('web 2');
    edge.world.publish('shop/web', web2);
    edge.world.injectRegistryFault('shop/log', 'Timeout');
    const outcome = await edge.tick();
    expect(outcome.exitCode).toBe(0);
    expect(outcome.unresolved).toEqual(['log']);
    expect(edge.world.workloads.web?.images.web).toBe(`${MIRROR}/shop/web@${web2}`);
    expect(eventsOf(outcome.events, 'MIRROR_NOT_SERVING')).toEqual([]);
    expect(eventsOf(outcome.events, 'RESOLVE_FAILED').map((e) => e.message)).toEqual([
      'WARN: could not resolve latest digest of shop/log:stg (Timeout: simulated Timeout on registry shop/log); skipping this image this tick, the others go on',
    ]);
  });

  it('a mirror serving another digest is said as MIRROR MISMATCH with what to check', async () => {
    const edge = await aSteadyMirroredEdge();
    const web2 = simDigest('web 2');
    edge.world.publish('shop/web', web2);
    edge.world.mirrorCorrupt.add('shop/web');
    const outcome = await edge.tick();
    expect(outcome.result).toBe('mirrorMismatch');
    expect(eventsOf(outcome.events, 'MIRROR_MISMATCH')).toEqual([
      {
        level: 'error',
        code: 'MIRROR_MISMATCH',
        message: `ERROR: MIRROR MISMATCH: mirror ${MIRROR} answered ${simDigest('shop/web as the mirror has it')} for shop/web@${web2}, the digest the upstream tag names; it is never pinned`,
        hints: [`check what ${MIRROR} serves for shop/web: a mirror must serve the upstream's digests unchanged`],
      },
    ]);
  });
});
