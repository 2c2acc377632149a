import { describe, expect, it } from 'vitest';
import { dryRunPorts } from '../src/dry-run.js';
import { kubernetesEventsFor } from '../src/machine/kubernetes-events.js';
import { runTick } from '../src/run-tick.js';
import { simDigest, simPorts } from '../src/sim/index.js';
import { aSteadyEdge, JM, PM } from './support/edge.js';

// The way back (docs/behaviour.md §3.4a, §3.6): ON_ROLLOUT_FAILURE
// and ROLLOUT_STABLE_FOR. Assertions are the writes the simulated cluster
// received, what its pods run afterwards, and the lines and Events said.

const JM_KEY = 'tracebloc.io/last-refreshed-jobs-manager-digest';
const QUARANTINE_KEY = 'tracebloc.io/quarantined-jobs-manager-digest';
const ATTEMPT_KEY = 'tracebloc.io/refresh-attempt';
const ref = (repo: string, digest: string) => `docker.io/${repo}@${digest}`;
const JM1 = simDigest(`${JM}#1`);
const JM2 = simDigest(`${JM}#2`);
const JM3 = simDigest(`${JM}#3`);
const REVERT = { ON_ROLLOUT_FAILURE: 'revert' };

/** A steady edge on which build 2 of jobs-manager is published and crash-loops. */
const aBadBuild = async (env: Record<string, string> = REVERT) => {
  const edge = await aSteadyEdge(env);
  edge.world.publish(JM, JM2);
  edge.world.breakBuild(JM2);
  return edge;
};

