import { describe, expect, it } from 'vitest';
import type { Profile } from '../src/config/profile/profile.js';
import { runTick } from '../src/run-tick.js';
import { SHOP_PROFILE, SimWorld, simConfig, simDigest, simPorts } from '../src/sim/index.js';
import { aSteadyEdge, RM } from './support/edge.js';

// The plan's own lines beside the window's (docs/behaviour.md §3.4): a workload
// pinned on its own is named when an image it runs drifts (I13, #569), and a
// live drift says "skew" only where the gate runs the same image (docs/events.md).

const at = (repo: string, build: number) => `docker.io/${repo}@${simDigest(`${repo}#${build}`)}`;

describe('a workload pinned on its own', () => {
  it('is named when one of the images it runs drifts, though it runs others beside it', async () => {
    // The shop's worker, given a log sidecar and a pin of its own: it runs the web image and the log image.
    const profile: Profile = {
      ...SHOP_PROFILE,
      workloads: SHOP_PROFILE.workloads.map((w) =>
        w.id === 'worker' ? { ...w, containers: { worker: 'web', log: 'log' }, pinnedBy: 'WORKER_PINNED' } : w,
      ),
    };
    const config = simConfig({ WORKER_PINNED: '1' }, profile);
    const world = new SimWorld(config);
    const ports = simPorts(world);
    expect((await runTick(config, ports)).result).toBe('complete');
    world.publish('shop/web', simDigest('web 2'));
    const outcome = await runTick(config, ports);
    expect(outcome.reimages.map((r) => r.workload.id)).toEqual(['web']);
    expect(outcome.events.filter((e) => e.code === 'WORKLOAD_PINNED').map((e) => e.message)).toEqual([
      'worker is pinned by WORKER_PINNED=1; not following this digest',
    ]);
  });
});

describe('RECONCILE_LIVE: a container on another build of its image', () => {
  it('a workload the gate shares no image with is not called a skew from the gate', async () => {
    const edge = await aSteadyEdge({ RECONCILE_LIVE: 'report' });
    edge.world.setLiveImage('resource-monitor', 'tracebloc-resource-monitor', at(RM, 7));
    const outcome = await edge.tick();
    expect(outcome.exitCode).toBe(0);
    expect(edge.line('LIVE_DRIFT')).toBe(
      `WARN: daemonset/stg-resource-monitor container tracebloc-resource-monitor runs ${at(RM, 7)} (set by kubectl-set), not the recorded ${RM}@${simDigest(`${RM}#1`)}; RECONCILE_LIVE=1 would re-pin it`,
    );
  });
});
