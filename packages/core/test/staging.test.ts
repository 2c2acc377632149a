import { describe, expect, it } from 'vitest';
import { dryRunPorts } from '../src/dry-run.js';
import { interruptedBy } from '../src/machine/interrupted.js';
import { kubernetesEventsFor } from '../src/machine/kubernetes-events.js';
import { runTick, type TickPorts } from '../src/run-tick.js';
import { SimWorld, simConfig, simDigest, simPorts } from '../src/sim/index.js';
import { aSteadyEdge, JM, PM, RM } from './support/edge.js';

// PREPULL (docs/behaviour.md §3.5a): the plan's new images are pulled onto the
// nodes of each workload before any set image; only a workload staged on
// every node is switched (I40), and a staging failure spends no attempt (I41).

const ON = { PREPULL: 'on' };
const MINUTE = 60_000;
const JM2 = simDigest(`${JM}#2`);
const PM2 = simDigest(`${PM}#2`);
const RM2 = simDigest(`${RM}#2`);
const ref = (repo: string, digest: string) => `docker.io/${repo}@${digest}`;

describe('PREPULL=off (the default)', () => {
  it('stages nothing and records no RefreshStaging Event (I43)', async () => {
    const edge = await aSteadyEdge();
    edge.world.publish(JM, JM2);
    await edge.tick();
    expect(edge.ops().filter((op) => op === 'stageImage' || op === 'deleteStagingPod')).toEqual([]);
    expect(edge.calls().filter((c) => c.includes('RefreshStaging'))).toEqual([]);
  });
});

