import { describe, expect, it } from 'vitest';
import type { Environment } from '../src/config/environment.js';
import type { Profile, ProfileImage, ProfileWorkload } from '../src/config/profile/profile.js';
import { runTick } from '../src/index.js';
import type { TickEvent } from '../src/machine/tick-event.js';
import { SimWorld, simConfig, simPorts } from '../src/sim/index.js';

// The tick's first lines (docs/profiles.md: the release and the topology are
// said in the tick's first line): the gate, the images it follows and where,
// the workloads reconciled beside the gate, and a profile's ignored chart
// variables — each read whole from a tick.

const WEB: ProfileWorkload = {
  id: 'web',
  kind: 'Deployment',
  namespace: 'shop',
  name: 'web',
  containers: { web: 'web' },
};

const shop = (images: ProfileImage[], workloads: ProfileWorkload[] = [WEB], gate = 'web'): Profile => ({
  annotationPrefix: 'shop.example.com',
  gate,
  images,
  workloads,
});

/** The events a first tick says, on a fresh simulated cluster of that config. */
const firstTick = async (env: Environment, profile?: Profile): Promise<readonly TickEvent[]> => {
  const config = simConfig(env, profile);
  return (await runTick(config, simPorts(new SimWorld(config)))).events;
};

const bannerOf = async (env: Environment, profile?: Profile): Promise<TickEvent | undefined> =>
  (await firstTick(env, profile)).find((e) => e.code === 'TICK_START');

describe('where the followed images are asked', () => {
  it('a Docker Hub image among others names the registry asked for Docker Hub tags', async () => {
    const banner = await bannerOf(
      { IMAGE_REFRESH_REGISTRY_URL: 'https://hub-proxy.example' },
      shop(
        [
          { name: 'web', repository: 'ghcr.io/shop/web' },
          { name: 'log', repository: 'shop/log' },
        ],
        [{ ...WEB, containers: { web: 'web', log: 'log' } }],
      ),
    );
    expect(banner?.hints).toEqual([
      'images: ghcr.io/shop/web, docker.io/shop/log under tag=stg (asked at https://hub-proxy.example)',
    ]);
  });

  it('no Docker Hub image: IMAGE_REFRESH_REGISTRY_URL is not said, it asks nothing of them', async () => {
    const banner = await bannerOf(
      { IMAGE_REFRESH_REGISTRY_URL: 'https://hub-proxy.example' },
      shop(
        [
          { name: 'web', repository: 'ghcr.io/shop/web' },
          { name: 'log', repository: 'ghcr.io/shop/log' },
        ],
        [{ ...WEB, containers: { web: 'web', log: 'log' } }],
      ),
    );
    expect(banner?.hints).toEqual(['images: shop/{web,log} on ghcr.io under tag=stg']);
  });

  it('behind a private mirror the images are said on the mirror the pods pull from', async () => {
    const banner = await bannerOf({ IMAGE_REGISTRY: 'registry.corp.example:5000' });
    expect(banner?.hints?.[0]).toBe(
      'client images: tracebloc/{jobs-manager,pods-monitor,resource-monitor} on registry.corp.example:5000 under tag=stg',
    );
  });

  it('MIRROR_MODE=follow-upstream: asked upstream, and the mirror they are pulled through is named (§3.3)', async () => {
    const banner = await bannerOf({ IMAGE_REGISTRY: 'mirror.local:5000', MIRROR_MODE: 'follow-upstream' });
    expect(banner?.hints?.[0]).toBe(
      'client images: tracebloc/{jobs-manager,pods-monitor,resource-monitor} on docker.io under tag=stg, pulled through mirror mirror.local:5000',
    );
  });
});

