import { describe, expect, it } from 'vitest';
import type { Environment } from '../src/config/environment.js';
import type { TickOutcome } from '../src/machine/tick-outcome.js';
import type { TickPorts } from '../src/run-tick.js';
import { SimWorld, simConfig, simDigest, simPorts } from '../src/sim/index.js';
import { describeViolations, SpecChecker } from './spec/spec-checker.js';
import { recordTick } from './spec/tick-record.js';
import { aSteadyEdge, JM, PM, RM, WRITE_OPS } from './support/edge.js';
import { specCalls } from './support/spec-calls.js';

// Branches of the tick machine's state tree that no other scenario walks to
// its end: a rollback whose own patch is refused or whose quarantine write
// fails (docs/behaviour.md §3.6, I30), and a soaking digest whose pending
// record parses (docs/behaviour.md §3.4a step 2).

const QUARANTINE_KEY = 'tracebloc.io/quarantined-jobs-manager-digest';
const JM1 = simDigest(`${JM}#1`);
const JM2 = simDigest(`${JM}#2`);
const ref = (digest: string) => `docker.io/${JM}@${digest}`;

/** A simulated edge whose ticks run on ports the test may wrap; every tick goes through the invariant checker. */
const aCheckedEdge = async (env: Environment) => {
  const config = simConfig(env);
  const world = new SimWorld(config);
  const sim = simPorts(world);
  const checker = new SpecChecker();
  const run = async (ports: TickPorts = sim): Promise<TickOutcome> => {
    const record = await recordTick(world, ports, config);
    const violations = checker.check(record);
    if (violations.length > 0) throw new Error(`invariants broken:\n${describeViolations(violations)}`);
    return record.outcome;
  };
  expect((await run()).result).toBe('complete');
  world.calls.length = 0;
  /** The same ports, `onWait` run as each rollout wait (counted from 1) starts. */
  const hooked = (onWait: (workload: string, n: number) => void): TickPorts => {
    let waits = 0;
    return {
      ...sim,
      cluster: {
        ...sim.cluster,
        waitForRollout: (workload, timeoutMs) => {
          waits += 1;
          onWait(workload.id, waits);
          return sim.cluster.waitForRollout(workload, timeoutMs);
        },
      },
    };
  };
  const writes = () =>
    specCalls(world.calls, config)
      .filter((c) => (WRITE_OPS as readonly string[]).includes(c.op))
      .map((c) => `${c.op} ${c.detail}`.trim());
  return { world, run, hooked, writes };
};

/**
 * A steady edge under ON_ROLLOUT_FAILURE=revert on which build 2 of
 * jobs-manager is published broken; `onFirstRolloutWait` runs when the tick
 * starts waiting for the forward rollout, so a fault armed there bites the
 * rollback and not the re-image.
 */
const aBrokenRelease = async (onFirstRolloutWait: (world: SimWorld) => void, env: Environment = {}) => {
  const { world, run, hooked, writes } = await aCheckedEdge({ ON_ROLLOUT_FAILURE: 'revert', ...env });
  world.publish(JM, JM2);
  world.breakBuild(JM2);
  const outcome = await run(hooked((_, n) => (n === 1 ? onFirstRolloutWait(world) : undefined)));
  const line = (code: string) => {
    const found = outcome.events.filter((e) => e.code === code);
    expect(found).toHaveLength(1);
    return found[0]?.message;
  };
  return { world, outcome, writes: writes(), line };
};

describe('a rollback whose own patch is refused (§3.6)', () => {
  it('ends rollbackFailed, exit 1, says ROLLBACK FAILED with the refusal, and writes no quarantine', async () => {
    const { world, outcome, writes, line } = await aBrokenRelease((w) =>
      w.injectClusterFault('setImages', 'Forbidden'),
    );
    expect(outcome.result).toBe('rollbackFailed');
    expect(outcome.exitCode).toBe(1);
    expect(writes).toEqual([
      'writeRefreshAttempt 1',
      `setImages jobs-manager api=${ref(JM2)}`,
      `setImages jobs-manager api=${ref(JM1)}`,
    ]);
    expect(world.annotations[QUARANTINE_KEY]).toBeUndefined();
    expect(world.workload('jobs-manager').images.api).toBe(ref(JM2));
    expect(line('ROLLBACK_FAILED')).toBe(
      `ERROR: ROLLBACK FAILED: rolling deployment/stg-jobs-manager back to api=${ref(JM1)} after its rollout did not complete within ROLLOUT_TIMEOUT=10m (RolloutTimedOut: Waiting for deployment "stg-jobs-manager" rollout to finish: 0 of 1 updated replicas are available...) failed in its turn (Forbidden (HTTP 403): simulated Forbidden on setImages). Nothing else is touched: no quarantine is written, the attempt counter stays incremented (the flap lockout applies as ever) and the new digests are not recorded.`,
    );
    expect(outcome.events.map((e) => e.code)).not.toContain('ROLLED_BACK');
  });

  it('a rollback whose rollout fails records the revert as not rolled out', async () => {
    const { outcome } = await aBrokenRelease((w) => w.setBehaviour('jobs-manager', 'stalls'));
    expect(outcome.result).toBe('rollbackFailed');
    expect(outcome.reverts?.map((r) => [r.workload.id, r.rolledOut])).toEqual([['jobs-manager', false]]);
  });
});