describe('PREPULL=on', () => {
  it('a steady tick stages nothing', async () => {
    const edge = await aSteadyEdge(ON);
    await edge.tick();
    expect(edge.ops().filter((op) => op === 'stageImage' || op === 'recordEvent')).toEqual([]);
  });

  it('stages every workload on each of its nodes, deletes the pods, then writes the attempt and switches', async () => {
    const edge = await aSteadyEdge(ON);
    edge.world.publish(JM, JM2);
    edge.world.publish(RM, RM2);
    const outcome = await edge.tick();
    expect(outcome.exitCode).toBe(0);
    const calls = edge.calls();
    const from = calls.indexOf('recordEvent Normal RefreshStaging');
    expect(calls.slice(from, calls.indexOf('writeRefreshAttempt 1') + 1)).toEqual([
      'recordEvent Normal RefreshStaging',
      `stageImage jobs-manager edge-1 ${ref(JM, JM2)}`,
      `stageImage requests-proxy edge-1 ${ref(JM, JM2)}`,
      `stageImage resource-monitor edge-1 ${ref(RM, RM2)}`,
      `stageImage resource-monitor edge-2 ${ref(RM, RM2)}`,
      `stageImage resource-monitor edge-3 ${ref(RM, RM2)}`,
      `deleteStagingPod jobs-manager edge-1 ${ref(JM, JM2)}`,
      `deleteStagingPod requests-proxy edge-1 ${ref(JM, JM2)}`,
      `deleteStagingPod resource-monitor edge-1 ${ref(RM, RM2)}`,
      `deleteStagingPod resource-monitor edge-2 ${ref(RM, RM2)}`,
      `deleteStagingPod resource-monitor edge-3 ${ref(RM, RM2)}`,
      'stageImages jobs-manager requests-proxy resource-monitor',
      'writeRefreshAttempt 1',
    ]);
    expect(outcome.reimages.map((r) => r.workload.id)).toEqual(['jobs-manager', 'requests-proxy', 'resource-monitor']);
    expect(outcome.events.filter((e) => e.code === 'STAGED').map((e) => e.message)).toEqual([
      `staged ${ref(JM, JM2)} on edge-1 for deployment/stg-jobs-manager`,
      `staged ${ref(JM, JM2)} on edge-1 for deployment/stg-requests-proxy`,
      `staged ${ref(RM, RM2)} on edge-1, edge-2, edge-3 for daemonset/stg-resource-monitor in tracebloc-node-agents`,
    ]);
    expect(edge.world.kubeEvents.find((e) => e.reason === 'RefreshStaging')).toEqual({
      type: 'Normal',
      reason: 'RefreshStaging',
      message: `staging ${ref(JM, JM2)}, ${ref(RM, RM2)} on the nodes of deployment/stg-jobs-manager, deployment/stg-requests-proxy, daemonset/stg-resource-monitor before switching them (PREPULL_TIMEOUT=30m, PREPULL_PARALLEL=1)`,
      count: 1,
    });
    expect(edge.world.nodes.stagingPods.size).toBe(0);
    expect(outcome.events.find((e) => e.code === 'STAGING')?.message).toBe(
      edge.world.kubeEvents.find((e) => e.reason === 'RefreshStaging')?.message,
    );
  });

  it('a live re-pin whose workload is not staged is dropped, and so is the pin marker it would have earned (RECONCILE_LIVE=1)', async () => {
    const edge = await aSteadyEdge({ ...ON, RECONCILE_LIVE: '1' });
    edge.world.publish(JM, JM2);
    await edge.tick();
    expect(edge.world.annotations['tracebloc.io/pinned-jobs-manager-digest']).toBe(JM2);
    // Helm re-renders requests-proxy on its tag; it now runs on a node that cannot pull the recorded build.
    edge.world.helmRerender('requests-proxy');
    edge.world.nodes.of['requests-proxy'] = ['edge-2'];
    edge.world.nodes.failing.add(`${JM2} edge-2`);
    edge.world.publish(PM, PM2);
    edge.world.calls.length = 0;
    const outcome = await edge.tick();
    expect(edge.writes().filter((w) => w.startsWith('setImages'))).toEqual([
      `setImages jobs-manager pods-monitor-container=${ref(PM, PM2)}`,
    ]);
    const record = edge.writes().find((w) => w.startsWith('recordDigests')) ?? '';
    expect(JSON.parse(record.slice('recordDigests '.length))).toEqual({
      'tracebloc.io/last-refreshed-pods-monitor-digest': PM2,
      'tracebloc.io/pinned-pods-monitor-digest': PM2,
    });
    expect(outcome.events.filter((e) => e.code === 'STAGING_FAILED').map((e) => e.message)).toEqual([
      expect.stringContaining('for deployment/stg-requests-proxy on node edge-2 (ImagePullBackOff'),
    ]);
  });

  it('a workload not staged takes back only the pin markers of what it would have moved: a re-pin staged elsewhere keeps its own', async () => {
    const edge = await aSteadyEdge({ ...ON, RECONCILE_LIVE: '1' });
    edge.world.publish(JM, JM2);
    await edge.tick();
    // requests-proxy re-rendered on its tag (a re-pin, staged at once: its node has the recorded build), and a
    // pods-monitor build jobs-manager's node cannot pull.
    edge.world.helmRerender('requests-proxy');
    edge.world.nodes.failing.add(`${PM2} edge-1`);
    edge.world.publish(PM, PM2);
    edge.world.calls.length = 0;
    await edge.tick();
    expect(edge.writes()).toEqual([
      'writeRefreshAttempt 1',
      `setImages requests-proxy proxy=${ref(JM, JM2)}`,
      'clearFlapState',
      `recordDigests {"tracebloc.io/pinned-jobs-manager-digest":"${JM2}"}`,
    ]);
  });

  it('a pull that fails: one WARN naming the node and why, exit 0, no attempt, no set image, nothing recorded (I41)', async () => {
    const edge = await aSteadyEdge(ON);
    edge.world.nodes.failing.add(`${JM2} edge-1`);
    edge.world.publish(JM, JM2);
    const before = { ...edge.world.annotations };
    const outcome = await edge.tick();
    expect(outcome.exitCode).toBe(0);
    expect(edge.writes()).toEqual([]);
    expect(edge.world.annotations).toEqual(before);
    expect(outcome.events.filter((e) => e.code === 'STAGING_FAILED').map((e) => e.message)).toEqual([
      `WARN: could not stage ${ref(JM, JM2)} for deployment/stg-jobs-manager on node edge-1 (ImagePullBackOff: Back-off pulling image "${ref(JM, JM2)}"); not switching it this tick, no attempt spent. Will retry next tick.`,
      `WARN: could not stage ${ref(JM, JM2)} for deployment/stg-requests-proxy on node edge-1 (ImagePullBackOff: Back-off pulling image "${ref(JM, JM2)}"); not switching it this tick, no attempt spent. Will retry next tick.`,
    ]);
    expect(kubernetesEventsFor(outcome).map((e) => `${e.type} ${e.reason}`)).toEqual(['Warning RefreshStagingFailed']);
    // A failed pull ends that node's wait at once (ImagePullBackOff): the deadline is not spent on it.
    expect(edge.world.clockMs).toBeLessThan(1 * MINUTE);
    expect(edge.world.nodes.stagingPods.size).toBe(0);
  });

  it('what was staged goes on: resource-monitor fails on one node, jobs-manager and requests-proxy are switched and recorded', async () => {
    const edge = await aSteadyEdge(ON);
    edge.world.nodes.failing.add(`${RM2} edge-3`);
    edge.world.publish(JM, JM2);
    edge.world.publish(RM, RM2);
    const outcome = await edge.tick();
    expect(outcome.reimages.map((r) => r.workload.id)).toEqual(['jobs-manager', 'requests-proxy']);
    expect(edge.line('STAGING_FAILED')).toMatch(
      /for daemonset\/stg-resource-monitor in tracebloc-node-agents on node edge-3 \(ImagePullBackOff/,
    );
    expect(edge.world.annotations['tracebloc.io/last-refreshed-jobs-manager-digest']).toBe(JM2);
    expect(edge.world.annotations['tracebloc.io/last-refreshed-resource-monitor-digest']).toBe(simDigest(`${RM}#1`));
    expect(edge.writes()[0]).toBe('writeRefreshAttempt 1');
  });

  it('requests-proxy not staged holds jobs-manager’s digest back everywhere (I16); pods-monitor still moves', async () => {
    const edge = await aSteadyEdge(ON);
    edge.world.nodes.of['requests-proxy'] = ['edge-2'];
    edge.world.nodes.failing.add(`${JM2} edge-2`);
    edge.world.publish(JM, JM2);
    edge.world.publish(PM, PM2);
    const outcome = await edge.tick();
    expect(outcome.exitCode).toBe(0);
    expect(edge.writes().filter((w) => w.startsWith('setImages'))).toEqual([
      `setImages jobs-manager pods-monitor-container=${ref(PM, PM2)}`,
    ]);
    expect(edge.world.annotations['tracebloc.io/last-refreshed-jobs-manager-digest']).toBe(simDigest(`${JM}#1`));
    expect(edge.world.annotations['tracebloc.io/last-refreshed-pods-monitor-digest']).toBe(PM2);
  });

  it('a pull slower than PREPULL_TIMEOUT waits, fails, and is staged on a later tick: the layers stay on the node', async () => {
    const edge = await aSteadyEdge({ ...ON, PREPULL_TIMEOUT: '10m' });
    edge.world.slowLink(JM2, 20 * MINUTE);
    edge.world.publish(JM, JM2);
    let outcome = await edge.tick();
    expect(outcome.reimages).toEqual([]);
    expect(outcome.events.filter((e) => e.code === 'STAGING_FAILED').map((e) => e.message)).toEqual([
      `WARN: could not stage ${ref(JM, JM2)} for deployment/stg-jobs-manager on node edge-1 (still pulling when PREPULL_TIMEOUT=10m passed (ContainerCreating)); not switching it this tick, no attempt spent. Will retry next tick.`,
      `WARN: could not stage ${ref(JM, JM2)} for deployment/stg-requests-proxy (PREPULL_TIMEOUT=10m passed before its turn); not switching it this tick, no attempt spent. Will retry next tick.`,
    ]);
    edge.world.clockMs += 15 * MINUTE;
    edge.world.calls.length = 0;
    outcome = await edge.tick();
    expect(outcome.reimages.map((r) => r.workload.id)).toEqual(['jobs-manager', 'requests-proxy']);
  });

  it('PREPULL_PARALLEL nodes pull at once', async () => {
    const timeOf = async (parallel: string) => {
      const edge = await aSteadyEdge({ ...ON, PREPULL_PARALLEL: parallel });
      edge.world.slowLink(RM2, 5 * MINUTE);
      edge.world.publish(RM, RM2);
      const start = edge.world.clockMs;
      await edge.tick();
      return edge.world.clockMs - start;
    };
    const [one, three] = [await timeOf('1'), await timeOf('3')];
    expect(one).toBeGreaterThan(15 * MINUTE);
    expect(three).toBeLessThan(6 * MINUTE);
  });

  it('pods an earlier, killed tick left are found and removed; none outlives the tick', async () => {
    const edge = await aSteadyEdge(ON);
    edge.world.nodes.stagingPods.set('left', {
      workload: 'resource-monitor',
      node: 'edge-2',
      images: ref(RM, 'sha256:old'),
    });
    edge.world.publish(JM, JM2);
    await edge.tick();
    expect(edge.calls()).toContain(`deleteStagingPod resource-monitor edge-2 ${ref(RM, 'sha256:old')}`);
    expect(edge.world.nodes.stagingPods.size).toBe(0);
  });

  it('nothing staged but a first observation to record: the record is written, no attempt, no set image', async () => {
    const edge = await aSteadyEdge(ON);
    edge.world.nodes.failing.add(`${JM2} edge-1`);
    edge.world.publish(JM, JM2);
    edge.world.setAnnotation('tracebloc.io/last-refreshed-resource-monitor-digest', undefined);
    const outcome = await edge.tick();
    expect(outcome.exitCode).toBe(0);
    expect(edge.writes()).toEqual([
      `recordDigests {"tracebloc.io/last-refreshed-resource-monitor-digest":"${simDigest(`${RM}#1`)}"}`,
    ]);
  });

  it('a workload with two new images not staged names both, comma separated', async () => {
    const edge = await aSteadyEdge(ON);
    edge.world.injectClusterFault('stageImages', 'Forbidden');
    edge.world.publish(JM, JM2);
    edge.world.publish(PM, PM2);
    const outcome = await edge.tick();
    expect(outcome.events.filter((e) => e.code === 'STAGING_FAILED').map((e) => e.message)).toEqual(
      [
        [`${ref(JM, JM2)}, ${ref(PM, PM2)}`, 'deployment/stg-jobs-manager'],
        [ref(JM, JM2), 'deployment/stg-requests-proxy'],
      ].map(
        ([images, w]) =>
          `WARN: could not stage ${images} for ${w} (Forbidden: simulated Forbidden on the staging pods); not switching it this tick, no attempt spent. Will retry next tick.`,
      ),
    );
  });

  it('the staging call failing as a whole stages nothing, so switches nothing (fail closed)', async () => {
    const edge = await aSteadyEdge(ON);
    edge.world.injectClusterFault('stageImages', 'Forbidden');
    edge.world.publish(JM, JM2);
    const outcome = await edge.tick();
    expect(outcome.reimages).toEqual([]);
    expect(edge.writes()).toEqual([]);
    expect(outcome.events.filter((e) => e.code === 'STAGING_FAILED').map((e) => e.message)).toEqual(
      ['deployment/stg-jobs-manager', 'deployment/stg-requests-proxy'].map(
        (w) =>
          `WARN: could not stage ${ref(JM, JM2)} for ${w} (Forbidden: simulated Forbidden on the staging pods); not switching it this tick, no attempt spent. Will retry next tick.`,
      ),
    );
  });

  it('RefreshStaging that cannot be recorded is a WARN; staging goes on. IMAGE_REFRESH_EVENTS=0 records none', async () => {
    const edge = await aSteadyEdge(ON);
    edge.world.injectClusterFault('recordEvent', 'Forbidden');
    edge.world.publish(JM, JM2);
    let outcome = await edge.tick();
    expect(outcome.events.find((e) => e.code === 'EVENT_NOT_RECORDED')?.message).toBe(
      "WARN: could not record the Kubernetes Event RefreshStaging (Forbidden (HTTP 403): simulated Forbidden on recordEvent); the tick's outcome is unchanged",
    );
    expect(outcome.reimages).toHaveLength(2);
    const quiet = await aSteadyEdge({ ...ON, IMAGE_REFRESH_EVENTS: '0' });
    quiet.world.publish(JM, JM2);
    outcome = await quiet.tick();
    expect(quiet.ops()).not.toContain('recordEvent');
    expect(outcome.reimages).toHaveLength(2);
  });

  it('no staging in the flap lockout or on a low pull budget', async () => {
    const locked = await aSteadyEdge(ON);
    locked.world.setAnnotation('tracebloc.io/refresh-attempt', '3');
    locked.world.publish(JM, JM2);
    await locked.tick();
    expect(locked.ops()).not.toContain('stageImage');
    const poor = await aSteadyEdge(ON);
    poor.world.rateLimitRemaining = 2;
    poor.world.publish(JM, JM2);
    await poor.tick();
    expect(poor.ops()).not.toContain('stageImage');
  });

  it('without a staging port nothing is staged, so nothing is switched', async () => {
    const world = new SimWorld(simConfig(ON));
    const { staging: _none, ...ports } = simPorts(world);
    await runTick(world.config, ports);
    world.publish(JM, JM2);
    const outcome = await runTick(world.config, ports);
    expect(outcome.reimages).toEqual([]);
    expect(outcome.events.find((e) => e.code === 'STAGING_FAILED')?.message).toContain(
      'no staging port (TickPorts.staging)',
    );
  });

  it('--dry-run says where it would stage and pretends every node staged', async () => {
    const world = new SimWorld(simConfig(ON));
    await runTick(world.config, simPorts(world));
    world.publish(JM, JM2);
    world.publish(PM, PM2);
    const said: string[] = [];
    const outcome = await runTick(
      world.config,
      dryRunPorts(simPorts(world), world.config, (a) => said.push(a)),
    );
    expect(said.filter((a) => a.startsWith('stage '))).toEqual([
      `stage ${ref(JM, JM2)}, ${ref(PM, PM2)} on the nodes of deployment/stg-jobs-manager -n tracebloc (up to 30m)`,
      `stage ${ref(JM, JM2)} on the nodes of deployment/stg-requests-proxy -n tracebloc (up to 30m)`,
    ]);
    expect(world.calls.map((c) => c.op)).not.toContain('stageImage');
    // Nothing was staged for real: no node is named.
    expect(outcome.events.filter((e) => e.code === 'STAGED').map((e) => e.message)).toEqual([
      `staged ${ref(JM, JM2)}, ${ref(PM, PM2)} on no node (no pod of it runs now) for deployment/stg-jobs-manager`,
      `staged ${ref(JM, JM2)} on no node (no pod of it runs now) for deployment/stg-requests-proxy`,
    ]);
  });

  it('a signal while the RefreshStaging Event is recorded, or while the platforms are read, is said where it came', async () => {
    const interruptAt = async (
      env: Record<string, string>,
      wrap: (ports: TickPorts, stop: () => void) => TickPorts,
    ) => {
      const world = new SimWorld(simConfig(env));
      const ports = simPorts(world);
      await runTick(world.config, ports);
      world.publish(JM, JM2);
      const stop = new AbortController();
      const outcome = await runTick(
        world.config,
        wrap(ports, () => stop.abort(interruptedBy('SIGTERM'))),
        {
          signal: stop.signal,
        },
      );
      return outcome.events.at(-1)?.message;
    };
    expect(
      await interruptAt(ON, (ports, stop) => ({
        ...ports,
        events: {
          record: (e) => {
            stop();
            return ports.events?.record(e) ?? (() => Promise.resolve({ _tag: 'Right', right: undefined }));
          },
        },
      })),
    ).toBe(
      'interrupted by SIGTERM while recording the RefreshStaging Event (nothing was switched): refresh-attempt unchanged, digests not recorded',
    );
    expect(
      await interruptAt({ PLATFORM_CHECK: 'on' }, (ports, stop) => ({
        ...ports,
        platforms: {
          read: (target) => {
            stop();
            if (ports.platforms === undefined) throw new Error('the simulator has a platform port');
            return ports.platforms.read(target);
          },
        },
      })),
    ).toBe(
      'interrupted by SIGTERM while reading the platforms of new digests (nothing of them was acted on): refresh-attempt unchanged, digests not recorded',
    );
  });

  it('a signal while staging: the tick ends interrupted, says so, and the attempt is not spent', async () => {
    const world = new SimWorld(simConfig(ON));
    const ports = simPorts(world);
    await runTick(world.config, ports);
    world.publish(JM, JM2);
    const stop = new AbortController();
    const { staging } = ports;
    if (staging === undefined) throw new Error('the simulator has a staging port');
    const outcome = await runTick(
      world.config,
      {
        ...ports,
        staging: {
          stage: (request) => () => {
            stop.abort(interruptedBy('SIGTERM'));
            return staging.stage(request)();
          },
        },
      },
      { signal: stop.signal },
    );
    expect(outcome.exitCode).toBe(143);
    expect(outcome.events.at(-1)?.message).toBe(
      'interrupted by SIGTERM while staging the new images on their nodes (no pod was switched): refresh-attempt unchanged, digests not recorded',
    );
    expect(world.annotations['tracebloc.io/refresh-attempt']).toBeUndefined();
  });
});
