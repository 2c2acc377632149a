import { describe, expect, it } from 'vitest';
import { simDigest } from '../src/sim/index.js';
import { aHaltEdge, HOUR } from './support/halt-edge.js';

// PREPULL_OUTSIDE_WINDOW=on (docs/behaviour.md §3.4d): what staging ahead of
// the window pulls is the plan the window holds, and only that — a fleet
// halt's pin-back is never held (§3.4b), so it is staged as it goes, not ahead.

const JM = 'tracebloc/jobs-manager';
const RM = 'tracebloc/resource-monitor';
/** Friday 2026-01-02, 01:00Z on the simulator's clock: inside `Fri 01:00-04:00 UTC`. */
const FRIDAY_1AM = 25 * HOUR;

describe('staging ahead of the window beside a fleet halt', () => {
  it("stages only the held build ahead; the halt's pin-back is staged in its own re-image", async () => {
    const edge = aHaltEdge({
      MAINTENANCE_WINDOW: 'Fri 01:00-04:00 UTC',
      PREPULL: 'on',
      PREPULL_OUTSIDE_WINDOW: 'on',
    });
    const jm1 = simDigest(`${JM}#1`);
    const jm2 = simDigest(`${JM}#2`);
    expect((await edge.tick()).exitCode).toBe(0);
    // Build 2 rolled out in the last window; the fleet then halted it, with build 1 as the pin.
    edge.world.clockMs = FRIDAY_1AM;
    edge.world.publish(JM, jm2);
    expect((await edge.tick()).reimages).toHaveLength(2);
    edge.world.clockMs = FRIDAY_1AM + 12 * HOUR;
    edge.world.sign(JM, jm1);
    edge.publishHalt({ [JM]: { digests: [jm2], pin: jm1 } });
    edge.world.publish(RM, simDigest(`${RM}#2`));
    const outcome = await edge.tick();
    expect(outcome.reimages.map((r) => r.workload.id)).toEqual(['jobs-manager', 'requests-proxy']);
    expect(outcome.held).toEqual([expect.objectContaining({ image: 'resource-monitor', reason: 'outsideWindow' })]);
    expect(edge.calls().filter((c) => c.startsWith('stageImages'))).toEqual([
      'stageImages resource-monitor',
      'stageImages jobs-manager requests-proxy',
    ]);
  });
});
