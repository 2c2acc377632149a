import { describe, expect, it } from 'vitest';
import type { Profile } from '../src/config/profile/profile.js';
import { runTick } from '../src/index.js';
import { SimWorld, simConfig, simDigest, simPorts } from '../src/sim/index.js';

// The hand-edit commands the tick's lines give an operator (docs/behaviour.md §3.5:
// the flap lockout is re-armed by hand), spelled for the gate's own kind.

/** A node-agent fleet: its gate is the DaemonSet that runs the agent. */
const AGENTS: Profile = {
  annotationPrefix: 'shop.example.com',
  gate: 'agent',
  images: [{ name: 'agent', repository: 'shop/agent' }],
  workloads: [
    { id: 'agent', kind: 'DaemonSet', namespace: 'shop-nodes', name: 'agent', containers: { agent: 'agent' } },
  ],
};

describe('a DaemonSet gate', () => {
  it('the flap lockout says how to re-arm it with kubectl annotate daemonset', async () => {
    const config = simConfig({}, AGENTS);
    const world = new SimWorld(config);
    const ports = simPorts(world);
    expect((await runTick(config, ports)).result).toBe('complete');
    world.setAnnotation(config.topology.keys.refreshAttempt, '3');
    world.publish('shop/agent', simDigest('agent build 2'));
    const outcome = await runTick(config, ports);
    expect(outcome.reimages).toEqual([]);
    const flap = outcome.events.filter((e) => e.code === 'FLAP_DETECTED');
    expect(flap).toHaveLength(1);
    expect(flap[0]?.hints).toEqual([
      'kubectl annotate daemonset -n shop-nodes agent shop.example.com/refresh-attempt- shop.example.com/refresh-flap-detected-   (or: image-refresh rearm)',
    ]);
  });
});
