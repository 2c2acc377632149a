import { describe, expect, it } from 'vitest';
import { SIM_HALT_REPO, SIM_HALT_TAG, simDigest } from '../src/sim/index.js';
import { ANNOTATION } from './support/chart.js';
import { anEdge, aSteadyEdge, JM, PM, RM } from './support/edge.js';

// RECONCILE_LIVE (docs/behaviour.md §6, I23): the reference trusts its own
// annotation alone, so a helm upgrade that re-renders repo:tag over a pin, or a
// requests-proxy left on another build, goes unseen until the next upstream
// release.

const JM_PIN = 'tracebloc.io/pinned-jobs-manager-digest';
const PM_PIN = 'tracebloc.io/pinned-pods-monitor-digest';
const at = (repo: string, build: number) => `docker.io/${repo}@${simDigest(`${repo}#${build}`)}`;

/** An edge that pinned jobs-manager and pods-monitor to build 2 with RECONCILE_LIVE on. */
const pinnedEdge = async (mode: 'report' | '1', extra: Record<string, string> = {}) => {
  const edge = await aSteadyEdge({ RECONCILE_LIVE: mode, ...extra });
  edge.world.publish(JM, simDigest(`${JM}#2`));
  edge.world.publish(PM, simDigest(`${PM}#2`));
  await edge.tick();
  edge.world.calls.length = 0;
  return edge;
};

describe('RECONCILE_LIVE: a Helm re-render that undid a pin', () => {
  it('a re-image with the switch on records a pin marker with the digest', async () => {
    const edge = await pinnedEdge('1');
    expect(edge.world.annotations[JM_PIN]).toBe(simDigest(`${JM}#2`));
    expect(edge.world.annotations[PM_PIN]).toBe(simDigest(`${PM}#2`));
  });

  it('=1 re-pins both jobs-manager containers in one patch, through the attempt counter, and names helm', async () => {
    const edge = await pinnedEdge('1');
    edge.world.helmRerender('jobs-manager');
    const outcome = await edge.tick();
    expect(outcome.exitCode).toBe(0);
    const drift = outcome.events.filter((e) => e.code === 'LIVE_DRIFT').map((e) => e.message);
    expect(drift).toHaveLength(2);
    expect(drift[0]).toContain(
      'deployment/stg-jobs-manager container api runs docker.io/tracebloc/jobs-manager:stg (set by helm)',
    );
    expect(drift[0]).toContain('a Helm re-render (or a hand edit) undid the pin; re-pinning it');
    expect(edge.writes().slice(0, 2)).toEqual([
      'writeRefreshAttempt 1',
      `setImages jobs-manager api=${at(JM, 2)} pods-monitor-container=${at(PM, 2)}`,
    ]);
    expect(edge.world.workload('jobs-manager').images).toEqual({
      api: at(JM, 2),
      'pods-monitor-container': at(PM, 2),
    });
    expect(edge.world.annotations[ANNOTATION.refreshAttempt]).toBeUndefined();
    // Seen where operators look, too: one Event for the reason.
    expect(edge.world.kubeEvents.find((e) => e.reason === 'RefreshLiveDrift')).toMatchObject({
      type: 'Warning',
      count: 1,
    });
  });

  it('nothing resolved (the registry down for every image): no live repair either, even where a fleet halt is still judged', async () => {
    // docs/behaviour.md §3.3: nothing resolved, nothing to compare or record — the live pass included.
    // With FLEET_HALT_REF set the tick goes on to judge the halt (§3.4b), past the live pass.
    const edge = await pinnedEdge('1', {
      FLEET_HALT_REF: `docker.io/${SIM_HALT_REPO}:${SIM_HALT_TAG}`,
      SIGNATURE_PUBLIC_KEYS: '/etc/image-refresh/keys/sim.pub',
    });
    edge.world.helmRerender('jobs-manager');
    for (const repo of [JM, PM, RM]) edge.world.injectRegistryFault(repo, 'Transport');
    const outcome = await edge.tick();
    expect(outcome.reimages).toEqual([]);
    expect(outcome.events.filter((e) => e.code === 'LIVE_DRIFT')).toEqual([]);
    expect(edge.world.calls.filter((c) => c.op === 'setImages')).toEqual([]);
  });

  it('report mode says so and writes nothing', async () => {
    const edge = await pinnedEdge('report');
    edge.world.helmRerender('jobs-manager');
    const outcome = await edge.tick();
    expect(outcome.exitCode).toBe(0);
    const drift = outcome.events.filter((e) => e.code === 'LIVE_DRIFT').map((e) => e.message);
    expect(drift).toHaveLength(2);
    for (const line of drift) expect(line).toContain('RECONCILE_LIVE=1 would re-pin it');
    expect(edge.writes()).toEqual([]);
  });

  it('a live re-pin at the flap ceiling is locked out like any re-image', async () => {
    const edge = await pinnedEdge('1');
    edge.world.helmRerender('jobs-manager');
    edge.world.setAnnotation(ANNOTATION.refreshAttempt, '3');
    const outcome = await edge.tick();
    expect(outcome.result).toBe('flapLockout');
    expect(edge.ops()).not.toContain('setImages');
  });

  it('with the switch off (the default) a re-render is not even looked at: the reference reads and writes only', async () => {
    const edge = await aSteadyEdge();
    edge.world.publish(JM, simDigest(`${JM}#2`));
    await edge.tick();
    edge.world.helmRerender('jobs-manager');
    edge.world.calls.length = 0;
    const outcome = await edge.tick();
    expect(edge.ops()).not.toContain('observeWorkload');
    expect(edge.ops()).not.toContain('readPinMarkers');
    expect(edge.writes()).toEqual([]);
    expect(outcome.events.map((e) => e.code)).not.toContain('LIVE_DRIFT');
    expect(Object.keys(edge.world.annotations).filter((k) => k.includes('pinned-'))).toEqual([]);
  });
});