describe('a rollback whose quarantine write fails (§3.6)', () => {
  it('still ends rolledBack (exit 1), says QUARANTINE_WRITE_FAILED, and leaves no quarantine', async () => {
    const edge = await aSteadyEdge({ ON_ROLLOUT_FAILURE: 'revert' });
    edge.world.publish(JM, JM2);
    edge.world.breakBuild(JM2);
    edge.world.injectClusterFault('patchBookkeeping', 'Transport', 1, QUARANTINE_KEY);
    const outcome = await edge.tick();
    expect(outcome.result).toBe('rolledBack');
    expect(outcome.exitCode).toBe(1);
    expect(edge.writes()).toEqual([
      'writeRefreshAttempt 1',
      `setImages jobs-manager api=${ref(JM2)}`,
      `setImages jobs-manager api=${ref(JM1)}`,
      `quarantineDigests {"${QUARANTINE_KEY}":"${JM2}"}`,
    ]);
    expect(edge.world.annotations[QUARANTINE_KEY]).toBeUndefined();
    expect(edge.line('QUARANTINE_WRITE_FAILED')).toBe(
      'ERROR: the rollback completed but the failed digest could not be quarantined on deployment/stg-jobs-manager (Transport: simulated Transport on patchBookkeeping); the next tick will try that build again, and the attempt counter counts it towards the flap lockout.',
    );
    expect(edge.codes().slice(7)).toEqual([
      'REIMAGING',
      'REVERT_READY',
      'SET_IMAGE',
      'ROLLOUT_FAILED',
      'ROLLING_BACK',
      'ROLLOUT_COMPLETE',
      'ROLLED_BACK',
      'QUARANTINE_WRITE_FAILED',
    ]);
  });
});

describe('a quarantine write next to another image still soaking (§3.6, §3.4a)', () => {
  it('clears the pending record of the quarantined image only: pods-monitor keeps its first sighting', async () => {
    const PM_PENDING = 'tracebloc.io/pending-pods-monitor-digest';
    const PM2 = simDigest(`${PM}#2`);
    const edge = await aSteadyEdge({ ON_ROLLOUT_FAILURE: 'revert', MIN_DIGEST_AGE: '1h' });
    edge.world.publish(JM, JM2);
    edge.world.breakBuild(JM2);
    await edge.tick();
    edge.world.clockMs += 50 * 60_000;
    edge.world.publish(PM, PM2);
    await edge.tick();
    expect(edge.world.annotations[PM_PENDING]).toBe(`${PM2} 2026-01-01T00:50:00Z`);
    edge.world.clockMs += 11 * 60_000;
    edge.world.calls.length = 0;
    const outcome = await edge.tick();
    expect(outcome.result).toBe('rolledBack');
    expect(edge.writes()).toEqual([
      'writeRefreshAttempt 1',
      `setImages jobs-manager api=${ref(JM2)}`,
      `setImages jobs-manager api=${ref(JM1)}`,
      `quarantineDigests {"${QUARANTINE_KEY}":"${JM2}","tracebloc.io/pending-jobs-manager-digest":null}`,
    ]);
    expect(edge.world.annotations[PM_PENDING]).toBe(`${PM2} 2026-01-01T00:50:00Z`);
  });
});

