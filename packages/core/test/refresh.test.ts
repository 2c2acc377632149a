import { describe, expect, it } from 'vitest';
import { simDigest } from '../src/sim/index.js';
import { ANNOTATION } from './support/chart.js';
import { anEdge, aSteadyEdge, JM, PM, RM } from './support/edge.js';

// docs/behaviour.md §3.3–§3.8: resolve, compare, flap back-off, re-image, success reset,
// record. Assertions are the writes the simulated cluster received, in order.

const JM_KEY = 'tracebloc.io/last-refreshed-jobs-manager-digest';
const PM_KEY = 'tracebloc.io/last-refreshed-pods-monitor-digest';
const RM_KEY = 'tracebloc.io/last-refreshed-resource-monitor-digest';
const ref = (repo: string, digest: string) => `docker.io/${repo}@${digest}`;

describe('first observation (#569)', () => {
  it('records every digest without re-imaging anything (I8)', async () => {
    const edge = anEdge();
    const outcome = await edge.tick();
    expect(outcome.exitCode).toBe(0);
    expect(outcome.reimages).toEqual([]);
    // The ownership check found every container the followed image's: the topology is remembered (§3.4c).
    expect(edge.writes()).toEqual([
      expect.stringMatching(/^recordTopologyFingerprint v1-[0-9a-f]{16}$/),
      `recordDigests ${JSON.stringify({
        [JM_KEY]: simDigest(`${JM}#1`),
        [PM_KEY]: simDigest(`${PM}#1`),
        [RM_KEY]: simDigest(`${RM}#1`),
      })}`,
    ]);
    expect(edge.world.workload('jobs-manager').images.api).toBe('docker.io/tracebloc/jobs-manager:stg');
  });

  it('a steady tick writes nothing at all', async () => {
    const edge = await aSteadyEdge();
    const outcome = await edge.tick();
    expect(outcome.exitCode).toBe(0);
    expect(edge.writes()).toEqual([]);
    expect(outcome.events.filter((e) => e.code === 'DIGEST_UNCHANGED')).toHaveLength(3);
  });
});

describe('drift: re-image in order, reset, then record (#569, #626)', () => {
  it('both jobs-manager containers in one patch, requests-proxy follows, the DaemonSet in its own namespace (I16)', async () => {
    const edge = await aSteadyEdge();
    const jm2 = simDigest(`${JM}#2`);
    const pm2 = simDigest(`${PM}#2`);
    const rm2 = simDigest(`${RM}#2`);
    edge.world.publish(JM, jm2);
    edge.world.publish(PM, pm2);
    edge.world.publish(RM, rm2);
    const outcome = await edge.tick();
    expect(outcome.exitCode).toBe(0);
    expect(edge.writes()).toEqual([
      'writeRefreshAttempt 1',
      `setImages jobs-manager api=${ref(JM, jm2)} pods-monitor-container=${ref(PM, pm2)}`,
      `setImages requests-proxy proxy=${ref(JM, jm2)}`,
      `setImages resource-monitor tracebloc-resource-monitor=${ref(RM, rm2)}`,
      'clearFlapState',
      `recordDigests ${JSON.stringify({ [JM_KEY]: jm2, [PM_KEY]: pm2, [RM_KEY]: rm2 })}`,
    ]);
    expect(outcome.writes.map((w) => w.kind)).toEqual(['writeRefreshAttempt', 'clearFlapState', 'recordDigests']);
    expect(outcome.writes[1]?.annotations).toEqual({
      [ANNOTATION.refreshAttempt]: null,
      [ANNOTATION.flapDetected]: null,
    });
    expect(outcome.reimages.map((r) => [r.workload.kind, r.workload.namespace, r.workload.name, r.rolledOut])).toEqual([
      ['Deployment', 'tracebloc', 'stg-jobs-manager', true],
      ['Deployment', 'tracebloc', 'stg-requests-proxy', true],
      ['DaemonSet', 'tracebloc-node-agents', 'stg-resource-monitor', true],
    ]);
  });

  it('each set image is followed by its own rollout wait, before the next workload', async () => {
    const edge = await aSteadyEdge();
    edge.world.publish(JM, simDigest(`${JM}#2`));
    edge.world.publish(RM, simDigest(`${RM}#2`));
    await edge.tick();
    expect(edge.ops().filter((op) => op === 'setImages' || op === 'waitForRollout')).toEqual([
      'setImages',
      'waitForRollout',
      'setImages',
      'waitForRollout',
      'setImages',
      'waitForRollout',
    ]);
  });

  it('only the drifted image moves: pods-monitor alone re-images jobs-manager alone', async () => {
    const edge = await aSteadyEdge();
    const pm2 = simDigest(`${PM}#2`);
    edge.world.publish(PM, pm2);
    await edge.tick();
    expect(edge.writes()).toEqual([
      'writeRefreshAttempt 1',
      `setImages jobs-manager pods-monitor-container=${ref(PM, pm2)}`,
      'clearFlapState',
      `recordDigests ${JSON.stringify({ [PM_KEY]: pm2 })}`,
    ]);
  });

  it('a first observation rides along with drift and is recorded with it', async () => {
    const edge = await aSteadyEdge();
    edge.world.setAnnotation(RM_KEY, undefined);
    const jm2 = simDigest(`${JM}#2`);
    edge.world.publish(JM, jm2);
    await edge.tick();
    expect(edge.writes().at(-1)).toBe(
      `recordDigests ${JSON.stringify({ [JM_KEY]: jm2, [RM_KEY]: simDigest(`${RM}#1`) })}`,
    );
    expect(edge.writes().some((w) => w.startsWith('setImages resource-monitor'))).toBe(false);
  });

  it('a stalled rollout fails the tick, leaves the attempt counted and the digests unrecorded', async () => {
    const edge = await aSteadyEdge();
    edge.world.setBehaviour('jobs-manager', 'stalls');
    const jm2 = simDigest(`${JM}#2`);
    edge.world.publish(JM, jm2);
    const outcome = await edge.tick();
    expect(outcome.exitCode).toBe(1);
    expect(outcome.result).toBe('reimageFailed');
    expect(edge.line('ROLLOUT_FAILED')).toContain('RolloutTimedOut');
    expect(edge.writes()).toEqual(['writeRefreshAttempt 1', `setImages jobs-manager api=${ref(JM, jm2)}`]);
    expect(edge.world.annotations[ANNOTATION.refreshAttempt]).toBe('1');
    expect(edge.world.annotations[JM_KEY]).toBe(simDigest(`${JM}#1`));
  });

  it('a failed set image fails the tick with the attempt counted', async () => {
    const edge = await aSteadyEdge();
    edge.world.publish(JM, simDigest(`${JM}#2`));
    edge.world.injectClusterFault('setImages', 'Forbidden');
    const outcome = await edge.tick();
    expect(outcome.exitCode).toBe(1);
    expect(edge.line('SET_IMAGE_FAILED')).toContain('Forbidden (HTTP 403)');
    expect(edge.world.annotations[ANNOTATION.refreshAttempt]).toBe('1');
    expect(edge.ops()).not.toContain('waitForRollout');
  });

  it('the attempt is persisted before any workload is touched; a failed write re-images nothing (I9)', async () => {
    const edge = await aSteadyEdge();
    edge.world.publish(JM, simDigest(`${JM}#2`));
    edge.world.injectClusterFault('patchBookkeeping', 'Transport', 1, `${ANNOTATION.refreshAttempt}=`);
    const outcome = await edge.tick();
    expect(outcome.exitCode).toBe(1);
    expect(outcome.result).toBe('attemptWriteFailed');
    expect(edge.ops()).not.toContain('setImages');
  });

  it('a failed success reset is a finding, yet the completed rollouts are still recorded (I7, I12)', async () => {
    const edge = await aSteadyEdge();
    const jm2 = simDigest(`${JM}#2`);
    edge.world.publish(JM, jm2);
    edge.world.injectClusterFault('patchBookkeeping', 'Transport', 1, `${ANNOTATION.refreshAttempt}-`);
    const outcome = await edge.tick();
    expect(outcome.exitCode).toBe(1);
    expect(edge.line('SUCCESS_RESET_FAILED')).toContain('could not be cleared');
    expect(edge.writes().slice(-2)).toEqual(['clearFlapState', `recordDigests ${JSON.stringify({ [JM_KEY]: jm2 })}`]);
    expect(edge.world.annotations[JM_KEY]).toBe(jm2);
  });

  it('a failed digest record is a finding; the success reset has already landed (#626)', async () => {
    const edge = await aSteadyEdge();
    edge.world.setAnnotation(ANNOTATION.refreshAttempt, '2');
    edge.world.publish(JM, simDigest(`${JM}#2`));
    edge.world.injectClusterFault('patchBookkeeping', 'Timeout', 1, 'tracebloc.io/last-refreshed-');
    const outcome = await edge.tick();
    expect(outcome.exitCode).toBe(1);
    expect(outcome.result).toBe('recordFailed');
    expect(edge.world.annotations[ANNOTATION.refreshAttempt]).toBeUndefined();
  });
});