describe('RECONCILE_LIVE: the first-tick contract is not drift', () => {
  it('a re-image held back by a low pull budget pins nothing: no marker, so the tag is not taken for a revert', async () => {
    const edge = await aSteadyEdge({ RECONCILE_LIVE: '1' });
    edge.world.publish(JM, simDigest(`${JM}#2`));
    edge.world.injectRegistryFault(RM, 'RateLimited');
    await edge.tick();
    expect(edge.world.annotations[JM_PIN]).toBeUndefined();
    edge.world.setAnnotation('tracebloc.io/last-refreshed-jobs-manager-digest', undefined);
    await edge.tick(); // first observation of build 2, the api still on its tag
    edge.world.calls.length = 0;
    const next = await edge.tick();
    expect(next.events.map((e) => e.code)).not.toContain('LIVE_DRIFT');
    expect(edge.ops()).not.toContain('setImages');
  });

  it('a fresh install still on repo:tag is neither re-pinned nor warned about', async () => {
    const edge = anEdge({ RECONCILE_LIVE: '1' });
    await edge.tick();
    edge.world.calls.length = 0;
    const outcome = await edge.tick();
    expect(outcome.events.map((e) => e.code)).not.toContain('LIVE_DRIFT');
    expect(edge.writes()).toEqual([]);
    expect(edge.world.workload('jobs-manager').images.api).toBe('docker.io/tracebloc/jobs-manager:stg');
  });
});

