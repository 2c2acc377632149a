import { describe, expect, it } from 'vitest';
import type { Environment } from '../src/config/environment.js';
import type { Profile, ProfileWorkload } from '../src/config/profile/profile.js';
import { runTick } from '../src/index.js';
import type { TickEvent } from '../src/machine/tick-event.js';
import { SimWorld, simConfig, simPorts } from '../src/sim/index.js';

// What the observe phase says of a gate under a profile's own topology
// (docs/behaviour.md §3.2): a gate it may not read, a gate frozen with
// no hint of the profile's, and the DECOUPLED_REFRESH line (I24) for one
// decoupled workload, for several, and for gate images that wait or not.

/** A profile's edge; `events(code)` are the last tick's events with that code. */
const anEdge = (profile: Profile, env: Environment = {}) => {
  const config = simConfig(env, profile);
  const world = new SimWorld(config);
  const ports = simPorts(world);
  let events: readonly TickEvent[] = [];
  return {
    world,
    async tick() {
      const outcome = await runTick(config, ports);
      events = outcome.events;
      return outcome;
    },
    events: (code: TickEvent['code']) => events.filter((e) => e.code === code),
  };
};

const WEB: ProfileWorkload = {
  id: 'web',
  kind: 'Deployment',
  namespace: 'shop',
  name: 'web',
  containers: { web: 'web', log: 'log' },
};
const AGENT: ProfileWorkload = {
  id: 'agent',
  kind: 'DaemonSet',
  namespace: 'shop-nodes',
  name: 'agent',
  containers: { agent: 'agent' },
};
const WORKER: ProfileWorkload = {
  id: 'worker',
  kind: 'Deployment',
  namespace: 'shop',
  name: 'worker',
  containers: { worker: 'web' },
};
const IMAGES: Profile['images'] = [
  { name: 'web', repository: 'shop/web' },
  { name: 'log', repository: 'shop/log' },
  { name: 'agent', repository: 'shop/agent' },
];

/** A shop with no frozenHint of its own, the gate `web` and these other workloads. */
const shop = (gate: ProfileWorkload, ...others: ProfileWorkload[]): Profile => ({
  annotationPrefix: 'shop.example.com',
  gate: gate.id,
  images: IMAGES.filter((i) => [gate, ...others].some((w) => Object.values(w.containers).includes(i.name))),
  workloads: [gate, ...others],
});

/** The DECOUPLED_REFRESH line of a tick past an unsettled web. */
const decoupledLine = async (profile: Profile): Promise<readonly TickEvent[]> => {
  const edge = anEdge(profile, { DECOUPLED_REFRESH: '1' });
  await edge.tick();
  edge.world.setBehaviour('web', 'neverReady');
  const outcome = await edge.tick();
  expect(outcome.result).toBe('skipped');
  return edge.events('DECOUPLED_REFRESH');
};

const info = (message: string) => [{ level: 'info', code: 'DECOUPLED_REFRESH', message }];

describe('DECOUPLED_REFRESH: what the pass past an unsettled gate says it refreshes and what waits (I24)', () => {
  it('one decoupled workload "is settled itself"; the gate\'s own two images "wait (re-imaging them would roll" it', async () => {
    expect(await decoupledLine(shop(WEB, { ...AGENT, decoupled: true }))).toEqual(
      info(
        'DECOUPLED_REFRESH: refreshing agent past the unsettled web where it is settled itself; web and log wait (re-imaging them would roll web)',
      ),
    );
  });

  it('several decoupled workloads "are settled themselves"; one gate-only image "waits (re-imaging it would roll" the gate', async () => {
    expect(await decoupledLine(shop(WEB, { ...WORKER, decoupled: true }, { ...AGENT, decoupled: true }))).toEqual(
      info(
        'DECOUPLED_REFRESH: refreshing worker and agent past the unsettled web where they are settled themselves; log waits (re-imaging it would roll web)',
      ),
    );
  });

  it('when every image of the gate runs elsewhere too, nothing is said to wait', async () => {
    const gate: ProfileWorkload = { ...WEB, containers: { web: 'web' } };
    expect(await decoupledLine(shop(gate, { ...WORKER, decoupled: true }))).toEqual(
      info('DECOUPLED_REFRESH: refreshing worker past the unsettled web where it is settled itself'),
    );
  });
});

describe('a frozen gate whose profile gives no frozenHint (#1964)', () => {
  it("says kubectl's own questions about the gate after MANUAL ATTENTION NEEDED", async () => {
    const edge = anEdge(shop(WEB), { MAX_SKIP_TICKS: '1' });
    edge.world.setBehaviour('web', 'neverReady');
    const outcome = await edge.tick();
    expect(outcome.exitCode).toBe(1);
    expect(edge.events('FROZEN').map((e) => e.hints)).toEqual([
      [
        'MANUAL ATTENTION NEEDED. Find out why deployment/web does not settle:',
        '  kubectl -n shop rollout status deployment/web',
        '  kubectl -n shop describe deployment/web',
        'Refresh resumes by itself once it settles.',
      ],
    ]);
  });
});

describe('a gate the ServiceAccount may not read (403) names the resource it may not get', () => {
  const forbidden = async (gate: ProfileWorkload) => {
    const edge = anEdge(shop(gate));
    edge.world.injectClusterFault('readGate', 'Forbidden');
    const outcome = await edge.tick();
    expect(outcome.result).toBe('deploymentUnreadable');
    return edge.events('DEPLOYMENT_UNREADABLE').map((e) => e.hints);
  };

  it('a DaemonSet gate: daemonsets.apps', async () => {
    expect(await forbidden(AGENT)).toEqual([
      [
        "either shop-nodes is not the namespace daemonset/agent runs in (a typo: RELEASE_NAMESPACE, or the profile's namespace), or the ServiceAccount may not get daemonsets.apps there",
      ],
    ]);
  });

  it('a Deployment gate: deployments.apps', async () => {
    expect(await forbidden(WEB)).toEqual([
      [
        "either shop is not the namespace deployment/web runs in (a typo: RELEASE_NAMESPACE, or the profile's namespace), or the ServiceAccount may not get deployments.apps there",
      ],
    ]);
  });
});