describe('flap back-off (#563, #626)', () => {
  it('at MAX_REFRESH_ATTEMPTS: flap marker, MANUAL ATTENTION NEEDED, no re-image, exit 0 (I10)', async () => {
    const edge = await aSteadyEdge();
    edge.world.setAnnotation(ANNOTATION.refreshAttempt, '3');
    edge.world.publish(JM, simDigest(`${JM}#2`));
    const outcome = await edge.tick();
    expect(outcome.exitCode).toBe(0);
    expect(outcome.result).toBe('flapLockout');
    expect(edge.writes()).toEqual(['markFlapDetected 3']);
    const flap = edge.line('FLAP_DETECTED');
    expect(flap).toContain('FLAP DETECTED');
    expect(flap).toContain('MANUAL ATTENTION NEEDED');
    expect(flap).toContain('deployment/stg-requests-proxy');
    expect(flap).toContain('kubectl annotate deployment -n tracebloc stg-jobs-manager tracebloc.io/refresh-attempt-');
  });

  it('one below the ceiling still re-images, as attempt MAX', async () => {
    const edge = await aSteadyEdge();
    edge.world.setAnnotation(ANNOTATION.refreshAttempt, '2');
    edge.world.publish(JM, simDigest(`${JM}#2`));
    const outcome = await edge.tick();
    expect(outcome.exitCode).toBe(0);
    expect(edge.line('REIMAGING')).toContain('attempt 3/3');
    expect(edge.writes()[0]).toBe('writeRefreshAttempt 3');
  });

  it('a flapping workload fails MAX times, then is locked out until a human clears the counter', async () => {
    const edge = await aSteadyEdge();
    edge.world.setBehaviour('jobs-manager', 'flaps');
    edge.world.publish(JM, simDigest(`${JM}#2`));
    const results = [];
    for (let i = 0; i < 5; i++) results.push((await edge.tick()).result);
    expect(results).toEqual(['reimageFailed', 'reimageFailed', 'reimageFailed', 'flapLockout', 'flapLockout']);
    edge.world.setBehaviour('jobs-manager', 'settles');
    expect((await edge.tick()).result).toBe('flapLockout'); // no auto-resume
    edge.world.setAnnotation(ANNOTATION.refreshAttempt, undefined);
    const rearmed = await edge.tick();
    expect(rearmed.result).toBe('complete');
    expect(edge.world.annotations[ANNOTATION.flapDetected]).toBeUndefined();
    expect(edge.world.annotations[JM_KEY]).toBe(simDigest(`${JM}#2`));
  });

  it('an unreadable attempt counter re-images nothing and exits 0 — the safe branch (I11)', async () => {
    const edge = await aSteadyEdge();
    edge.world.publish(JM, simDigest(`${JM}#2`));
    edge.world.armClusterFault({ op: 'readGate', readIndex: 3 }, 'Transport');
    const outcome = await edge.tick();
    expect(outcome.exitCode).toBe(0);
    expect(outcome.result).toBe('attemptUnreadable');
    expect(edge.line('ATTEMPT_UNREADABLE')).toContain('skipping the re-image this tick');
    expect(edge.writes()).toEqual([]);
    // The script's safe branch logs "tick complete" before its exit 0, as a normal end does.
    expect(outcome.events.at(-1)?.message).toBe('tick complete');
  });

  it('a flap marker that cannot be written fails the tick and still re-images nothing', async () => {
    const edge = await aSteadyEdge();
    edge.world.setAnnotation(ANNOTATION.refreshAttempt, '5');
    edge.world.publish(JM, simDigest(`${JM}#2`));
    edge.world.injectClusterFault('patchBookkeeping', 'Forbidden', 1, `${ANNOTATION.flapDetected}=`);
    const outcome = await edge.tick();
    expect(outcome.exitCode).toBe(1);
    expect(outcome.result).toBe('flapMarkFailed');
    expect(edge.ops()).not.toContain('setImages');
  });
});

