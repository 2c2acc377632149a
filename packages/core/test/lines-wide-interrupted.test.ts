import * as TE from 'fp-ts/lib/TaskEither.js';
import { describe, expect, it } from 'vitest';
import type { BookkeepingChanges } from '../src/domain/bookkeeping.js';
import type { Digest } from '../src/domain/digest.js';
import { interruptedBy } from '../src/machine/interrupted.js';
import type { TickOutcome } from '../src/machine/tick-outcome.js';
import { runTick, type TickPorts } from '../src/run-tick.js';
import { SimWorld, simConfig, simDigest, simPorts } from '../src/sim/index.js';
import { ANNOTATION } from './support/chart.js';
import { aSteadyEdge, JM } from './support/edge.js';
import { aSteadyPromotionEdge } from './support/promotion-edge.js';

// The INTERRUPTED line (docs/behaviour.md §3, Signals) names the bookkeeping write or
// the read a SIGTERM cut short: the registry-silence streak, the topology
// fingerprint, the fleet promotion's record and its document (I18's extension).

/** The ports with the tick's signal aborted by SIGTERM as the first patch writing or removing `key` is sent; that patch never lands. */
const cutOffAtPatchOf = (ports: TickPorts, key: string, controller: AbortController): TickPorts => ({
  ...ports,
  cluster: {
    ...ports.cluster,
    patchBookkeeping: (changes: BookkeepingChanges) => {
      if (controller.signal.aborted || !(key in changes)) return ports.cluster.patchBookkeeping(changes);
      controller.abort(interruptedBy('SIGTERM'));
      return TE.left({ _tag: 'Transport', message: 'aborted' });
    },
  },
});

const tickCutOffAt = async (config: Parameters<typeof runTick>[0], ports: TickPorts, key: string) => {
  const controller = new AbortController();
  return runTick(config, cutOffAtPatchOf(ports, key, controller), { signal: controller.signal });
};

const interruptedLine = (outcome: TickOutcome): string | undefined => {
  expect([outcome.result, outcome.exitCode]).toEqual(['interrupted', 143]);
  const line = outcome.events.at(-1);
  expect(line?.code).toBe('INTERRUPTED');
  return line?.message;
};

describe('a signal during a bookkeeping write names that write', () => {
  it('counting a silent registry: the resolve-failure streak', async () => {
    const edge = await aSteadyEdge();
    edge.world.injectRegistryFault(JM, 'Transport');
    const { config, world } = edge;
    const outcome = await tickCutOffAt(config, simPorts(world), ANNOTATION.resolveFailureStreak);
    expect(interruptedLine(outcome)).toBe(
      'interrupted by SIGTERM while writing refresh-resolve-failure-streak: refresh-attempt unchanged, digests not recorded',
    );
  });

  it('a registry answering again: clearing the resolve-failure streak', async () => {
    const edge = await aSteadyEdge();
    edge.world.setAnnotation(ANNOTATION.resolveFailureStreak, '2');
    const { config, world } = edge;
    const outcome = await tickCutOffAt(config, simPorts(world), ANNOTATION.resolveFailureStreak);
    expect(interruptedLine(outcome)).toBe(
      'interrupted by SIGTERM while clearing refresh-resolve-failure-streak: refresh-attempt unchanged, digests not recorded',
    );
  });

  it("a first tick's ownership check: recording the topology fingerprint", async () => {
    const config = simConfig();
    const world = new SimWorld(config);
    const outcome = await tickCutOffAt(config, simPorts(world), ANNOTATION.topologyFingerprint);
    expect(interruptedLine(outcome)).toBe(
      'interrupted by SIGTERM while recording the topology fingerprint: refresh-attempt unchanged, digests not recorded',
    );
  });
});

describe("a signal during the fleet promotion's bookkeeping (docs/fleet-promotion.md)", () => {
  const JM2 = simDigest(`${JM}#2`) as Digest;
  it('recording a verified promotion', async () => {
    const edge = await aSteadyPromotionEdge();
    edge.publishPromotion([{ image: 'jobs-manager', digest: JM2, ring: 1 }]);
    const outcome = await tickCutOffAt(edge.config, edge.ports, ANNOTATION.fleetPromotionDigest);
    expect(interruptedLine(outcome)).toBe(
      'interrupted by SIGTERM while recording the verified fleet promotion: refresh-attempt unchanged, digests not recorded',
    );
  });

  it('removing the record of a withdrawn promotion', async () => {
    const edge = await aSteadyPromotionEdge();
    edge.publishPromotion([{ image: 'jobs-manager', digest: JM2, ring: 1 }]);
    await edge.tick();
    edge.withdrawPromotion();
    const outcome = await tickCutOffAt(edge.config, edge.ports, ANNOTATION.fleetPromotionDigest);
    expect(interruptedLine(outcome)).toBe(
      'interrupted by SIGTERM while removing the record of the withdrawn fleet promotion: refresh-attempt unchanged, digests not recorded',
    );
  });

  it("reading a new promotion's document: nothing of it was acted on", async () => {
    const edge = await aSteadyPromotionEdge();
    edge.publishPromotion([{ image: 'jobs-manager', digest: JM2, ring: 1 }]);
    const { fleetPromotion } = edge.ports;
    if (fleetPromotion === undefined) throw new Error('setup: a ring-1 edge reads its promotion');
    const controller = new AbortController();
    const ports: TickPorts = {
      ...edge.ports,
      fleetPromotion: {
        readDocument: (target) => {
          controller.abort(interruptedBy('SIGTERM'));
          return fleetPromotion.readDocument(target);
        },
      },
    };
    const outcome = await runTick(edge.config, ports, { signal: controller.signal });
    expect(interruptedLine(outcome)).toBe(
      'interrupted by SIGTERM while reading the fleet promotion (nothing of it was acted on): refresh-attempt unchanged, digests not recorded',
    );
  });
});