describe('ON_ROLLOUT_FAILURE=revert: a failed rollout goes back to the recorded digest (I29)', () => {
  it('sets the container back as a digest reference, waits for it, quarantines the bad digest: exit 1, ROLLED BACK', async () => {
    const edge = await aBadBuild();
    const outcome = await edge.tick();
    expect(outcome.result).toBe('rolledBack');
    expect(outcome.exitCode).toBe(1);
    expect(edge.writes()).toEqual([
      'writeRefreshAttempt 1',
      `setImages jobs-manager api=${ref(JM, JM2)}`,
      `setImages jobs-manager api=${ref(JM, JM1)}`,
      `quarantineDigests ${JSON.stringify({ [QUARANTINE_KEY]: JM2 })}`,
    ]);
    expect(edge.ops().filter((op) => op === 'waitForRollout')).toHaveLength(2);
    // Never back to repo:tag, which names the bad build now.
    expect(edge.world.workload('jobs-manager').images.api).toBe(ref(JM, JM1));
    expect(edge.world.workload('requests-proxy').images.proxy).toBe('docker.io/tracebloc/jobs-manager:stg');
    // refresh-attempt as persisted before the re-image; the record as it was (I7).
    expect(edge.world.annotations[ATTEMPT_KEY]).toBe('1');
    expect(edge.world.annotations[JM_KEY]).toBe(JM1);
    expect(edge.line('ROLLED_BACK')).toMatch(
      new RegExp(
        `^ROLLED BACK deployment/stg-jobs-manager from ${JM2} to ${JM1}: its rollout did not complete within ROLLOUT_TIMEOUT=10m`,
      ),
    );
    expect(outcome.reverts?.map((r) => [r.workload.id, r.rolledOut])).toEqual([['jobs-manager', true]]);
    const events = kubernetesEventsFor(outcome);
    expect(events.find((e) => e.reason === 'RefreshRolledBack')?.type).toBe('Warning');
    expect(events.find((e) => e.reason === 'RefreshQuarantined')?.type).toBe('Normal');
    expect(events.map((e) => e.reason)).not.toContain('RefreshReimaged');
  });

  it('a quarantined digest is held each tick (exit 0, no Event), and a fixed build two ticks later rolls out (I30)', async () => {
    const edge = await aBadBuild();
    await edge.tick();
    edge.world.calls.length = 0;
    const held = await edge.tick();
    expect(held.exitCode).toBe(0);
    expect(edge.writes()).toEqual([]);
    expect(edge.line('DIGEST_QUARANTINED')).toContain(`latest=${JM2} is quarantined (${QUARANTINE_KEY}`);
    expect(kubernetesEventsFor(held).map((e) => e.reason)).not.toContain('RefreshQuarantined');
    expect(edge.world.workload('jobs-manager').images.api).toBe(ref(JM, JM1));

    edge.world.publish(JM, JM3);
    edge.world.calls.length = 0;
    const fixed = await edge.tick();
    expect(fixed.result).toBe('complete');
    expect(fixed.exitCode).toBe(0);
    expect(edge.world.workload('jobs-manager').images.api).toBe(ref(JM, JM3));
    expect(edge.world.workload('requests-proxy').images.proxy).toBe(ref(JM, JM3));
    expect(edge.world.annotations[JM_KEY]).toBe(JM3);
    expect(edge.world.annotations[ATTEMPT_KEY]).toBeUndefined();
    // The stale quarantine stays until rearm: it still holds the bad build back should the tag point at it again.
    expect(edge.world.annotations[QUARANTINE_KEY]).toBe(JM2);
  });

  it('a workload that completed on the same bad digest is reverted too (requests-proxy follows jobs-manager)', async () => {
    const edge = await aSteadyEdge({ ...REVERT, ROLLOUT_STABLE_FOR: '1m' });
    edge.world.publish(JM, JM2);
    edge.world.setBehaviour('requests-proxy', 'fallsApart');
    const outcome = await edge.tick();
    expect(outcome.result).toBe('rolledBack');
    expect(edge.writes()).toEqual([
      'writeRefreshAttempt 1',
      `setImages jobs-manager api=${ref(JM, JM2)}`,
      `setImages requests-proxy proxy=${ref(JM, JM2)}`,
      `setImages jobs-manager api=${ref(JM, JM1)}`,
      `setImages requests-proxy proxy=${ref(JM, JM1)}`,
      `quarantineDigests ${JSON.stringify({ [QUARANTINE_KEY]: JM2 })}`,
    ]);
    expect(edge.world.workload('jobs-manager').images.api).toBe(ref(JM, JM1));
    expect(edge.world.workload('requests-proxy').images.proxy).toBe(ref(JM, JM1));
    expect(outcome.events.filter((e) => e.code === 'ROLLED_BACK').map((e) => e.message)).toEqual([
      expect.stringMatching(
        /^ROLLED BACK deployment\/stg-jobs-manager from .* it did not stay complete for ROLLOUT_STABLE_FOR=1m/,
      ),
      expect.stringMatching(/^ROLLED BACK deployment\/stg-requests-proxy from /),
    ]);
    // jobs-manager's own rollout completed, but the rollback set it back: no RefreshReimaged for it.
    expect(kubernetesEventsFor(outcome).map((e) => e.reason)).not.toContain('RefreshReimaged');
    // Each workload set back is waited for and said complete before the next is touched.
    const wayBack = outcome.events.slice(outcome.events.findIndex((e) => e.code === 'ROLLING_BACK'));
    const steps = wayBack.filter((e) => e.code === 'ROLLING_BACK' || e.code === 'ROLLOUT_COMPLETE');
    expect(steps.map((e) => e.message.replace(/:.*/, ''))).toEqual([
      'rolling back deployment/stg-jobs-manager',
      'deployment/stg-jobs-manager rollout complete',
      'rolling back deployment/stg-requests-proxy',
      'deployment/stg-requests-proxy rollout complete',
    ]);
  });

  it('every container the tick moved goes back, the other image of the failed workload included', async () => {
    const edge = await aBadBuild();
    const pm2 = simDigest(`${PM}#2`);
    edge.world.publish(PM, pm2);
    await edge.tick();
    expect(edge.world.workload('jobs-manager').images).toEqual({
      api: ref(JM, JM1),
      'pods-monitor-container': ref(PM, simDigest(`${PM}#1`)),
    });
    // Which container crashed is not known: the whole failed workload's new digests are quarantined.
    expect(edge.world.annotations['tracebloc.io/quarantined-pods-monitor-digest']).toBe(pm2);
  });

  it('a rollback whose own rollout fails is ROLLBACK FAILED: exit 1, no quarantine, the flap lockout afterwards as ever', async () => {
    const edge = await aSteadyEdge({ ...REVERT, MAX_REFRESH_ATTEMPTS: '2' });
    edge.world.publish(JM, JM2);
    edge.world.setBehaviour('jobs-manager', 'flaps');
    const outcome = await edge.tick();
    expect(outcome.result).toBe('rollbackFailed');
    expect(outcome.exitCode).toBe(1);
    expect(edge.writes()).toEqual([
      'writeRefreshAttempt 1',
      `setImages jobs-manager api=${ref(JM, JM2)}`,
      `setImages jobs-manager api=${ref(JM, JM1)}`,
    ]);
    expect(edge.line('ROLLBACK_FAILED')).toMatch(
      /^ERROR: ROLLBACK FAILED: rolling deployment\/stg-jobs-manager back to /,
    );
    expect(edge.world.annotations[QUARANTINE_KEY]).toBeUndefined();
    expect(kubernetesEventsFor(outcome).find((e) => e.reason === 'RefreshRollbackFailed')?.type).toBe('Warning');

    // Nothing was quarantined: the next tick tries the same build, and the lockout counts it.
    await edge.tick();
    edge.world.calls.length = 0;
    const locked = await edge.tick();
    expect(locked.result).toBe('flapLockout');
  });

  it('a wait that could not read the workload fails the rollout too: rolled back, the cause named', async () => {
    const edge = await aSteadyEdge(REVERT);
    edge.world.publish(JM, JM2);
    edge.world.injectClusterFault('waitForRollout', 'Transport', 1);
    const outcome = await edge.tick();
    expect(outcome.result).toBe('rolledBack');
    expect(edge.line('ROLLED_BACK')).toContain(`from ${JM2} to ${JM1}: its rollout failed (Transport`);
  });

  it('a set image refused after an earlier workload completed: that one goes back, nothing is quarantined', async () => {
    // OWNERSHIP_CHECK=off: the check reads requests-proxy first and would end the tick on its NotFound.
    const edge = await aSteadyEdge({ ...REVERT, OWNERSHIP_CHECK: 'off' });
    edge.world.publish(JM, JM2);
    edge.world.workload('requests-proxy').exists = false;
    const outcome = await edge.tick();
    expect(outcome.result).toBe('rolledBack');
    expect(edge.writes()).toEqual([
      'writeRefreshAttempt 1',
      `setImages jobs-manager api=${ref(JM, JM2)}`,
      `setImages requests-proxy proxy=${ref(JM, JM2)}`,
      `setImages jobs-manager api=${ref(JM, JM1)}`,
    ]);
    expect(edge.world.workload('jobs-manager').images.api).toBe(ref(JM, JM1));
    expect(edge.world.annotations[QUARANTINE_KEY]).toBeUndefined();
    expect(edge.line('ROLLED_BACK')).toContain(
      `from ${JM2} to ${JM1}: set image on deployment/stg-requests-proxy was refused (NotFound`,
    );
  });

  it('a set image refused on the first workload has nothing to roll back: it ends as under keep', async () => {
    const edge = await aSteadyEdge(REVERT);
    edge.world.publish(JM, JM2);
    edge.world.injectClusterFault('setImages', 'Forbidden');
    const outcome = await edge.tick();
    expect(outcome.result).toBe('reimageFailed');
    expect(outcome.reverts).toBeUndefined();
  });

  it('with no well-formed recorded digest to go back to, nothing is guessed: ROLLBACK FAILED, nothing else touched', async () => {
    const edge = await aBadBuild();
    edge.world.setAnnotation(JM_KEY, 'edited-by-hand');
    const outcome = await edge.tick();
    expect(outcome.result).toBe('rollbackFailed');
    expect(edge.writes()).toEqual(['writeRefreshAttempt 1', `setImages jobs-manager api=${ref(JM, JM2)}`]);
    expect(edge.line('ROLLBACK_FAILED')).toContain('holds "edited-by-hand"); a rollback would have to guess');
    // Nothing to go back to, so nothing is promised up front either (announceRevertReady).
    expect(edge.codes()).not.toContain('REVERT_READY');
  });

  it('under keep (the default) a failed rollout is left as it is, as the script', async () => {
    const edge = await aBadBuild({});
    const outcome = await edge.tick();
    expect(outcome.result).toBe('reimageFailed');
    expect(outcome.reverts).toBeUndefined();
    expect(edge.writes()).toEqual(['writeRefreshAttempt 1', `setImages jobs-manager api=${ref(JM, JM2)}`]);
    expect(edge.world.workload('jobs-manager').images.api).toBe(ref(JM, JM2));
  });
});

