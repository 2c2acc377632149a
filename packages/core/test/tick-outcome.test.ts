import { describe, expect, it } from 'vitest';
import { runTickFromEnvironment } from '../src/run-tick.js';
import { SIM_ENVIRONMENT, SimWorld, simConfig, simDigest, simPorts } from '../src/sim/index.js';
import { ANNOTATION } from './support/chart.js';
import { anEdge, aSteadyEdge, JM } from './support/edge.js';

// What a tick hands back besides its exit code — the account the CLI prints
// and `status` reads: the writes that landed, each re-image and whether it
// rolled out, what the settled guard saw, and the events from banner to end.
// Each case states its edge; Stryker showed these fields unread (pnpm mutation).

const STREAK = ANNOTATION.skipStreak;

describe('the outcome of a tick', () => {
  it('a frozen tick still reports the streak it wrote, and what it saw', async () => {
    const edge = anEdge();
    edge.world.setBehaviour('jobs-manager', 'neverReady');
    edge.world.setAnnotation(STREAK, '7');
    const outcome = await edge.tick();
    expect(outcome.result).toBe('frozen');
    expect(outcome.writes).toEqual([{ kind: 'writeSkipStreak', annotations: { [STREAK]: '8' } }]);
    expect(outcome.settledness?._tag).toBe('Waiting');
  });

  it('a settled tick opens with the banner, ends with "tick complete", and keeps what it saw', async () => {
    const edge = await aSteadyEdge();
    const outcome = await edge.tick();
    expect(edge.codes()[0]).toBe('TICK_START');
    expect(edge.codes().at(-1)).toBe('TICK_COMPLETE');
    expect(outcome.settledness).toEqual({
      _tag: 'Settled',
      message: 'deployment "stg-jobs-manager" successfully rolled out',
    });
  });

  it('an unreadable jobs-manager reports no settledness at all', async () => {
    const edge = anEdge();
    edge.world.deleteGate();
    expect((await edge.tick()).settledness).toBeUndefined();
  });

  it('the flap marker write is reported with the attempt it records (I10)', async () => {
    const edge = await aSteadyEdge();
    edge.world.setAnnotation(ANNOTATION.refreshAttempt, '4');
    edge.world.publish(JM, simDigest(`${JM}#2`));
    const outcome = await edge.tick();
    expect(outcome.writes).toEqual([{ kind: 'markFlapDetected', annotations: { [ANNOTATION.flapDetected]: '4' } }]);
    expect(edge.codes().at(-1)).toBe('TICK_COMPLETE');
  });

  it('the attempt write is reported as previous+1, and each re-image says whether it rolled out (I9)', async () => {
    const edge = await aSteadyEdge();
    edge.world.setAnnotation(ANNOTATION.refreshAttempt, '1');
    edge.world.publish(JM, simDigest(`${JM}#2`));
    edge.world.setBehaviour('requests-proxy', 'stalls');
    const outcome = await edge.tick();
    expect(outcome.writes).toEqual([
      { kind: 'writeRefreshAttempt', annotations: { [ANNOTATION.refreshAttempt]: '2' } },
    ]);
    expect(outcome.reimages.map((r) => [r.workload.id, r.rolledOut])).toEqual([
      ['jobs-manager', true],
      ['requests-proxy', false],
    ]);
  });
});

describe('a configuration error', () => {
  it('is one error event per problem, and nothing written or re-imaged', async () => {
    const world = new SimWorld(simConfig());
    const outcome = await runTickFromEnvironment({ ...SIM_ENVIRONMENT, MAX_SKIP_TICKS: 'abc' }, () => simPorts(world));
    expect(outcome.events.map((e) => [e.level, e.code])).toEqual([['error', 'CONFIG_INVALID']]);
    expect(outcome.findings).toEqual(outcome.events);
    expect(outcome.writes).toEqual([]);
    expect(outcome.reimages).toEqual([]);
  });
});

describe('the digest changes a tick reports', () => {
  it('name each drift it acted on, from and to', async () => {
    const edge = await aSteadyEdge();
    edge.world.publish(JM, simDigest(`${JM}#2`));
    expect((await edge.tick()).digestChanges).toEqual([
      { image: 'jobs-manager', from: simDigest(`${JM}#1`), to: simDigest(`${JM}#2`) },
    ]);
  });

  it('are none when the drift was deferred for a low pull budget (I7b), nor on a steady tick', async () => {
    const edge = await aSteadyEdge();
    expect((await edge.tick()).digestChanges).toEqual([]);
    edge.world.publish(JM, simDigest(`${JM}#2`));
    edge.world.rateLimitRemaining = 1;
    const deferred = await edge.tick();
    expect(edge.codes()).toContain('REGISTRY_BUDGET_LOW');
    expect(deferred.digestChanges).toEqual([]);
  });

  it('are none when the tick never got to compare', async () => {
    const edge = anEdge();
    edge.world.deleteGate();
    expect((await edge.tick()).digestChanges).toEqual([]);
  });
});
