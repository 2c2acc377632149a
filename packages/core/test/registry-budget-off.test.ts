import * as E from 'fp-ts/lib/Either.js';
import { describe, expect, it } from 'vitest';
import { parseTickConfig } from '../src/config/parse-config.js';
import { simDigest } from '../src/sim/index.js';
import { aSteadyEdge, JM, RM } from './support/edge.js';

// REGISTRY_BUDGET_FLOOR=off (docs/behaviour.md §5): no budget guard at all —
// the script's behaviour, which skips only the image that answered 429 and
// re-images the others. `0` keeps the guard for a 429 (I7b): any 429 holds
// every re-image back. Each case is run both ways on the same world.

const a429ForJobsManagerAndANewResourceMonitor = async (floor: string) => {
  const edge = await aSteadyEdge({ REGISTRY_BUDGET_FLOOR: floor });
  edge.world.publish(JM, simDigest(`${JM}#2`));
  edge.world.publish(RM, simDigest(`${RM}#2`));
  edge.world.injectRegistryFault(JM, 'RateLimited');
  return edge;
};

describe('REGISTRY_BUDGET_FLOOR=off', () => {
  it('a 429 for jobs-manager skips only that image; resource-monitor is re-imaged, as the script does', async () => {
    const edge = await a429ForJobsManagerAndANewResourceMonitor('off');
    const outcome = await edge.tick();
    expect(outcome.reimages.map((r) => r.workload.id)).toEqual(['resource-monitor']);
    expect(outcome.events.some((e) => e.code === 'REGISTRY_BUDGET_LOW')).toBe(false);
  });

  it('the control, REGISTRY_BUDGET_FLOOR=0: the same 429 holds every re-image back (I7b)', async () => {
    const edge = await a429ForJobsManagerAndANewResourceMonitor('0');
    const outcome = await edge.tick();
    expect(outcome.reimages).toEqual([]);
    expect(outcome.events.some((e) => e.code === 'REGISTRY_BUDGET_LOW')).toBe(true);
  });

  it('a budget of 0 left does not hold a re-image back either', async () => {
    const edge = await aSteadyEdge({ REGISTRY_BUDGET_FLOOR: 'off' });
    edge.world.publish(JM, simDigest(`${JM}#2`));
    edge.world.rateLimitRemaining = 0;
    expect((await edge.tick()).reimages).toHaveLength(2);
  });

  it('anything but a whole number or "off" is exit 2 naming both', () => {
    const parsed = parseTickConfig({
      RELEASE_NAME: 'stg',
      RELEASE_NAMESPACE: 'tracebloc',
      IMAGE_TAG: 'prod',
      REGISTRY_BUDGET_FLOOR: 'none',
    });
    expect(E.isLeft(parsed) && parsed.left.map((e) => e.problem)).toEqual([
      'must be a whole number, 0 or more (0: only a 429 holds re-images back), or "off" (no budget guard, as the script)',
    ]);
  });
});
