import { describe, expect, it } from 'vitest';
import type { Profile } from '../src/config/profile/profile.js';
import { topologyOf } from '../src/config/profile/topology.js';
import { SHOP_PROFILE } from '../src/sim/sim-shop.js';

// docs/profiles.md: the tick's one table, derived from a profile once. Its
// edges: which workload is the gate, which pins are asked about, and a profile
// built in code rather than parsed (topologyOf is exported).

const UNPINNED = { imageTag: 'prod', isPinned: () => false };

/** The shop with its agent DaemonSet, not decoupled, as the gate. */
const AGENT_GATED: Profile = {
  ...SHOP_PROFILE,
  gate: 'agent',
  workloads: SHOP_PROFILE.workloads.map((w) => (w.id === 'agent' ? { ...w, decoupled: false } : w)),
};

describe('topologyOf', () => {
  it('gates on the workload the profile names, wherever it stands in the list', () => {
    expect(topologyOf(AGENT_GATED, UNPINNED).gate).toMatchObject({ id: 'agent', kind: 'DaemonSet', name: 'agent' });
  });

  it('asks only about the pins the profile names: an image or a workload without one is never pinned', () => {
    const asked: string[] = [];
    const topology = topologyOf(SHOP_PROFILE, {
      imageTag: 'prod',
      isPinned: (variable) => {
        asked.push(variable);
        return true;
      },
    });
    expect(asked).toEqual(['WEB_PINNED']);
    expect(topology.images.map((i) => [i.name, i.pinned])).toEqual([
      ['web', true],
      ['log', false],
      ['agent', false],
    ]);
    expect(topology.workloads.map((w) => w.pinned)).toEqual([false, false, false]);
  });

  it('takes a repository no parser checked as a Docker Hub path, as written', () => {
    const built: Profile = {
      ...SHOP_PROFILE,
      images: SHOP_PROFILE.images.map((i) => (i.name === 'log' ? { ...i, repository: 'Shop/Log' } : i)),
    };
    expect(topologyOf(built, UNPINNED).images[1]).toMatchObject({ host: 'docker.io', repo: 'Shop/Log' });
  });

  it('refuses a gate that is no workload of the profile, as parseProfile does', () => {
    expect(() => topologyOf({ ...SHOP_PROFILE, gate: 'frontend' }, UNPINNED)).toThrow(
      'topologyOf: the gate "frontend" is not a workload of the profile',
    );
  });
});
