import { describe, expect, it } from 'vitest';
import { portBounds } from '../src/machine/port-bounds.js';
import { MAX_TIMER_MS, worstCaseTickMs } from '../src/machine/tick-deadline.js';
import { wayBackWorstCaseMs } from '../src/machine/way-back-deadline.js';
import { simConfig } from '../src/sim/index.js';

// The worst case of a tick (docs/behaviour.md §3, Bounds) grows by exactly what
// each switch adds to a tick: a switch whose share is dropped or subtracted
// leaves a Job deadline sized from the README too short for the tick it runs.

const KEYS = { SIGNATURE_PUBLIC_KEYS: '/etc/image-refresh/keys/sim.pub' };
const base = simConfig({});
const apiMs = portBounds(base).apiMs;
const growthOf = (env: Record<string, string>) => worstCaseTickMs(simConfig(env)) - worstCaseTickMs(base);

describe('what each switch adds to the worst-case tick', () => {
  it("Node's timer ceiling is the largest signed 32-bit count", () => {
    expect(MAX_TIMER_MS).toBe(2_147_483_647);
  });

  it('MIN_DIGEST_AGE adds three API requests and three Events', () => {
    expect(growthOf({ MIN_DIGEST_AGE: '1h' })).toBe(6 * apiMs);
  });

  it('START_JITTER adds its own length plus the grace, and three Events', () => {
    expect(growthOf({ START_JITTER: '90s' })).toBe(90_000 + 2_000 + 3 * apiMs);
  });

  it('MIN_DIGEST_AGE and START_JITTER together add both shares and the three Events once', () => {
    expect(growthOf({ MIN_DIGEST_AGE: '1h', START_JITTER: '90s' })).toBe(3 * apiMs + 90_000 + 2_000 + 3 * apiMs);
  });

  it('VERIFY_SIGNATURES adds three signature checks and one Event, under warn as under enforce', () => {
    for (const mode of ['warn', 'enforce']) {
      const config = simConfig({ VERIFY_SIGNATURES: mode, ...KEYS });
      expect(growthOf({ VERIFY_SIGNATURES: mode, ...KEYS })).toBe(portBounds(config).verifyMs(3) + apiMs);
    }
  });

  it('MAINTENANCE_WINDOW adds two clock reads, one per workload for its rollout time, and two Events', () => {
    const workloads = base.topology.workloads.length;
    expect(growthOf({ MAINTENANCE_WINDOW: 'Fri 01:00-04:00 UTC' })).toBe((2 + workloads + 2) * apiMs);
  });

  it('PUSHGATEWAY_URL adds the record’s clock read, one API request', () => {
    expect(growthOf({ PUSHGATEWAY_URL: 'http://127.0.0.1:9091' })).toBe(apiMs);
  });

  it('PREPULL_OUTSIDE_WINDOW=on adds a held plan’s staging call on top of the window’s and PREPULL’s shares', () => {
    const window = { MAINTENANCE_WINDOW: 'Fri 01:00-04:00 UTC', PREPULL: 'on' };
    const ahead = { ...window, PREPULL_OUTSIDE_WINDOW: 'on' };
    const stagingMs = portBounds(simConfig(ahead)).stagingMs;
    expect(stagingMs).toBeGreaterThan(0);
    expect(worstCaseTickMs(simConfig(ahead)) - worstCaseTickMs(simConfig(window))).toBe(stagingMs);
  });

  it('ROLLOUT_STABLE_FOR adds the way back’s worst case, never takes it away', () => {
    const config = simConfig({ ROLLOUT_STABLE_FOR: '2m' });
    const wayBack = wayBackWorstCaseMs(config, portBounds(config), 3);
    expect(wayBack).toBeGreaterThan(0);
    expect(growthOf({ ROLLOUT_STABLE_FOR: '2m' })).toBe(wayBack);
  });
});

describe('the signature checks’ bound', () => {
  it('is REGISTRY_TIMEOUT × 39 requests per digest checked, plus the grace; no digest counts as one', () => {
    const registryMs = base.registryTimeoutMs;
    const bounds = portBounds(base);
    expect(bounds.verifyMs(2)).toBe(registryMs * 39 * 2 + 2_000);
    expect(bounds.verifyMs(1)).toBe(registryMs * 39 + 2_000);
    expect(bounds.verifyMs(0)).toBe(registryMs * 39 + 2_000);
  });
});
