import { describe, expect, it } from 'vitest';
import type { Digest } from '../src/domain/digest.js';
import {
  containersToJudge,
  needsOwnershipCheck,
  ownershipFindings,
  runsFollowedImage,
} from '../src/domain/ownership.js';
import { EMPTY_PLAN, type RefreshPlan } from '../src/domain/plan.js';
import { topologyFingerprint } from '../src/domain/topology-fingerprint.js';
import { imageOf } from '../src/domain/workloads.js';
import { kubernetesEventsFor } from '../src/machine/kubernetes-events.js';
import { SHOP_PROFILE, simConfig, simDigest } from '../src/sim/index.js';
import { anEdge, aSteadyEdge, JM, PM, RM } from './support/edge.js';

// docs/behaviour.md §3.4c, OWNERSHIP_CHECK: a container is set, and an
// image's digest recorded, only while every container the tick would touch
// for it runs the followed repository — at its tag, or at a digest of it.
// Anything else is a finding (exit 1) and nothing is written that tick.

const ref = (repo: string, digest: string) => `docker.io/${repo}@${digest}`;
const JM2 = simDigest(`${JM}#2`);
const RM2 = simDigest(`${RM}#2`);

describe('the containers a plan stakes, each once', () => {
  const config = simConfig();
  const jobsManager = config.topology.workloads.find((w) => w.id === 'jobs-manager');
  if (jobsManager === undefined) throw new Error('no jobs-manager in the chart');
  const setsApi: RefreshPlan = {
    ...EMPTY_PLAN,
    changes: [{ workload: jobsManager, images: [{ container: 'api', image: ref(JM, JM2) }] }],
  };
  const names = (plan: RefreshPlan) => containersToJudge(config, plan).map((m) => `${m.workload}/${m.container}`);

  it('a container set and also a baseline of a first observation is judged once; two of one workload both', () => {
    const alsoBaselines = {
      ...setsApi,
      firstObservations: { 'jobs-manager': JM2 as Digest, 'pods-monitor': JM2 as Digest },
    };
    expect(names(alsoBaselines)).toEqual([
      'jobs-manager/api',
      'requests-proxy/proxy',
      'jobs-manager/pods-monitor-container',
    ]);
  });

  it('nothing staked, nothing to check: an empty plan needs no ownership check', () => {
    expect(needsOwnershipCheck(config, EMPTY_PLAN)).toBe(false);
    expect(needsOwnershipCheck(config, setsApi)).toBe(true);
    expect(needsOwnershipCheck(simConfig({ OWNERSHIP_CHECK: 'off' }), setsApi)).toBe(false);
  });

  it('judges only what was read, and names a mapped container the workload lacks', () => {
    // requests-proxy unread: not judged here (the check says it unread).
    expect(ownershipFindings(config, setsApi, {})).toEqual([]);
    const live = { settledness: { _tag: 'Settled', message: 'ready' }, images: { web: 'x' }, imageOwners: {} } as const;
    expect(ownershipFindings(config, setsApi, { 'jobs-manager': live })).toEqual([
      { _tag: 'Missing', workload: jobsManager, container: 'api', image: 'jobs-manager', has: ['web'] },
    ]);
  });
});

describe('runsFollowedImage: what counts as the followed image', () => {
  const jm = imageOf(simConfig().topology, 'jobs-manager');

  it.each([
    ['the followed tag, as the chart renders it', 'docker.io/tracebloc/jobs-manager:stg', true],
    ['the followed tag, short name', 'tracebloc/jobs-manager:stg', true],
    ['the followed tag, by the index host', 'index.docker.io/tracebloc/jobs-manager:stg', true],
    ['any digest of it (this tool’s own pin)', `docker.io/tracebloc/jobs-manager@${JM2}`, true],
    ['a tag and a digest', `docker.io/tracebloc/jobs-manager:prod@${JM2}`, true],
    ['another tag: pinned by hand to a version', 'docker.io/tracebloc/jobs-manager:v1.2', false],
    ['no tag is latest, not stg', 'docker.io/tracebloc/jobs-manager', false],
    ['the same path on another registry (a mirror)', '127.0.0.1:5071/tracebloc/jobs-manager:stg', false],
    ['another repository altogether', 'docker.io/library/nginx:1.27', false],
    ['an official image by its short name', 'nginx:1.27', false],
  ])('%s: %s → %s', (_, reference, ours) => expect(runsFollowedImage(jm, reference)).toBe(ours));

  it('following latest, a reference with no tag is the followed tag', () => {
    const latest = imageOf(simConfig({ IMAGE_TAG: 'latest' }).topology, 'jobs-manager');
    expect(runsFollowedImage(latest, 'docker.io/tracebloc/jobs-manager')).toBe(true);
    expect(runsFollowedImage(latest, 'docker.io/tracebloc/jobs-manager:stg')).toBe(false);
  });
});