describe('a digest soaking under MIN_DIGEST_AGE (§3.4a)', () => {
  it('with a pending record that parses, says it soaks and nothing about an unparsable record', async () => {
    const edge = await aSteadyEdge({ MIN_DIGEST_AGE: '1h' });
    edge.world.publish(JM, JM2);
    await edge.tick();
    expect(edge.codes()).toContain('DIGEST_SOAK_STARTED');
    expect(edge.codes()).not.toContain('PENDING_DIGEST_UNPARSABLE');
    edge.world.calls.length = 0;
    edge.world.clockMs += 60_000;
    const second = await edge.tick();
    expect(second.exitCode).toBe(0);
    expect(edge.writes()).toEqual([]);
    expect(edge.line('DIGEST_SOAKING')).toBe(
      `${JM}@${JM2.slice(0, 19)}… first seen 1m ago; acting after 01:00Z (MIN_DIGEST_AGE=1h, ring 0 × RING_DELAY=1h)`,
    );
    expect(edge.codes()).toEqual([
      'TICK_START',
      'CHECKING_IMAGE',
      'CHECKING_IMAGE',
      'CHECKING_IMAGE',
      'DIGEST_SOAKING',
      'DIGEST_CHANGED',
      'DIGEST_UNCHANGED',
      'DIGEST_UNCHANGED',
      'TICK_COMPLETE',
    ]);
  });
});

// docs/behaviour.md §3.7 and I25: the bookkeeping write after a re-image that
// has nothing to record (a requests-proxy converged to jobs-manager's record,
// a decoupled pass that only moved requests-proxy) still says what it did.
const PROXY_ON_BUILD_7 = `docker.io/${JM}@${simDigest(`${JM}#7`)}`;
const ATTEMPT = 'tracebloc.io/refresh-attempt';

describe('a re-image with nothing to record (§3.7, I25)', () => {
  it('a success reset that fails says SUCCESS_RESET_FAILED and the tick completes with exit 1, recording nothing', async () => {
    const edge = await aSteadyEdge({ RECONCILE_LIVE: '1' });
    edge.world.setLiveImage('requests-proxy', 'proxy', PROXY_ON_BUILD_7);
    edge.world.injectClusterFault('patchBookkeeping', 'Transport', 1, `${ATTEMPT}-`);
    const outcome = await edge.tick();
    expect(outcome.result).toBe('complete');
    expect(outcome.exitCode).toBe(1);
    expect(edge.writes()).toEqual([
      'writeRefreshAttempt 1',
      `setImages requests-proxy proxy=${ref(JM1)}`,
      'clearFlapState',
    ]);
    expect(edge.line('SUCCESS_RESET_FAILED')).toBe(
      [
        'ERROR: every rollout completed but tracebloc.io/refresh-attempt/tracebloc.io/refresh-flap-detected could not be cleared on deployment/stg-jobs-manager (Transport: simulated Transport on patchBookkeeping). The tick still goes on to record the new digests; a stale attempt count makes the next drift reach the flap lockout sooner.',
        'kubectl annotate deployment -n tracebloc stg-jobs-manager tracebloc.io/refresh-attempt- tracebloc.io/refresh-flap-detected-   (or: image-refresh rearm)',
      ].join('\n'),
    );
    expect(edge.codes().slice(-2)).toEqual(['SUCCESS_RESET_FAILED', 'TICK_COMPLETE']);
  });

  /** DECOUPLED_REFRESH with jobs-manager stuck after one failed attempt, and build 2 of jobs-manager published. */
  const aDecoupledPassAfterAFailure = async () => {
    const edge = await aSteadyEdge({ DECOUPLED_REFRESH: '1' });
    edge.world.setBehaviour('jobs-manager', 'neverReady');
    edge.world.setAnnotation(ATTEMPT, '1');
    edge.world.publish(JM, JM2);
    return edge;
  };
  // The writes such a pass sends, whether or not its count can be put back:
  // the skip, the attempt, requests-proxy's set image, the count put back.
  const decoupledPassWrites = () => [
    'writeSkipStreak 1',
    'writeRefreshAttempt 2',
    `setImages requests-proxy proxy=${ref(JM2)}`,
    'writeRefreshAttempt 1',
  ];

  it('a decoupled pass that only moved requests-proxy puts the count back and says ATTEMPT_KEPT', async () => {
    const edge = await aDecoupledPassAfterAFailure();
    const outcome = await edge.tick();
    expect(outcome.result).toBe('skipped');
    expect(outcome.exitCode).toBe(0);
    expect(edge.writes()).toEqual(decoupledPassWrites());
    expect(edge.world.annotations[ATTEMPT]).toBe('1');
    expect(edge.line('ATTEMPT_KEPT')).toBe(
      "decoupled re-image complete; tracebloc.io/refresh-attempt stays at 1/3: the failed attempts before it are not this pass's to clear -- only a successful re-image on a settled deployment/stg-jobs-manager (or a human) resets them",
    );
  });

  it('a decoupled pass whose count cannot be put back says so (SUCCESS_RESET_FAILED), exit 1', async () => {
    const edge = await aDecoupledPassAfterAFailure();
    edge.world.injectClusterFault('patchBookkeeping', 'Transport', 1, `${ATTEMPT}=1`);
    const outcome = await edge.tick();
    expect(outcome.exitCode).toBe(1);
    expect(edge.writes()).toEqual(decoupledPassWrites());
    expect(edge.world.annotations[ATTEMPT]).toBe('2');
    expect(edge.line('SUCCESS_RESET_FAILED').split('\n')[0]).toBe(
      'ERROR: the decoupled re-image completed but tracebloc.io/refresh-attempt could not be put back to 1 on deployment/stg-jobs-manager (Transport: simulated Transport on patchBookkeeping). It still reads 2, so the flap lockout comes one failure sooner. The pass still goes on to record what it may.',
    );
    expect(edge.codes()).not.toContain('ATTEMPT_KEPT');
  });
});

