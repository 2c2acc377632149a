import { describe, expect, it } from 'vitest';

// A mutant that breaks the machine's definition (a target, an initial state, the
// machine id) throws while tick-machine.ts loads. Vitest then fails every test
// FILE that imports it statically, with no test run — and Stryker's vitest
// runner counts a run in which no test failed as a survivor. Importing here,
// inside a test, turns that crash into a failed test, so Stryker sees it
// (pnpm mutation, test/spec/README.md). Nothing in this file may import src
// statically.

describe('the tick machine', () => {
  it('loads and runs a first tick to completion: digests recorded, nothing re-imaged', async () => {
    const { runTick } = await import('../src/run-tick.js');
    const { SimWorld, simConfig, simPorts } = await import('../src/sim/index.js');
    const config = simConfig();
    const world = new SimWorld(config);
    const outcome = await runTick(config, simPorts(world));
    expect([outcome.result, outcome.exitCode]).toEqual(['complete', 0]);
    expect(outcome.writes.map((w) => w.kind)).toEqual(['recordTopologyFingerprint', 'recordDigests']);
    expect(outcome.reimages).toEqual([]);
  });
});