describe('OWNERSHIP_CHECK=on (the default)', () => {
  it('a steady tick reads no workload for it: only the gate, as the script', async () => {
    const edge = await aSteadyEdge();
    await edge.tick();
    expect(edge.ops()).toEqual([
      'observeJobsManager',
      'readSkipStreak',
      'resolveDigest',
      'resolveDigest',
      'resolveDigest',
      'readRecordedDigests',
    ]);
  });

  it('a first observation reads each other workload once, never the gate again, before it records', async () => {
    const edge = anEdge();
    const outcome = await edge.tick();
    expect(outcome.result).toBe('complete');
    const ops = edge.calls();
    expect(ops.filter((c) => c.startsWith('readOwnedWorkload'))).toEqual([
      'readOwnedWorkload requests-proxy',
      'readOwnedWorkload resource-monitor',
    ]);
    expect(ops.findIndex((c) => c.startsWith('readOwnedWorkload'))).toBeLessThan(
      ops.findIndex((c) => c.startsWith('recordDigests')),
    );
  });

  it('a drift reads only the workloads it would set, before the attempt: jobs-manager’s image is the gate and requests-proxy', async () => {
    const edge = await aSteadyEdge();
    edge.world.publish(JM, JM2);
    await edge.tick();
    const ops = edge.calls();
    expect(ops.filter((c) => c.startsWith('readOwnedWorkload'))).toEqual(['readOwnedWorkload requests-proxy']);
    expect(ops.findIndex((c) => c.startsWith('readOwnedWorkload'))).toBeLessThan(
      ops.findIndex((c) => c.startsWith('writeRefreshAttempt')),
    );
  });

  it('only the containers the plan sets are judged: a sidecar of the same workload on another image, its own image unchanged, stops nothing', async () => {
    const edge = await aSteadyEdge();
    edge.world.setLiveImage('jobs-manager', 'pods-monitor-container', 'docker.io/library/nginx:1.27');
    edge.world.publish(JM, JM2);
    const outcome = await edge.tick();
    expect([outcome.result, outcome.exitCode]).toEqual(['complete', 0]);
    expect(edge.world.workload('jobs-manager').images).toEqual({
      api: ref(JM, JM2),
      'pods-monitor-container': 'docker.io/library/nginx:1.27',
    });
  });

  it('every container the plan sets is judged, not only the first: the second one on another image stops the tick', async () => {
    const edge = await aSteadyEdge();
    edge.world.setLiveImage('resource-monitor', 'tracebloc-resource-monitor', 'docker.io/library/nginx:1.27');
    edge.world.publish(JM, JM2);
    edge.world.publish(RM, RM2);
    const outcome = await edge.tick();
    expect([outcome.result, outcome.exitCode]).toEqual(['foreignImage', 1]);
    expect(edge.writes()).toEqual([]);
  });

  it('each container of one workload is judged: the gate’s second container on another image stops the tick', async () => {
    const edge = await aSteadyEdge();
    edge.world.setLiveImage('jobs-manager', 'pods-monitor-container', 'docker.io/library/nginx:1.27');
    edge.world.publish(JM, JM2);
    edge.world.publish(PM, simDigest(`${PM}#2`));
    const outcome = await edge.tick();
    expect([outcome.result, outcome.exitCode]).toEqual(['foreignImage', 1]);
    expect(edge.writes()).toEqual([]);
  });

  it('a container someone set to another image is a finding: exit 1, no attempt, no set image, nothing recorded', async () => {
    const edge = await aSteadyEdge();
    edge.world.setLiveImage('resource-monitor', 'tracebloc-resource-monitor', 'docker.io/library/nginx:1.27');
    edge.world.publish(RM, RM2);
    const outcome = await edge.tick();
    expect([outcome.result, outcome.exitCode]).toEqual(['foreignImage', 1]);
    expect(edge.writes()).toEqual([]);
    expect(edge.world.workload('resource-monitor').images['tracebloc-resource-monitor']).toBe(
      'docker.io/library/nginx:1.27',
    );
    expect(edge.line('FOREIGN_IMAGE')).toBe(
      [
        'ERROR: daemonset/stg-resource-monitor in tracebloc-node-agents container tracebloc-resource-monitor runs docker.io/library/nginx:1.27, not docker.io/tracebloc/resource-monitor (at stg or a digest), which the profile says it follows (image "resource-monitor"); nothing is re-imaged or recorded this tick',
        "a container set to another image on purpose is not image-refresh's: set it back to docker.io/tracebloc/resource-monitor:stg, or map the container to the image it runs",
        'OWNERSHIP_CHECK=off sets it anyway, as the script did',
      ].join('\n'),
    );
    expect(kubernetesEventsFor(outcome).map((e) => `${e.type} ${e.reason}`)).toEqual(['Warning RefreshForeignImage']);
  });

  it('a container on the same path at another registry (a mirror) is not ours: the other images wait too', async () => {
    const edge = await aSteadyEdge();
    edge.world.setLiveImage('requests-proxy', 'proxy', '127.0.0.1:5071/tracebloc/jobs-manager:stg');
    edge.world.publish(JM, JM2);
    edge.world.publish(RM, RM2);
    const outcome = await edge.tick();
    expect(outcome.result).toBe('foreignImage');
    expect(edge.writes()).toEqual([]);
    expect(edge.world.workload('jobs-manager').images.api).toBe('docker.io/tracebloc/jobs-manager:stg');
  });

  it('a first observation over a foreign container records nothing at all, not even the other images', async () => {
    const edge = anEdge();
    edge.world.setLiveImage('resource-monitor', 'tracebloc-resource-monitor', 'quay.io/acme/monitor:debug');
    const outcome = await edge.tick();
    expect([outcome.result, outcome.exitCode]).toEqual(['foreignImage', 1]);
    expect(edge.world.annotations).toEqual({});
  });

  it('a container the workload does not have is a finding naming what it has: a set image would add one', async () => {
    const edge = await aSteadyEdge();
    const proxy = edge.world.workload('requests-proxy');
    proxy.images = { sidecar: 'docker.io/library/envoy:1.30' };
    edge.world.publish(JM, JM2);
    const outcome = await edge.tick();
    expect(outcome.result).toBe('foreignImage');
    expect(edge.line('FOREIGN_IMAGE')).toBe(
      [
        'ERROR: deployment/stg-requests-proxy in tracebloc has no container proxy (it has sidecar), which the profile maps to image "jobs-manager"; nothing is re-imaged or recorded this tick',
        'a set image would add one: fix the profile\'s containers of workload "requests-proxy"',
      ].join('\n'),
    );
  });

  it('a workload the check cannot read fails closed: exit 1 naming the cause, nothing written', async () => {
    const edge = await aSteadyEdge();
    edge.world.publish(JM, JM2);
    edge.world.injectClusterFault('observeWorkload', 'Forbidden');
    const outcome = await edge.tick();
    expect([outcome.result, outcome.exitCode]).toEqual(['ownershipUnchecked', 1]);
    expect(edge.writes()).toEqual([]);
    expect(edge.line('OWNERSHIP_UNCHECKED')).toBe(
      'ERROR: cannot read deployment/stg-requests-proxy in tracebloc (Forbidden (HTTP 403): simulated Forbidden on observeWorkload), so whether its containers run what the profile says cannot be checked; nothing is re-imaged or recorded this tick',
    );
  });

  it('reads every workload it needs at once, and names each one it cannot read', async () => {
    const edge = await aSteadyEdge();
    edge.world.publish(JM, JM2);
    edge.world.publish(RM, RM2);
    edge.world.injectClusterFault('observeWorkload', 'Forbidden', 2);
    const outcome = await edge.tick();
    expect([outcome.result, outcome.exitCode]).toEqual(['ownershipUnchecked', 1]);
    expect(edge.writes()).toEqual([]);
    expect(outcome.events.filter((e) => e.code === 'OWNERSHIP_UNCHECKED').map((e) => e.message)).toEqual([
      expect.stringMatching(/^ERROR: cannot read deployment\/stg-requests-proxy in tracebloc \(Forbidden/),
      expect.stringMatching(/^ERROR: cannot read daemonset\/stg-resource-monitor in tracebloc-node-agents \(Forbidden/),
    ]);
  });

  it('one workload unread among those read: only it is named, and still nothing is written', async () => {
    const edge = await aSteadyEdge();
    edge.world.publish(JM, JM2);
    edge.world.publish(RM, RM2);
    edge.world.setLiveImage('resource-monitor', 'tracebloc-resource-monitor', 'docker.io/library/nginx:1.27');
    edge.world.injectClusterFault('observeWorkload', 'Forbidden', 1);
    const outcome = await edge.tick();
    expect([outcome.result, outcome.exitCode]).toEqual(['ownershipUnchecked', 1]);
    expect(outcome.events.filter((e) => e.code === 'OWNERSHIP_UNCHECKED').map((e) => e.message)).toEqual([
      expect.stringMatching(/^ERROR: cannot read deployment\/stg-requests-proxy in tracebloc/),
    ]);
    expect(edge.codes()).not.toContain('FOREIGN_IMAGE');
    expect(edge.writes()).toEqual([]);
  });

  it('a tick locked out by the flap guard says FLAP DETECTED first: it writes nothing but its marker anyway', async () => {
    const edge = await aSteadyEdge({ MAX_REFRESH_ATTEMPTS: '1' });
    edge.world.setAnnotation('tracebloc.io/refresh-attempt', '1');
    edge.world.setLiveImage('resource-monitor', 'tracebloc-resource-monitor', 'docker.io/library/nginx:1.27');
    edge.world.publish(RM, RM2);
    const outcome = await edge.tick();
    expect(outcome.result).toBe('flapLockout');
    expect(edge.calls().some((c) => c.startsWith('readOwnedWorkload'))).toBe(false);
  });

  it('RECONCILE_LIVE reads every workload already: the check reads none again', async () => {
    const edge = await aSteadyEdge({ RECONCILE_LIVE: '1' });
    edge.world.publish(JM, JM2);
    const outcome = await edge.tick();
    expect(outcome.result).toBe('complete');
    expect(edge.calls().filter((c) => c.startsWith('readOwnedWorkload'))).toEqual([]);
  });
});

describe('the topology fingerprint: a changed topology is checked at once (docs/behaviour.md §3.4c)', () => {
  const FINGERPRINT = 'tracebloc.io/topology-fingerprint';

  it('the first settled tick checks every mapped container and records the fingerprint; the next reads nothing more', async () => {
    const edge = anEdge();
    await edge.tick();
    expect(edge.world.annotations[FINGERPRINT]).toMatch(/^v1-[0-9a-f]{16}$/);
    expect(edge.calls().filter((c) => c.startsWith('readOwnedWorkload'))).toHaveLength(2);
    edge.world.calls.length = 0;
    await edge.tick();
    expect(edge.ops().filter((op) => op === 'readOwnedWorkload' || op === 'recordTopologyFingerprint')).toEqual([]);
  });

  it('a container set to another image is a finding on the next tick after the topology changed, with no new build', async () => {
    const edge = await aSteadyEdge();
    edge.world.setLiveImage('resource-monitor', 'tracebloc-resource-monitor', 'quay.io/acme/monitor:debug');
    // Steady: the topology is the one found true, so no check runs (the next build will find it).
    expect((await edge.tick()).exitCode).toBe(0);
    // The profile (here: the chart's values) changed: the fingerprint no longer matches.
    edge.world.setAnnotation(FINGERPRINT, 'v1-0000000000000000');
    const outcome = await edge.tick();
    expect(outcome.result).toBe('foreignImage');
    expect(outcome.exitCode).toBe(1);
    expect(edge.world.annotations[FINGERPRINT]).toBe('v1-0000000000000000');
  });

  it('each part of the topology moves the fingerprint; the profile’s order does not', () => {
    const base = simConfig();
    const fp = (env: Record<string, string>) => topologyFingerprint(simConfig(env).topology);
    expect(fp({})).toBe(topologyFingerprint(base.topology));
    expect(fp({ DEPLOYMENT_NAME: 'stg-jobs-manager-2' })).not.toBe(fp({}));
    expect(fp({ NODE_AGENTS_NAMESPACE: 'agents' })).not.toBe(fp({}));
    expect(fp({ REQUESTS_PROXY_PINNED: '1' })).not.toBe(fp({}));
    expect(fp({ IMAGE_TAG: 'prod' })).not.toBe(fp({}));
    const reversed = { ...SHOP_PROFILE, workloads: [...SHOP_PROFILE.workloads].reverse(), gate: 'web' };
    expect(topologyFingerprint(simConfig({}, reversed).topology)).toBe(
      topologyFingerprint(simConfig({}, SHOP_PROFILE).topology),
    );
  });

  it('with OWNERSHIP_CHECK=off no fingerprint is read or written', async () => {
    const edge = anEdge({ OWNERSHIP_CHECK: 'off' });
    await edge.tick();
    expect(edge.world.annotations[FINGERPRINT]).toBeUndefined();
    expect(edge.ops()).not.toContain('recordTopologyFingerprint');
  });
});

describe('OWNERSHIP_CHECK=off (the script)', () => {
  it('sets the mapped container whatever it runs, and reads no workload for it', async () => {
    const edge = await aSteadyEdge({ OWNERSHIP_CHECK: 'off' });
    edge.world.setLiveImage('resource-monitor', 'tracebloc-resource-monitor', 'docker.io/library/nginx:1.27');
    edge.world.publish(RM, RM2);
    const outcome = await edge.tick();
    expect(outcome.result).toBe('complete');
    expect(edge.world.workload('resource-monitor').images['tracebloc-resource-monitor']).toBe(ref(RM, RM2));
    expect(edge.calls().some((c) => c.startsWith('readOwnedWorkload'))).toBe(false);
  });

  it('is refused as anything but on or off', () => {
    expect(() => simConfig({ OWNERSHIP_CHECK: 'no' })).toThrow(
      'OWNERSHIP_CHECK: must be "on" or "off" (off sets whatever the profile maps, as the script did)',
    );
  });
});