describe('ROLLOUT_STABLE_FOR: a rollout counts once it stayed complete for the window', () => {
  it('falling apart inside the window is a failed rollout under keep: nothing recorded, the attempt stays', async () => {
    const edge = await aSteadyEdge({ ROLLOUT_STABLE_FOR: '2m' });
    edge.world.publish(JM, JM2);
    edge.world.setBehaviour('jobs-manager', 'fallsApart');
    const outcome = await edge.tick();
    expect(outcome.result).toBe('reimageFailed');
    expect(outcome.exitCode).toBe(1);
    expect(edge.line('ROLLOUT_FAILED')).toMatch(
      /^ERROR: rollout of deployment\/stg-jobs-manager completed but did not stay complete for ROLLOUT_STABLE_FOR=2m/,
    );
    expect(edge.world.annotations[JM_KEY]).toBe(JM1);
    expect(edge.world.annotations[ATTEMPT_KEY]).toBe('1');
  });

  it('0s (the default) counts it the moment it completes, as the script: no watch at all', async () => {
    const edge = await aSteadyEdge();
    edge.world.publish(JM, JM2);
    edge.world.setBehaviour('jobs-manager', 'fallsApart');
    const outcome = await edge.tick();
    expect(outcome.result).toBe('complete');
    expect(edge.ops()).not.toContain('watchStability');
  });

  it('a workload that stays complete is watched for the whole window, then counts', async () => {
    const edge = await aSteadyEdge({ ROLLOUT_STABLE_FOR: '90s' });
    edge.world.publish(JM, JM2);
    const before = edge.world.clockMs;
    const outcome = await edge.tick();
    expect(outcome.result).toBe('complete');
    expect(edge.ops().filter((op) => op === 'watchStability')).toHaveLength(2);
    expect(outcome.events.filter((e) => e.code === 'STABILITY_WATCH').map((e) => e.message)).toEqual([
      'deployment/stg-jobs-manager rollout complete; it must stay complete for ROLLOUT_STABLE_FOR=1m30s before the re-image counts',
      'deployment/stg-requests-proxy rollout complete; it must stay complete for ROLLOUT_STABLE_FOR=1m30s before the re-image counts',
    ]);
    expect(edge.world.clockMs - before).toBeGreaterThanOrEqual(2 * 90_000);
    expect(edge.world.annotations[JM_KEY]).toBe(JM2);
  });
});

