import { describe, expect, it } from 'vitest';
import type { Profile } from '../src/config/profile/profile.js';
import { runTick } from '../src/index.js';
import type { DigestRequest, RegistryPort } from '../src/ports/registry-port.js';
import { SimWorld, simConfig, simDigest, simPorts } from '../src/sim/index.js';

// Each image on its own registry (docs/configuration.md, "Each image on its
// own registry"): a repository that names a host is asked there, and a
// container is pinned to `<host>/<path>@<digest>` — never to docker.io.

const PROFILE: Profile = {
  annotationPrefix: 'shop.example.com',
  gate: 'web',
  images: [
    { name: 'web', repository: 'ghcr.io/shop/web' },
    { name: 'log', repository: 'shop/log' },
    { name: 'agent', repository: 'registry.local:5000/shop/agent' },
  ],
  workloads: [
    { id: 'web', kind: 'Deployment', namespace: 'shop', name: 'web', containers: { web: 'web', log: 'log' } },
    { id: 'agent', kind: 'DaemonSet', namespace: 'shop-nodes', name: 'agent', containers: { agent: 'agent' } },
  ],
};

const anEdgeOnThreeRegistries = () => {
  const config = simConfig({}, PROFILE);
  const world = new SimWorld(config);
  const sim = simPorts(world);
  const asked: DigestRequest[][] = [];
  const registry: RegistryPort = {
    resolveDigests: (requests) => {
      asked.push([...requests]);
      return sim.registry.resolveDigests(requests);
    },
  };
  return { config, world, asked, tick: () => runTick(config, { ...sim, registry }) };
};

describe('a profile whose images live on three registries', () => {
  it('asks each image on its host, and pins a new build at that host', async () => {
    const edge = anEdgeOnThreeRegistries();
    expect((await edge.tick()).exitCode).toBe(0);
    expect(edge.asked[0]?.map(({ host, repo }) => `${host} ${repo}`)).toEqual([
      'ghcr.io shop/web',
      'docker.io shop/log',
      'registry.local:5000 shop/agent',
    ]);
    const web2 = simDigest('web build 2');
    const agent2 = simDigest('agent build 2');
    edge.world.publish('shop/web', web2);
    edge.world.publish('shop/agent', agent2);
    const second = await edge.tick();
    expect(second.exitCode).toBe(0);
    expect(edge.world.workloads.web?.images).toEqual({
      web: `ghcr.io/shop/web@${web2}`,
      log: 'docker.io/shop/log:stg',
    });
    expect(edge.world.workloads.agent?.images).toEqual({ agent: `registry.local:5000/shop/agent@${agent2}` });
  });

  it('the first line names each image with its host, since they share none', async () => {
    const edge = anEdgeOnThreeRegistries();
    const { events } = await edge.tick();
    expect(events.find((e) => e.code === 'TICK_START')?.hints?.[0]).toBe(
      'images: ghcr.io/shop/web, docker.io/shop/log, registry.local:5000/shop/agent under tag=stg',
    );
  });
});

describe('images that share a host', () => {
  it('name it once, as the chart names docker.io', async () => {
    const onOne: Profile = {
      ...PROFILE,
      images: PROFILE.images.map((i) => ({
        ...i,
        repository: `ghcr.io/${i.repository.split('/').slice(-2).join('/')}`,
      })),
    };
    const config = simConfig({}, onOne);
    const { events } = await runTick(config, simPorts(new SimWorld(config)));
    expect(events.find((e) => e.code === 'TICK_START')?.hints?.[0]).toBe(
      'images: shop/{web,log,agent} on ghcr.io under tag=stg',
    );
  });
});