describe('RECONCILE_LIVE on a decoupled pass', () => {
  it('an unsettled jobs-manager has no live pass: a skewed requests-proxy is neither reported nor re-pinned', async () => {
    const edge = await aSteadyEdge({ RECONCILE_LIVE: '1', DECOUPLED_REFRESH: '1' });
    edge.world.setBehaviour('jobs-manager', 'neverReady');
    edge.world.setLiveImage('requests-proxy', 'proxy', PROXY_ON_BUILD_7);
    const outcome = await edge.tick();
    expect(outcome.result).toBe('skipped');
    expect(outcome.exitCode).toBe(0);
    expect(edge.writes()).toEqual(['writeSkipStreak 1']);
    expect(edge.world.workload('requests-proxy').images.proxy).toBe(PROXY_ON_BUILD_7);
    expect(edge.codes()).not.toContain('LIVE_DRIFT');
  });
});

describe('a refused re-image patch with ON_ROLLOUT_FAILURE off (the default, §3.6)', () => {
  it('ends reimageFailed with exit 1 and nothing rolled back: the one refused patch is the last write', async () => {
    const edge = await aSteadyEdge();
    edge.world.publish(JM, JM2);
    edge.world.injectClusterFault('setImages', 'Forbidden');
    const outcome = await edge.tick();
    expect(outcome.result).toBe('reimageFailed');
    expect(outcome.exitCode).toBe(1);
    expect(outcome.reverts).toBeUndefined();
    expect(edge.writes()).toEqual(['writeRefreshAttempt 1', `setImages jobs-manager api=${ref(JM2)}`]);
    expect(edge.codes().slice(-2)).toEqual(['REIMAGING', 'SET_IMAGE_FAILED']);
    expect(edge.line('SET_IMAGE_FAILED')).toBe(
      'ERROR: set image on deployment/stg-jobs-manager failed (Forbidden (HTTP 403): simulated Forbidden on setImages); the attempt counter stays incremented and the new digests are not recorded.',
    );
  });
});

describe('a rollback after a failed live re-pin (RECONCILE_LIVE=1, ON_ROLLOUT_FAILURE=revert)', () => {
  it('has no bad digest to quarantine: rolledBack, and no quarantine write', async () => {
    const RM2 = simDigest(`${RM}#2`);
    const { world, run, hooked, writes } = await aCheckedEdge({ RECONCILE_LIVE: '1', ON_ROLLOUT_FAILURE: 'revert' });
    world.publish(RM, RM2);
    expect((await run()).result).toBe('complete');
    world.helmRerender('resource-monitor');
    world.publish(JM, JM2);
    world.calls.length = 0;
    let rmWaits = 0;
    const outcome = await run(
      hooked((id) => {
        if (id !== 'resource-monitor') return;
        rmWaits += 1;
        world.setBehaviour('resource-monitor', rmWaits === 1 ? 'stalls' : 'settles');
      }),
    );
    expect(outcome.result).toBe('rolledBack');
    expect(outcome.exitCode).toBe(1);
    const rmOnBuild2 = `setImages resource-monitor tracebloc-resource-monitor=docker.io/${RM}@${RM2}`;
    expect(writes()).toEqual([
      'writeRefreshAttempt 1',
      `setImages jobs-manager api=${ref(JM2)}`,
      `setImages requests-proxy proxy=${ref(JM2)}`,
      rmOnBuild2,
      `setImages jobs-manager api=${ref(JM1)}`,
      `setImages requests-proxy proxy=${ref(JM1)}`,
      rmOnBuild2,
    ]);
    expect(Object.keys(world.annotations).filter((k) => k.startsWith('tracebloc.io/quarantined-'))).toEqual([]);
    expect(outcome.events.map((e) => e.code).slice(-3)).toEqual(['ROLLOUT_COMPLETE', 'ROLLED_BACK', 'ROLLED_BACK']);
  });
});
