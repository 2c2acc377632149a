import { describe, expect, it } from 'vitest';
import { ANNOTATION } from './support/chart.js';
import { anEdge } from './support/edge.js';

// docs/behaviour.md §3.2 — every case of the reference's bats suite
// (scripts/tests/image-refresh-skip-streak.bats, #1964 and #2007), plus the
// streak write that the reference leaves to `set -e`.

const STREAK = ANNOTATION.skipStreak;

const unsettledWithStreak = (streak: string | undefined, env: Record<string, string> = {}) => {
  const edge = anEdge(env);
  edge.world.setBehaviour('jobs-manager', 'neverReady');
  edge.world.setAnnotation(STREAK, streak);
  return edge;
};

describe('settled guard: an unsettled jobs-manager is a skip that counts (#546, #1964)', () => {
  it('first unsettled tick still skips benignly, and records streak=1', async () => {
    const edge = unsettledWithStreak(undefined);
    const outcome = await edge.tick();
    expect(outcome.exitCode).toBe(0);
    expect(edge.line('NOT_SETTLED_SKIP')).toContain('skipping this refresh tick 1/8');
    expect(edge.writes()).toEqual(['writeSkipStreak 1']);
    expect(outcome.writes).toEqual([{ kind: 'writeSkipStreak', annotations: { [STREAK]: '1' } }]);
  });

  it('an ongoing streak below the ceiling keeps skipping and increments', async () => {
    const edge = unsettledWithStreak('6');
    const outcome = await edge.tick();
    expect(outcome.exitCode).toBe(0);
    expect(edge.line('NOT_SETTLED_SKIP')).toContain('skipping this refresh tick 7/8');
    expect(edge.writes()).toEqual(['writeSkipStreak 7']);
  });

  it('at the ceiling the tick FAILS instead of exiting 0 — the whole point of #1964', async () => {
    const edge = unsettledWithStreak('7');
    const outcome = await edge.tick();
    expect(outcome.exitCode).toBe(1);
    expect(outcome.result).toBe('frozen');
    expect(edge.line('FROZEN')).toContain('IMAGE REFRESH IS FROZEN');
    expect(edge.writes()).toEqual(['writeSkipStreak 8']);
  });

  it('the frozen line itself names the OTHER workloads that stopped updating', async () => {
    // Scoped to the FROZEN event: the banner also names both workloads, so a
    // whole-output match would pass even if this line named nothing (the
    // seeds' second vacuous assertion).
    const edge = unsettledWithStreak('7');
    await edge.tick();
    const frozen = edge.line('FROZEN');
    expect(frozen).toContain('deployment/stg-requests-proxy');
    expect(frozen).toContain('daemonset/stg-resource-monitor');
  });

  it('the frozen finding points at the never-Ready ingestion server, the reachable cause', async () => {
    const edge = unsettledWithStreak('7');
    await edge.tick();
    const frozen = edge.line('FROZEN');
    expect(frozen).toContain('ingestion HTTP server');
    expect(frozen).toContain('ingestion-authz.yaml');
    expect(frozen).toContain('kubectl -n tracebloc get pods -l app.kubernetes.io/component=jobs-manager');
  });

  it('a pinned workload is not named as frozen: it was never going to be refreshed', async () => {
    const edge = unsettledWithStreak('7', { RESOURCE_MONITOR_PINNED: '1' });
    await edge.tick();
    const frozen = edge.line('FROZEN');
    expect(frozen).toContain('deployment/stg-requests-proxy');
    expect(frozen).not.toContain('daemonset/stg-resource-monitor');
  });

  it('a streak past the ceiling stays failed rather than lapsing back to green', async () => {
    const edge = unsettledWithStreak('40');
    const outcome = await edge.tick();
    expect(outcome.exitCode).toBe(1);
    expect(edge.line('FROZEN')).toContain('unsettled for 41 consecutive ticks');
    expect(edge.writes()).toEqual(['writeSkipStreak 41']);
  });

  it('garbage in the streak counts as 0, as the reference does', async () => {
    const edge = unsettledWithStreak('seven');
    const outcome = await edge.tick();
    expect(outcome.exitCode).toBe(0);
    expect(edge.writes()).toEqual(['writeSkipStreak 1']);
  });

  it('an unreadable streak annotation FAILS the tick — it must not collapse to zero (I4)', async () => {
    // Fail-open here would reset the streak every tick, so the ceiling would
    // never be reached: the freeze would become permanent AND unreported.
    const edge = unsettledWithStreak('6');
    edge.world.armClusterFault({ op: 'readGate', readIndex: 1 }, 'Transport');
    const outcome = await edge.tick();
    expect(outcome.exitCode).toBe(1);
    expect(edge.line('SKIP_STREAK_UNCOUNTABLE')).toContain('skip streak cannot be counted');
    expect(edge.writes()).toEqual([]);
  });

  it('a streak that cannot be written fails the tick: an uncounted skip is how this freezes forever', async () => {
    const edge = unsettledWithStreak('2');
    edge.world.injectClusterFault('patchBookkeeping', 'Forbidden', 1, `${ANNOTATION.skipStreak}=`);
    const outcome = await edge.tick();
    expect(outcome.exitCode).toBe(1);
    expect(outcome.result).toBe('skipStreakWriteFailed');
    expect(edge.line('SKIP_STREAK_WRITE_FAILED')).toContain('Forbidden (HTTP 403)');
  });

  it('MAX_SKIP_TICKS is honoured from the environment, not hardcoded', async () => {
    const edge = unsettledWithStreak('1', { MAX_SKIP_TICKS: '2' });
    const outcome = await edge.tick();
    expect(outcome.exitCode).toBe(1);
    expect(edge.line('FROZEN')).toContain('MAX_SKIP_TICKS=2');
  });

  it('a skip says why it is not settled, with numbers', async () => {
    const edge = unsettledWithStreak(undefined);
    await edge.tick();
    expect(edge.line('NOT_SETTLED_SKIP')).toContain('0 of 1 updated replicas are available');
  });

  it('an unsettled tick never reaches the registry or a workload (I1)', async () => {
    const edge = unsettledWithStreak('3');
    await edge.tick();
    // …and the Kubernetes Event that says so comes after the tick decided.
    expect(edge.ops()).toEqual(['observeJobsManager', 'readSkipStreak', 'writeSkipStreak', 'recordEvent']);
  });
});

