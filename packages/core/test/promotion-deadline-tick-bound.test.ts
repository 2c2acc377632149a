import { describe, expect, it } from 'vitest';
import { type PortBounds, portBounds } from '../src/machine/port-bounds.js';
import { worstCaseTickMs } from '../src/machine/tick-deadline.js';
import { SIM_HALT_ENVIRONMENT, SIM_PROMOTION_ENVIRONMENT, simConfig } from '../src/sim/index.js';

// What FLEET_PROMOTION_REF adds to the worst-case tick
// (docs/behaviour.md §3, Bounds; docs/fleet-promotion.md): the Job's deadline is
// sized from this sum, so a share dropped, doubled or subtracted leaves it wrong.

const base = simConfig({});
const apiMs = portBounds(base).apiMs;
const growthOf = (env: Record<string, string>, from: Record<string, string> = {}) =>
  worstCaseTickMs(simConfig(env)) - worstCaseTickMs(simConfig(from));

/** The promotion's steps, as the halt's (docs/fleet-promotion.md): one HEAD more in the batch, the document, its signature, the clock read and one write. */
const promotionShare = (bounds: PortBounds, reposBefore: number) =>
  bounds.resolveMs(reposBefore + 1) -
  bounds.resolveMs(reposBefore) +
  bounds.haltReadMs +
  bounds.verifyMs(1) +
  2 * apiMs;

describe('what a fleet promotion adds to the worst-case tick', () => {
  const images = base.topology.images.length;
  const registryMs = base.registryTimeoutMs;

  it('on ring 1, one more repository in the resolve batch, one document read, one signature check, a clock read and a write', () => {
    // The same trust without the promotion on ring 0: no soak and no ring wait on either side.
    const grown = growthOf(SIM_PROMOTION_ENVIRONMENT, {
      SIGNATURE_PUBLIC_KEYS: SIM_PROMOTION_ENVIRONMENT.SIGNATURE_PUBLIC_KEYS,
    });
    const bounds = portBounds(simConfig(SIM_PROMOTION_ENVIRONMENT));
    expect(grown).toBe(promotionShare(bounds, images));
    // Spelled out from the adapters' request counts: 3 HEAD-side requests, 6 for the document, 39 for the signature.
    expect(grown).toBe(registryMs * (3 + 6 + 39) + 2_000 + 2_000 + 2 * apiMs);
  });

  it('replaces the ring’s wait rather than adding to it: against ROLLOUT_RING=1 without it, the soak’s share goes', () => {
    const ringOnly = { ROLLOUT_RING: '1', SIGNATURE_PUBLIC_KEYS: SIM_PROMOTION_ENVIRONMENT.SIGNATURE_PUBLIC_KEYS };
    const bounds = portBounds(simConfig(SIM_PROMOTION_ENVIRONMENT));
    // ROLLOUT_RING × RING_DELAY counts the soak's three requests and three Events; under the promotion it is 0.
    expect(growthOf(SIM_PROMOTION_ENVIRONMENT, ringOnly)).toBe(promotionShare(bounds, images) - 6 * apiMs);
  });

  it('beside a fleet halt, its HEAD is one more after the halt’s', () => {
    const both = { ...SIM_PROMOTION_ENVIRONMENT, FLEET_HALT_REF: SIM_HALT_ENVIRONMENT.FLEET_HALT_REF };
    const bounds = portBounds(simConfig(both));
    expect(growthOf(both, { ...SIM_HALT_ENVIRONMENT })).toBe(promotionShare(bounds, images + 1));
    expect(growthOf(both, { ...SIM_HALT_ENVIRONMENT })).toBe(registryMs * (3 + 6 + 39) + 2_000 + 2_000 + 2 * apiMs);
  });

  it('on a canary (ring 0) it reads no promotion and adds nothing', () => {
    const canary = { ...SIM_PROMOTION_ENVIRONMENT, ROLLOUT_RING: '0' };
    expect(growthOf(canary, { SIGNATURE_PUBLIC_KEYS: SIM_PROMOTION_ENVIRONMENT.SIGNATURE_PUBLIC_KEYS })).toBe(0);
  });
});
