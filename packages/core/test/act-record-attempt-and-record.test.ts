import { describe, expect, it } from 'vitest';
import type { Profile } from '../src/config/profile/profile.js';
import { runTick } from '../src/run-tick.js';
import { SimWorld, simConfig, simDigest, simPorts } from '../src/sim/index.js';
import { SHOP_PROFILE } from '../src/sim/sim-shop.js';
import { aSteadyEdge, JM } from './support/edge.js';
import { withFailingClock } from './support/failing-clock.js';

// The attempt a re-image persists (docs/behaviour.md §3.5, I9) and the one
// digest record that ends a re-image tick (§3.8): its line, and its times
// under PUSHGATEWAY_URL when the clock cannot be read (docs/fleet-promotion.md).

const ATTEMPT = 'tracebloc.io/refresh-attempt';
const JM_RECORD = 'tracebloc.io/last-refreshed-jobs-manager-digest';

describe('the attempt a re-image persists', () => {
  it('counts on from the attempts an earlier failure left, with OWNERSHIP_CHECK=off too', async () => {
    const edge = await aSteadyEdge({ OWNERSHIP_CHECK: 'off' });
    // One failed re-image before this tick (the flap counter, §3.5): this one is attempt 2 of 3.
    edge.world.setAnnotation(ATTEMPT, '1');
    const build2 = simDigest('jm 2');
    edge.world.publish(JM, build2);
    const outcome = await edge.tick();
    expect(outcome.result).toBe('complete');
    expect(edge.writes()[0]).toBe('writeRefreshAttempt 2');
    expect(edge.line('REIMAGING')).toBe('re-imaging control-plane workloads (attempt 2/3)');
  });
});

describe('the record of a tick gated on a DaemonSet', () => {
  it('says it updates the daemonset’s annotations, naming each key it writes', async () => {
    // The shop of docs/profiles.md with its agent DaemonSet as the gate.
    const agentGated: Profile = {
      ...SHOP_PROFILE,
      gate: 'agent',
      workloads: SHOP_PROFILE.workloads.map((w) => (w.id === 'agent' ? { ...w, decoupled: false } : w)),
    };
    const config = simConfig({}, agentGated);
    const world = new SimWorld(config);
    const ports = simPorts(world);
    expect((await runTick(config, ports)).result).toBe('complete');
    const agent2 = simDigest('agent 2');
    world.publish('shop/agent', agent2);
    const outcome = await runTick(config, ports);
    expect(outcome.result).toBe('complete');
    expect(outcome.events.filter((e) => e.code === 'RECORDING_DIGESTS').map((e) => e.message)).toEqual([
      `updating daemonset annotations: shop.example.com/last-refreshed-agent-digest=${agent2}`,
    ]);
    expect(world.annotations['shop.example.com/last-refreshed-agent-digest']).toBe(agent2);
  });
});

describe('the record’s times when the clock cannot be read (PUSHGATEWAY_URL set)', () => {
  it('records the digests without their times, said as a WARN, and the tick completes', async () => {
    const config = simConfig({ PUSHGATEWAY_URL: 'http://127.0.0.1:9091' });
    const world = new SimWorld(config);
    let clockGone = false;
    const ports = withFailingClock(simPorts(world), () => clockGone);
    expect((await runTick(config, ports)).result).toBe('complete');
    clockGone = true;
    const build2 = simDigest('jm 2');
    world.publish(JM, build2);
    const outcome = await runTick(config, ports);
    expect(outcome.result).toBe('complete');
    expect(outcome.exitCode).toBe(0);
    expect(outcome.events.filter((e) => e.code === 'RECORD_TIME_UNREAD')).toEqual([
      {
        level: 'warn',
        code: 'RECORD_TIME_UNREAD',
        message:
          "WARN: could not read the clock for the record's times (Transport: clock gone); the digests are recorded without them, and promote counts this edge's evidence only from its next recorded digest.",
      },
    ]);
    expect(outcome.writes.find((w) => w.kind === 'recordDigests')?.annotations).toEqual({ [JM_RECORD]: build2 });
    expect(world.annotations[JM_RECORD]).toBe(build2);
    expect(world.annotations['tracebloc.io/last-refreshed-jobs-manager-at']).toBeUndefined();
  });
});
