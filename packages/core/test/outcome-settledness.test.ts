import { describe, expect, it } from 'vitest';
import { runTick } from '../src/run-tick.js';
import { SimWorld, simConfig, simPorts } from '../src/sim/index.js';

// TickOutcome.settledness is what the settled guard saw of jobs-manager, and
// absent when it could not look (docs/behaviour.md §3.2): the CLI's status
// line and a caller's "was it settled?" read it, so "not read" must not
// appear as a key holding nothing.

describe('the settledness an outcome reports', () => {
  it('is absent when the jobs-manager Deployment could not be read', async () => {
    const config = simConfig();
    const world = new SimWorld(config);
    world.deleteGate();
    const outcome = await runTick(config, simPorts(world));
    expect([outcome.result, outcome.exitCode]).toEqual(['deploymentUnreadable', 1]);
    expect(outcome).not.toHaveProperty('settledness');
  });

  it('is what the guard saw when it could', async () => {
    const config = simConfig();
    const world = new SimWorld(config);
    world.setBehaviour('jobs-manager', 'neverReady');
    const outcome = await runTick(config, simPorts(world));
    expect(outcome.result).toBe('skipped');
    expect(outcome.settledness?._tag).toBe('Waiting');
  });
});