describe('recorded digests are read fail-closed (docs/behaviour.md §5)', () => {
  it('unreadable records re-image nothing and record nothing: never "first observation"', async () => {
    const edge = await aSteadyEdge();
    edge.world.publish(JM, simDigest(`${JM}#2`));
    edge.world.armClusterFault({ op: 'readGate', readIndex: 2 }, 'Transport');
    const outcome = await edge.tick();
    expect(outcome.exitCode).toBe(0);
    expect(outcome.result).toBe('recordedDigestsUnreadable');
    expect(edge.line('RECORDED_DIGESTS_UNREADABLE')).toContain('nothing is recorded or re-imaged');
    expect(edge.writes()).toEqual([]);
    // An exit 0 that acted on nothing still ends as every exit-0 tick does.
    expect(outcome.events.at(-1)?.message).toBe('tick complete');
  });
});

describe('registry (#569, I15, I19)', () => {
  it("one repo's failure skips that image only; the others refresh", async () => {
    const edge = await aSteadyEdge();
    const rm2 = simDigest(`${RM}#2`);
    edge.world.publish(JM, simDigest(`${JM}#2`));
    edge.world.publish(RM, rm2);
    edge.world.injectRegistryFault(JM, 'Transport');
    const outcome = await edge.tick();
    expect(outcome.exitCode).toBe(0);
    expect(edge.line('RESOLVE_FAILED')).toContain('could not resolve latest digest of tracebloc/jobs-manager:stg');
    // The silence is counted first (I46); the image that answered goes on (I15).
    expect(edge.writes()).toEqual([
      'writeResolveFailureStreak 1',
      'writeRefreshAttempt 1',
      `setImages resource-monitor tracebloc-resource-monitor=${ref(RM, rm2)}`,
      'clearFlapState',
      `recordDigests ${JSON.stringify({ [RM_KEY]: rm2 })}`,
    ]);
  });

  it('a digest that is not a well-formed OCI digest never reaches a pod spec or an annotation (I19)', async () => {
    const edge = await aSteadyEdge();
    edge.world.injectRegistryFault(JM, 'Garbage');
    const outcome = await edge.tick();
    expect(outcome.exitCode).toBe(0);
    expect(edge.line('RESOLVE_FAILED')).toContain('not an OCI digest');
    // Only the silence it counts (I46): no digest, garbage or not, is written.
    expect(edge.writes()).toEqual(['writeResolveFailureStreak 1']);
  });

  it('when nothing resolves, nothing is read, compared or written', async () => {
    const edge = await aSteadyEdge();
    for (const repo of [JM, PM, RM]) edge.world.injectRegistryFault(repo, 'Hang');
    const outcome = await edge.tick();
    expect(outcome.exitCode).toBe(0);
    expect(edge.ops()).not.toContain('readRecordedDigests');
    expect(edge.writes()).toEqual(['writeResolveFailureStreak 1']);
  });

  it('with MAX_RESOLVE_FAILURE_TICKS=off, as the script: nothing resolved, nothing read, compared or written', async () => {
    const edge = await aSteadyEdge({ MAX_RESOLVE_FAILURE_TICKS: 'off' });
    for (const repo of [JM, PM, RM]) edge.world.injectRegistryFault(repo, 'Hang');
    const outcome = await edge.tick();
    expect(outcome.exitCode).toBe(0);
    expect(edge.ops()).not.toContain('readRecordedDigests');
    expect(edge.writes()).toEqual([]);
  });
});