describe('how the followed images are named', () => {
  it('an image on a tag of its own is said with each image’s tag', async () => {
    const banner = await bannerOf(
      {},
      shop(
        [
          { name: 'web', repository: 'shop/web' },
          { name: 'log', repository: 'shop/log', tag: '1.4' },
        ],
        [{ ...WEB, containers: { web: 'web', log: 'log' } }],
      ),
    );
    expect(banner?.hints).toEqual(['images: shop/web:stg, shop/log:1.4 on docker.io']);
  });

  it('one image is named as it is, with no brace', async () => {
    const banner = await bannerOf({}, shop([{ name: 'web', repository: 'shop/web' }]));
    expect(banner?.hints).toEqual(['images: shop/web on docker.io under tag=stg']);
  });

  it('repositories under different namespaces are listed each in full', async () => {
    const banner = await bannerOf(
      {},
      shop(
        [
          { name: 'web', repository: 'shop/web' },
          { name: 'log', repository: 'ops/log' },
        ],
        [{ ...WEB, containers: { web: 'web', log: 'log' } }],
      ),
    );
    expect(banner?.hints).toEqual(['images: shop/web, ops/log on docker.io under tag=stg']);
  });

  it('repositories at the top of their registry share no namespace to brace', async () => {
    const banner = await bannerOf(
      {},
      shop(
        [
          { name: 'web', repository: 'ghcr.io/web' },
          { name: 'log', repository: 'ghcr.io/log' },
        ],
        [{ ...WEB, containers: { web: 'web', log: 'log' } }],
      ),
    );
    expect(banner?.hints).toEqual(['images: web, log on ghcr.io under tag=stg']);
  });
});

describe('the gate and the workloads reconciled beside it', () => {
  it('a DaemonSet gate is named as one', async () => {
    const agent: ProfileWorkload = {
      id: 'agent',
      kind: 'DaemonSet',
      namespace: 'shop-nodes',
      name: 'agent',
      containers: { agent: 'agent' },
    };
    const banner = await bannerOf({}, shop([{ name: 'agent', repository: 'shop/agent' }], [agent], 'agent'));
    expect(banner?.message).toBe('namespace=shop-nodes daemonset=agent');
  });

  it('a gate alone says no "also reconciling" line', async () => {
    const banner = await bannerOf({}, shop([{ name: 'web', repository: 'shop/web' }]));
    expect(banner?.message).toBe('namespace=shop deployment=web');
    expect(banner?.hints).toHaveLength(1);
  });

  it('a workload is named with the images it runs unless it runs only its own, and with its namespace', async () => {
    const banner = await bannerOf(
      {},
      shop(
        [
          { name: 'web', repository: 'shop/web' },
          { name: 'agent', repository: 'shop/agent' },
          { name: 'log', repository: 'shop/log' },
        ],
        [
          WEB,
          { ...WEB, id: 'worker', name: 'worker' },
          {
            id: 'agent',
            kind: 'DaemonSet',
            namespace: 'shop-nodes',
            name: 'agent',
            containers: { agent: 'agent', log: 'log' },
          },
        ],
      ),
    );
    expect(banner?.hints).toEqual([
      'images: shop/{web,agent,log} on docker.io under tag=stg',
      'also reconciling: deployment/worker (web image), daemonset/agent (agent, log images) in shop-nodes',
    ]);
  });

  it('a pinned workload is not among those reconciled (I13)', async () => {
    const banner = await bannerOf({ REQUESTS_PROXY_PINNED: '1' });
    expect(banner?.hints?.[1]).toBe('also reconciling: daemonset/stg-resource-monitor in tracebloc-node-agents');
  });
});

describe("a profile's ignored chart variables", () => {
  const profile = shop([{ name: 'web', repository: 'shop/web' }]);
  const ignored = async (env: Environment) =>
    (await firstTick(env, profile)).filter((e) => e.code === 'VARIABLES_IGNORED').map((e) => e.message);

  it('one set: "is set but ignored"', async () => {
    expect(await ignored({ RELEASE_NAME: 'stg' })).toEqual([
      'WARN: RELEASE_NAME is set but ignored: IMAGE_REFRESH_PROFILE names the workloads, their namespaces and pins',
    ]);
  });

  it('several set: all named, "are set but ignored"', async () => {
    expect(await ignored({ RELEASE_NAME: 'stg', RELEASE_NAMESPACE: 'tracebloc' })).toEqual([
      'WARN: RELEASE_NAME, RELEASE_NAMESPACE are set but ignored: IMAGE_REFRESH_PROFILE names the workloads, their namespaces and pins',
    ]);
  });
});
