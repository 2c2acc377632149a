import { describe, expect, it } from 'vitest';
import { type PortBounds, portBounds } from '../src/machine/port-bounds.js';
import { worstCaseTickMs } from '../src/machine/tick-deadline.js';
import { SIM_HALT_ENVIRONMENT, SIM_PROMOTION_ENVIRONMENT, simConfig } from '../src/sim/index.js';

// What FLEET_PROMOTION_REF and the other late switches add to the worst-case tick
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

describe('the worst-case tick at the defaults', () => {
  it('each workload read, set and waited for, the images resolved, twelve API requests, an Event per reason and the resolve-failure streak', () => {
    const bounds = portBounds(base);
    const workloads = base.topology.workloads.length;
    const images = base.topology.images.length;
    expect(worstCaseTickMs(base)).toBe(
      workloads * bounds.observeMs +
        bounds.resolveMs(images) +
        workloads * (apiMs + bounds.rolloutMs) +
        12 * apiMs +
        (18 + workloads - 1) * apiMs +
        2 * apiMs,
    );
  });
});

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

describe('what the other late switches add to the worst-case tick', () => {
  it('FLEET_HALT_REF adds its HEAD, document, signature, the pins’ checks under VERIFY_SIGNATURES=off, and two requests and two Events', () => {
    const keysOnly = { SIGNATURE_PUBLIC_KEYS: SIM_HALT_ENVIRONMENT.SIGNATURE_PUBLIC_KEYS };
    const bounds = portBounds(simConfig(SIM_HALT_ENVIRONMENT));
    const images = base.topology.images.length;
    expect(growthOf(SIM_HALT_ENVIRONMENT, keysOnly)).toBe(
      bounds.resolveMs(images + 1) -
        bounds.resolveMs(images) +
        bounds.haltReadMs +
        bounds.verifyMs(1) +
        bounds.verifyMs(images) +
        4 * apiMs,
    );
  });

  it('VERIFY_SIGNATURES=enforce adds each image’s check and one Event', () => {
    const env = { VERIFY_SIGNATURES: 'enforce', SIGNATURE_PUBLIC_KEYS: SIM_HALT_ENVIRONMENT.SIGNATURE_PUBLIC_KEYS };
    const bounds = portBounds(simConfig(env));
    expect(growthOf(env)).toBe(bounds.verifyMs(base.topology.images.length) + apiMs);
  });

  it('ROLLOUT_STABLE_FOR adds the way back’s watch, never takes it away', () => {
    expect(growthOf({ ROLLOUT_STABLE_FOR: '2m' })).toBeGreaterThan(0);
  });

  it('PUSHGATEWAY_URL adds the record’s clock read, one API request', () => {
    expect(growthOf({ PUSHGATEWAY_URL: 'http://127.0.0.1:9091' })).toBe(apiMs);
  });

  it('MAX_RESOLVE_FAILURE_TICKS=off takes away the streak’s write and its Event', () => {
    expect(growthOf({ MAX_RESOLVE_FAILURE_TICKS: 'off' })).toBe(-2 * apiMs);
  });

  it('PLATFORM_CHECK=on adds two manifest reads per image and one Event', () => {
    const config = simConfig({ PLATFORM_CHECK: 'on' });
    expect(growthOf({ PLATFORM_CHECK: 'on' })).toBe(
      portBounds(config).platformMs(2 * base.topology.images.length) + apiMs,
    );
  });

  it('PREPULL=on adds its staging call and two Events', () => {
    const config = simConfig({ PREPULL: 'on' });
    expect(portBounds(config).stagingMs).toBeGreaterThan(0);
    expect(growthOf({ PREPULL: 'on' })).toBe(portBounds(config).stagingMs + 2 * apiMs);
  });

  it('MAINTENANCE_WINDOW adds two clock reads, one per workload, and two Events', () => {
    const workloads = base.topology.workloads.length;
    expect(growthOf({ MAINTENANCE_WINDOW: 'Fri 01:00-04:00 UTC' })).toBe((2 + workloads + 2) * apiMs);
  });

  it('PREPULL_OUTSIDE_WINDOW=on adds a held plan’s staging call on top of the window’s and PREPULL’s shares', () => {
    const window = { MAINTENANCE_WINDOW: 'Fri 01:00-04:00 UTC', PREPULL: 'on' };
    const ahead = { ...window, PREPULL_OUTSIDE_WINDOW: 'on' };
    expect(growthOf(ahead, window)).toBe(portBounds(simConfig(ahead)).stagingMs);
    expect(portBounds(simConfig(ahead)).stagingMs).toBeGreaterThan(0);
  });
});