describe('RECONCILE_LIVE: requests-proxy / jobs-manager skew', () => {
  it('requests-proxy on another build is converged alone, to jobs-manager`s recorded digest', async () => {
    const edge = await aSteadyEdge({ RECONCILE_LIVE: '1' });
    edge.world.setLiveImage('requests-proxy', 'proxy', at(JM, 7));
    const outcome = await edge.tick();
    expect(outcome.exitCode).toBe(0);
    expect(edge.line('LIVE_DRIFT')).toContain('requests-proxy / jobs-manager skew');
    expect(edge.line('LIVE_DRIFT')).toContain('(set by kubectl-set)');
    expect(edge.writes().filter((w) => w.startsWith('setImages'))).toEqual([
      `setImages requests-proxy proxy=${at(JM, 1)}`,
    ]);
    // Back onto the recorded digest: nothing new to record, so the success reset is the tick's last
    // write (§3.7); the outcome still lists it with every write the port accepted.
    expect(outcome.writes.map((w) => w.kind)).toEqual(['writeRefreshAttempt', 'clearFlapState']);
  });

  it('converging requests-proxy alone does not make jobs-manager`s api, still on its tag, look reverted', async () => {
    const edge = await aSteadyEdge({ RECONCILE_LIVE: '1' });
    edge.world.setLiveImage('requests-proxy', 'proxy', at(JM, 7));
    await edge.tick();
    edge.world.calls.length = 0;
    const next = await edge.tick();
    expect(next.events.map((e) => e.code)).not.toContain('LIVE_DRIFT');
    expect(edge.ops()).not.toContain('setImages');
    expect(edge.world.workload('jobs-manager').images.api).toBe('docker.io/tracebloc/jobs-manager:stg');
  });

  it('a container set by hand to the recorded digest was never pinned: back on its tag after a Helm re-render, it stays there (I23)', async () => {
    const edge = await aSteadyEdge({ RECONCILE_LIVE: '1' });
    edge.world.setLiveImage('requests-proxy', 'proxy', at(JM, 1));
    edge.world.setLiveImage('jobs-manager', 'api', at(JM, 7));
    await edge.tick();
    expect(edge.world.workload('jobs-manager').images.api).toBe(at(JM, 1));
    // The api was re-pinned, the proxy only found on the digest: no marker says the image's containers are ours.
    expect(edge.world.annotations[JM_PIN]).toBeUndefined();
    edge.world.helmRerender('requests-proxy');
    edge.world.calls.length = 0;
    const next = await edge.tick();
    expect(next.events.map((e) => e.code)).not.toContain('LIVE_DRIFT');
    expect(edge.ops()).not.toContain('setImages');
    expect(edge.world.workload('requests-proxy').images.proxy).toBe('docker.io/tracebloc/jobs-manager:stg');
  });

  it('never when requests-proxy is pinned', async () => {
    const edge = await aSteadyEdge({ RECONCILE_LIVE: '1', REQUESTS_PROXY_PINNED: '1' });
    edge.world.setLiveImage('requests-proxy', 'proxy', at(JM, 7));
    const outcome = await edge.tick();
    expect(outcome.events.map((e) => e.code)).not.toContain('LIVE_DRIFT');
    expect(edge.ops()).not.toContain('setImages');
  });

  it('an image of another repository was put there on purpose: reported, never touched', async () => {
    const edge = await aSteadyEdge({ RECONCILE_LIVE: '1' });
    edge.world.setLiveImage('resource-monitor', 'tracebloc-resource-monitor', 'quay.io/acme/monitor:debug');
    await edge.tick();
    expect(edge.line('LIVE_DRIFT')).toContain('changed on purpose, so image-refresh leaves it alone');
    expect(edge.ops()).not.toContain('setImages');
  });

  it('unreadable pin markers: a WARN, no live repair, and the registry pass goes on', async () => {
    const edge = await pinnedEdge('1');
    edge.world.helmRerender('jobs-manager');
    edge.world.publish(RM, simDigest(`${RM}#2`));
    edge.world.armClusterFault({ op: 'readGate', readIndex: 3 }, 'Transport');
    await edge.tick();
    expect(edge.line('PIN_MARKERS_UNREADABLE')).toContain('live images are not reconciled this tick');
    expect(edge.writes().filter((w) => w.startsWith('setImages'))).toEqual([
      `setImages resource-monitor tracebloc-resource-monitor=${at(RM, 2)}`,
    ]);
  });
});
