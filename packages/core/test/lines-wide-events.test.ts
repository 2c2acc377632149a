import { describe, expect, it } from 'vitest';
import type { Digest } from '../src/domain/digest.js';
import { kubernetesEventsFor } from '../src/machine/kubernetes-events.js';
import type { TickEvent } from '../src/machine/tick-event.js';
import type { TickOutcome } from '../src/machine/tick-outcome.js';
import { runTick } from '../src/run-tick.js';
import { SimWorld, simConfig, simDigest, simPorts } from '../src/sim/index.js';
import { ANNOTATION } from './support/chart.js';
import { aSteadyEdge, JM } from './support/edge.js';
import { aSteadyPromotionEdge } from './support/promotion-edge.js';

// The Kubernetes Event a tick records for a held window, an unverifiable fleet
// promotion and its failed bookkeeping write (docs/events.md: type and reason are
// a contract operators alert on), and the outcome's window and unresolved fields.

const HOUR = 3_600_000;
const MINUTE = 60_000;
/** Friday 2026-01-02, 01:00Z on the simulator's clock (0 is Thursday 2026-01-01T00:00Z). */
const FRIDAY_1AM = 25 * HOUR;
const JM2 = simDigest(`${JM}#2`) as Digest;

/** The one line of this code the tick said. */
const lineOf = (outcome: TickOutcome, code: TickEvent['code']): string => {
  const lines = outcome.events.filter((e) => e.code === code).map((e) => e.message);
  expect(lines).toHaveLength(1);
  return lines[0] ?? '';
};

describe('a plan without room in the maintenance window (§3.4d)', () => {
  const aHeldTick = async () => {
    const config = simConfig({ MAINTENANCE_WINDOW: 'Fri 01:00-01:30 UTC', WINDOW_MARGIN: '2m' });
    const world = new SimWorld(config);
    const ports = simPorts(world);
    expect((await runTick(config, ports)).result).toBe('complete');
    world.publish(JM, simDigest('jm 2'));
    world.clockMs = FRIDAY_1AM + 15 * MINUTE - 30_000; // 15m30s left; needs 2 × ROLLOUT_TIMEOUT + 2m
    return runTick(config, ports);
  };

  it('records a Normal RefreshWindowWait Event carrying its line', async () => {
    const held = await aHeldTick();
    expect(held.result).toBe('outsideWindow');
    expect(kubernetesEventsFor(held)).toContainEqual({
      type: 'Normal',
      reason: 'RefreshWindowWait',
      message: 'not enough window left: needs ~22m, 15m29s left',
    });
  });

  it("the outcome says the window's judgement: no room, with what the plan needs", async () => {
    const held = await aHeldTick();
    expect(held.window).toMatchObject({ _tag: 'NoRoom', needsMs: 22 * MINUTE });
  });

  it('with MAINTENANCE_WINDOW unset the outcome has no window at all', async () => {
    const edge = await aSteadyEdge();
    edge.world.publish(JM, JM2);
    const outcome = await edge.tick();
    expect(outcome.reimages).toHaveLength(2);
    expect(outcome).not.toHaveProperty('window');
  });
});

describe("a fleet promotion's Events (docs/fleet-promotion.md)", () => {
  it('a promotion whose document cannot be read records a Warning RefreshPromotionUnverified Event', async () => {
    const edge = await aSteadyPromotionEdge();
    edge.publishPromotion([{ image: 'jobs-manager', digest: JM2, ring: 1 }]);
    edge.world.injectHaltDocumentFault('Forbidden');
    const outcome = await edge.tick();
    expect(outcome.exitCode).toBe(1);
    expect(kubernetesEventsFor(outcome)).toContainEqual({
      type: 'Warning',
      reason: 'RefreshPromotionUnverified',
      message: lineOf(outcome, 'FLEET_PROMOTION_UNVERIFIED'),
    });
  });

  it('a verified promotion that cannot be recorded records a Warning RefreshBookkeepingWriteFailed Event', async () => {
    const edge = await aSteadyPromotionEdge();
    edge.world.publish(JM, JM2);
    edge.publishPromotion([{ image: 'jobs-manager', digest: JM2, ring: 1 }]);
    edge.world.injectClusterFault('patchBookkeeping', 'Forbidden', 1, `${ANNOTATION.fleetPromotionDigest}=`);
    const outcome = await edge.tick();
    expect(outcome.result).toBe('complete');
    expect(kubernetesEventsFor(outcome)).toContainEqual({
      type: 'Warning',
      reason: 'RefreshBookkeepingWriteFailed',
      message: lineOf(outcome, 'FLEET_PROMOTION_WRITE_FAILED'),
    });
  });
});

describe("the outcome's unresolved images", () => {
  it('a tick that skipped before asking the registry has none to report, not an empty list', async () => {
    const edge = await aSteadyEdge();
    edge.world.setBehaviour('jobs-manager', 'neverReady');
    const skipped = await edge.tick();
    expect(skipped.result).toBe('skipped');
    expect(skipped).not.toHaveProperty('unresolved');
  });

  it('a tick that asked and resolved everything reports an empty list', async () => {
    const edge = await aSteadyEdge();
    const steady = await edge.tick();
    expect(steady.unresolved).toEqual([]);
  });
});
