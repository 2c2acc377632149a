import { describe, expect, it } from 'vitest';
import { runTick } from '../src/run-tick.js';
import { SimWorld, simConfig, simDigest, simPorts } from '../src/sim/index.js';

// The three admission checks together (docs/behaviour.md §3.4a): what one
// check leaves behind must not confuse another. Assertions are on the
// annotations the simulated cluster holds and the writes it received.

const JM = 'tracebloc/jobs-manager';
const PENDING = 'tracebloc.io/pending-jobs-manager-digest';
const QUARANTINE = 'tracebloc.io/quarantined-jobs-manager-digest';
const HOUR = 3_600_000;

const anEdge = async (env: Record<string, string>) => {
  const config = simConfig(env);
  const world = new SimWorld(config);
  const ports = simPorts(world);
  expect((await runTick(config, ports)).result).toBe('complete');
  return { world, tick: () => runTick(config, ports) };
};

describe('soak, then the way back', () => {
  it('a build that soaked, rolled and failed is quarantined in the same write that removes its pending record', async () => {
    const { world, tick } = await anEdge({ MIN_DIGEST_AGE: '1h', ON_ROLLOUT_FAILURE: 'revert' });
    const bad = simDigest(`${JM}#2`);
    world.breakBuild(bad);
    world.publish(JM, bad);
    expect((await tick()).result).toBe('soaking');
    expect(world.annotations[PENDING]).toMatch(new RegExp(`^${bad} `));

    world.clockMs += HOUR;
    const failed = await tick();
    expect(failed.result).toBe('rolledBack');
    const quarantine = failed.writes.find((w) => w.kind === 'quarantineDigests');
    expect(quarantine?.annotations).toEqual({ [QUARANTINE]: bad, [PENDING]: null });
    // A quarantined digest no longer soaks: status shows no pending record for it.
    expect(world.annotations[PENDING]).toBeUndefined();
    expect(world.annotations[QUARANTINE]).toBe(bad);
  });
});

describe("a held drift's verdict line (docs/behaviour.md §3.4a)", () => {
  const verdictLine = (outcome: { events: readonly { code: string; message: string }[] }) =>
    outcome.events.find((e) => e.code === 'DIGEST_CHANGED' && e.message.startsWith(`${JM}:`))?.message;

  it('says which check held it back, not "re-image needed"', async () => {
    const { world, tick } = await anEdge({ MIN_DIGEST_AGE: '1h' });
    world.publish(JM, simDigest(`${JM}#2`));
    expect(verdictLine(await tick())).toMatch(/; held back by the soak \(not yet old enough on this edge\)$/);
    world.clockMs += HOUR;
    expect(verdictLine(await tick())).toMatch(/; re-image needed$/);
  });

  it('a quarantined digest says so', async () => {
    const { world, tick } = await anEdge({ ON_ROLLOUT_FAILURE: 'revert' });
    const bad = simDigest(`${JM}#2`);
    world.breakBuild(bad);
    world.publish(JM, bad);
    expect((await tick()).result).toBe('rolledBack');
    expect(verdictLine(await tick())).toMatch(/; held back by the quarantine$/);
  });
});