describe('registry pull budget (I7b)', () => {
  it('a 429 on any repo holds every re-image back: WARN, nothing rolled, changed digests unrecorded, exit 0', async () => {
    const edge = await aSteadyEdge();
    edge.world.publish(RM, simDigest(`${RM}#2`));
    edge.world.injectRegistryFault(PM, 'RateLimited');
    const outcome = await edge.tick();
    expect(outcome.exitCode).toBe(0);
    expect(edge.line('REGISTRY_BUDGET_LOW')).toContain('the registry answered 429');
    expect(edge.writes()).toEqual([]);
    expect(edge.world.annotations[RM_KEY]).toBe(simDigest(`${RM}#1`));
  });

  it('a budget below REGISTRY_BUDGET_FLOOR defers the re-image, and first observations are still recorded', async () => {
    const edge = await aSteadyEdge();
    edge.world.setAnnotation(PM_KEY, undefined);
    edge.world.publish(JM, simDigest(`${JM}#2`));
    edge.world.rateLimitRemaining = 9;
    const outcome = await edge.tick();
    expect(outcome.exitCode).toBe(0);
    expect(edge.line('REGISTRY_BUDGET_LOW')).toContain('ratelimit-remaining 9 < REGISTRY_BUDGET_FLOOR=10');
    expect(edge.writes()).toEqual([`recordDigests ${JSON.stringify({ [PM_KEY]: simDigest(`${PM}#1`) })}`]);
  });

  it('at exactly the floor the re-image goes ahead, and the next tick after a deferral catches up', async () => {
    const edge = await aSteadyEdge();
    edge.world.publish(JM, simDigest(`${JM}#2`));
    edge.world.rateLimitRemaining = 3;
    expect((await edge.tick()).reimages).toEqual([]);
    edge.world.rateLimitRemaining = 10;
    const caughtUp = await edge.tick();
    expect(caughtUp.reimages.map((r) => r.workload.id)).toEqual(['jobs-manager', 'requests-proxy']);
    expect(edge.world.annotations[JM_KEY]).toBe(simDigest(`${JM}#2`));
  });

  it('REGISTRY_BUDGET_FLOOR=0 leaves only a 429 to hold re-images back', async () => {
    const edge = await aSteadyEdge({ REGISTRY_BUDGET_FLOOR: '0' });
    edge.world.publish(JM, simDigest(`${JM}#2`));
    edge.world.rateLimitRemaining = 0;
    expect((await edge.tick()).reimages).toHaveLength(2);
  });
});

describe('flap lockout as a finding (FLAP_LOCKOUT_EXIT)', () => {
  it('FLAP_LOCKOUT_EXIT=1 makes every lockout tick with drift exit 1 until re-armed', async () => {
    const edge = await aSteadyEdge({ FLAP_LOCKOUT_EXIT: '1' });
    edge.world.setAnnotation(ANNOTATION.refreshAttempt, '3');
    edge.world.publish(JM, simDigest(`${JM}#2`));
    for (let i = 0; i < 2; i++) {
      const outcome = await edge.tick();
      expect(outcome.result).toBe('flapLockout');
      expect(outcome.exitCode).toBe(1);
      expect(outcome.findings.map((f) => f.code)).toEqual(['FLAP_DETECTED']);
      expect(outcome.findings[0]?.message).toMatch(/^ERROR: .* FLAP DETECTED\. .* MANUAL ATTENTION NEEDED/);
    }
    edge.world.setAnnotation(ANNOTATION.refreshAttempt, undefined);
    expect((await edge.tick()).exitCode).toBe(0);
  });

  // The reviewer's reproduction: the budget check ran before the flap check,
  // so a low-budget tick deferred the re-image and exited 0 `complete` — the
  // lockout, a finding, vanished for as long as the budget stayed low (I10, I18).
  it('a low registry budget does not hide the lockout: FLAP DETECTED, exit 1, every tick', async () => {
    const edge = await aSteadyEdge({ FLAP_LOCKOUT_EXIT: '1', MAX_REFRESH_ATTEMPTS: '3' });
    edge.world.setAnnotation(ANNOTATION.refreshAttempt, '3');
    edge.world.publish(JM, simDigest(`${JM}#2`));
    const first = await edge.tick();
    expect([first.result, first.exitCode]).toEqual(['flapLockout', 1]);
    edge.world.rateLimitRemaining = 5;
    for (let i = 0; i < 2; i++) {
      const outcome = await edge.tick();
      expect([outcome.result, outcome.exitCode]).toEqual(['flapLockout', 1]);
      expect(outcome.findings.map((f) => f.code)).toEqual(['FLAP_DETECTED']);
      expect(edge.codes()).not.toContain('REGISTRY_BUDGET_LOW');
      expect(outcome.reimages).toEqual([]);
    }
    expect(edge.world.annotations[ANNOTATION.flapDetected]).toBe('3');
    expect(edge.world.annotations[JM_KEY]).toBe(simDigest(`${JM}#1`));
  });

  it('by default (drop-in) the lockout exits 0 with the same FLAP DETECTED warning', async () => {
    const edge = await aSteadyEdge();
    edge.world.setAnnotation(ANNOTATION.refreshAttempt, '3');
    edge.world.publish(JM, simDigest(`${JM}#2`));
    const outcome = await edge.tick();
    expect(outcome.exitCode).toBe(0);
    expect(outcome.events.find((e) => e.code === 'FLAP_DETECTED')?.level).toBe('warn');
    expect(edge.line('FLAP_DETECTED')).toMatch(/^WARN: /);
  });
});

describe('pins (#569, I13)', () => {
  it('a pinned image is not even resolved, and its container is never re-imaged', async () => {
    const edge = await aSteadyEdge({ PODS_MONITOR_PINNED: '1' });
    edge.world.publish(PM, simDigest(`${PM}#2`));
    edge.world.publish(JM, simDigest(`${JM}#2`));
    const outcome = await edge.tick();
    expect(edge.calls().filter((c) => c.startsWith('resolveDigest'))).toEqual([
      `resolveDigest ${JM}`,
      `resolveDigest ${RM}`,
    ]);
    expect(edge.writes().filter((w) => w.includes('pods-monitor-container'))).toEqual([]);
    expect(edge.line('IMAGE_PINNED')).toContain('tracebloc/pods-monitor: pinned by digest');
    expect(outcome.exitCode).toBe(0);
  });

  it('a pinned requests-proxy does not follow the jobs-manager digest', async () => {
    const edge = await aSteadyEdge({ REQUESTS_PROXY_PINNED: '1' });
    const jm2 = simDigest(`${JM}#2`);
    edge.world.publish(JM, jm2);
    await edge.tick();
    expect(edge.writes().filter((w) => w.startsWith('setImages'))).toEqual([
      `setImages jobs-manager api=${ref(JM, jm2)}`,
    ]);
    expect(edge.line('WORKLOAD_PINNED')).toBe(
      'requests-proxy is pinned by REQUESTS_PROXY_PINNED=1; not following this digest',
    );
  });

  it('everything pinned: the registry is never asked and nothing is written', async () => {
    const edge = anEdge({ JOBS_MANAGER_PINNED: '1', PODS_MONITOR_PINNED: '1', RESOURCE_MONITOR_PINNED: '1' });
    const outcome = await edge.tick();
    expect(outcome.exitCode).toBe(0);
    expect(edge.ops()).toEqual(['observeJobsManager', 'readSkipStreak']);
  });
});

describe('private mirror (#569, I14)', () => {
  it('is inert: exit 0, loud, and not one port call', async () => {
    const edge = anEdge({ IMAGE_REGISTRY: 'registry.corp.example:5000' });
    const outcome = await edge.tick();
    expect(outcome.exitCode).toBe(0);
    expect(outcome.result).toBe('mirrorInert');
    expect(edge.line('MIRROR_INERT')).toContain("private mirror 'registry.corp.example:5000'");
    expect(edge.calls()).toEqual([]);
    // The script logs "tick complete" after the mirror note, before its exit 0.
    expect(outcome.events.map((e) => e.code).slice(-2)).toEqual(['MIRROR_INERT', 'TICK_COMPLETE']);
  });
});