describe('settled guard: an unreadable jobs-manager is not a benign skip (#571)', () => {
  it('a MISSING deployment is exit 1 naming NotFound, and nothing is written', async () => {
    const edge = anEdge();
    edge.world.deleteGate();
    const outcome = await edge.tick();
    expect(outcome.exitCode).toBe(1);
    expect(outcome.result).toBe('deploymentUnreadable');
    const line = edge.line('DEPLOYMENT_UNREADABLE');
    expect(line).toContain('not a benign skip');
    expect(line).toContain('NotFound (HTTP 404)');
    expect(edge.writes()).toEqual([]);
  });

  it.each([
    ['Forbidden', 'Forbidden (HTTP 403)'],
    ['Transport', 'Transport: simulated Transport'],
    ['Timeout', 'Timeout: simulated Timeout'],
    ['Malformed', 'Malformed: simulated Malformed'],
  ] as const)('a %s read names the real cause and writes nothing (I2)', async (fault, cause) => {
    const edge = anEdge();
    edge.world.injectClusterFault('readGate', fault);
    const outcome = await edge.tick();
    expect(outcome.exitCode).toBe(1);
    expect(edge.line('DEPLOYMENT_UNREADABLE')).toContain(cause);
    expect(edge.writes()).toEqual([]);
  });

  it('a hung API read ends as a Timeout at the request bound, not a hung tick (I17)', async () => {
    const edge = anEdge();
    edge.world.injectClusterFault('readGate', 'Hang');
    const outcome = await edge.tick();
    expect(outcome.exitCode).toBe(1);
    expect(edge.line('DEPLOYMENT_UNREADABLE')).toContain('Timeout');
    expect(edge.world.calls.find((c) => c.op === 'readGate')?.at).toBe(edge.config.apiTimeoutMs);
  });
});

describe('settled guard: settling ends the streak by itself (#1964, #2007)', () => {
  it('settling again clears the streak annotation', async () => {
    const edge = anEdge();
    edge.world.setAnnotation(STREAK, '5');
    const outcome = await edge.tick();
    expect(outcome.exitCode).toBe(0);
    expect(edge.line('SETTLED_AGAIN')).toContain('settled again after 5 skipped tick(s)');
    expect(edge.writes()[0]).toBe('clearSkipStreak');
    expect(outcome.writes[0]).toEqual({ kind: 'clearSkipStreak', annotations: { [STREAK]: null } });
    expect(edge.world.annotations[STREAK]).toBeUndefined();
  });

  it('a failed streak clear does NOT abort the tick before the registry pass (#2007)', async () => {
    // Reaching the registry pass is the assertion, not the exit code: an exit
    // code would also pass if the tick died later for another reason.
    const edge = anEdge();
    edge.world.setAnnotation(STREAK, '5');
    edge.world.injectClusterFault('patchBookkeeping', 'Transport', 1, `${ANNOTATION.skipStreak}-`);
    const outcome = await edge.tick();
    expect(edge.line('SETTLED_AGAIN')).toContain('settled again after 5 skipped tick');
    expect(edge.ops()).toContain('resolveDigest');
    expect(outcome.events.filter((e) => e.code === 'CHECKING_IMAGE').map((e) => e.message)).toEqual([
      'checking tracebloc/jobs-manager:stg (annotation=tracebloc.io/last-refreshed-jobs-manager-digest)',
      'checking tracebloc/pods-monitor:stg (annotation=tracebloc.io/last-refreshed-pods-monitor-digest)',
      'checking tracebloc/resource-monitor:stg (annotation=tracebloc.io/last-refreshed-resource-monitor-digest)',
    ]);
    expect(outcome.exitCode).toBe(0);
  });

  it('a failed streak clear is reported as a WARNING, not swallowed (#2007)', async () => {
    const edge = anEdge();
    edge.world.setAnnotation(STREAK, '5');
    edge.world.injectClusterFault('patchBookkeeping', 'Forbidden', 1, `${ANNOTATION.skipStreak}-`);
    await edge.tick();
    const warning = edge.line('SKIP_STREAK_CLEAR_FAILED');
    expect(warning).toContain('WARNING: could not clear tracebloc.io/refresh-skip-streak');
    expect(warning).toContain('Forbidden (HTTP 403)');
  });

  it('an unreadable streak on a settled tick is a WARNING and the tick goes on', async () => {
    const edge = anEdge();
    edge.world.armClusterFault({ op: 'readGate', readIndex: 1 }, 'Timeout');
    const outcome = await edge.tick();
    expect(outcome.exitCode).toBe(0);
    expect(edge.line('SKIP_STREAK_UNREADABLE')).toContain('WARNING');
    expect(edge.ops()).toContain('resolveDigest');
  });

  it('a healthy edge with no streak is not patched every tick (I6)', async () => {
    const edge = anEdge();
    await edge.tick();
    expect(edge.writes().filter((w) => w.startsWith('writeSkipStreak') || w.startsWith('clearSkipStreak'))).toEqual([]);
  });
});