describe('the way back beside the ports', () => {
  it('--dry-run cannot know a rollout would fail: every pretend wait succeeds, and REVERT_READY says where each workload would go back to', async () => {
    const edge = await aBadBuild();
    const said: string[] = [];
    const ports = simPorts(edge.world);
    const outcome = await runTick(
      edge.config,
      dryRunPorts(ports, edge.config, (line) => said.push(line)),
    );
    expect(outcome.result).toBe('complete');
    const ready = outcome.events.find((e) => e.code === 'REVERT_READY')?.message;
    expect(ready).toBe(
      `ON_ROLLOUT_FAILURE=revert: should a rollout of this tick fail, each workload it moved goes back to its recorded digest: deployment/stg-jobs-manager api=${ref(JM, JM1)}; deployment/stg-requests-proxy proxy=${ref(JM, JM1)}`,
    );
    expect(edge.world.workload('jobs-manager').images.api).toBe('docker.io/tracebloc/jobs-manager:stg');
    expect(said.filter((l) => l.startsWith('set image'))).toHaveLength(2);
  });

  it('under keep no REVERT_READY line is said', async () => {
    const edge = await aSteadyEdge();
    edge.world.publish(JM, JM2);
    const outcome = await edge.tick();
    expect(outcome.events.map((e) => e.code)).not.toContain('REVERT_READY');
  });

  it('a ClusterPort without watchStability fails a windowed rollout closed, saying why', async () => {
    const edge = await aSteadyEdge({ ROLLOUT_STABLE_FOR: '1m' });
    edge.world.publish(JM, JM2);
    const { watchStability: _, ...older } = simPorts(edge.world).cluster;
    const outcome = await runTick(edge.config, { ...simPorts(edge.world), cluster: older });
    expect(outcome.result).toBe('reimageFailed');
    expect(outcome.findings.map((f) => f.message).join('\n')).toContain('this ClusterPort has no watchStability');
  });
});
