import { describe, expect, it } from 'vitest';
import { simDigest } from '../src/sim/index.js';
import { ANNOTATION } from './support/chart.js';
import { aSteadyEdge, JM, PM, RM } from './support/edge.js';

// DECOUPLED_REFRESH (#1964 "decision 1", safe subset; docs/behaviour.md §6, I24): an
// unsettled jobs-manager counts its skip streak exactly as before, and
// requests-proxy and resource-monitor are refreshed past it when they are
// settled themselves. pods-monitor is a sidecar of jobs-manager and waits.

const JM_KEY = 'tracebloc.io/last-refreshed-jobs-manager-digest';
const RM_KEY = 'tracebloc.io/last-refreshed-resource-monitor-digest';
const at = (repo: string, build: number) => `docker.io/${repo}@${simDigest(`${repo}#${build}`)}`;

const stuckEdge = async (env: Record<string, string> = {}) => {
  const edge = await aSteadyEdge({ DECOUPLED_REFRESH: '1', ...env });
  edge.world.setBehaviour('jobs-manager', 'neverReady');
  return edge;
};

describe('DECOUPLED_REFRESH=1', () => {
  it('counts the skip as always, then refreshes a settled resource-monitor: attempt, set, wait, reset, record', async () => {
    const edge = await stuckEdge();
    edge.world.publish(RM, simDigest(`${RM}#2`));
    const outcome = await edge.tick();
    expect(outcome.exitCode).toBe(0);
    expect(outcome.result).toBe('skipped');
    expect(edge.line('NOT_SETTLED_SKIP')).toContain('skipping this refresh tick 1/8');
    expect(edge.writes()).toEqual([
      'writeSkipStreak 1',
      'writeRefreshAttempt 1',
      `setImages resource-monitor tracebloc-resource-monitor=${at(RM, 2)}`,
      'clearFlapState',
      `recordDigests ${JSON.stringify({ [RM_KEY]: simDigest(`${RM}#2`) })}`,
    ]);
  });

  it('requests-proxy follows a new jobs-manager build; jobs-manager and its record wait until it settles', async () => {
    const edge = await stuckEdge();
    edge.world.publish(JM, simDigest(`${JM}#2`));
    await edge.tick();
    expect(edge.world.workload('requests-proxy').images.proxy).toBe(at(JM, 2));
    expect(edge.world.workload('jobs-manager').images.api).toBe('docker.io/tracebloc/jobs-manager:stg');
    expect(edge.world.annotations[JM_KEY]).toBe(simDigest(`${JM}#1`));
    // Settled again: the drift is still recorded as drift, so jobs-manager catches up.
    edge.world.setBehaviour('jobs-manager', 'settles');
    const caughtUp = await edge.tick();
    // requests-proxy already runs that build since the decoupled pass: not sent again (docs/behaviour.md §3.6).
    expect(caughtUp.reimages.map((r) => r.workload.id)).toEqual(['jobs-manager']);
    expect(edge.line('ALREADY_ON_TARGET')).toBe(
      `deployment/stg-requests-proxy already runs ${at(JM, 2)}; not re-imaged`,
    );
    expect(edge.world.workload('jobs-manager').images.api).toBe(at(JM, 2));
    expect(edge.world.annotations[JM_KEY]).toBe(simDigest(`${JM}#2`));
  });

  it('never touches pods-monitor, a sidecar of the unsettled jobs-manager — not even resolved', async () => {
    const edge = await stuckEdge();
    edge.world.publish(PM, simDigest(`${PM}#2`));
    await edge.tick();
    expect(edge.calls().filter((c) => c.startsWith('resolveDigest'))).toEqual([
      `resolveDigest ${JM}`,
      `resolveDigest ${RM}`,
    ]);
    expect(edge.ops()).not.toContain('setImages');
  });

  it('a decoupled workload that is not settled itself is left alone, and says why', async () => {
    const edge = await stuckEdge();
    edge.world.setBehaviour('resource-monitor', 'neverReady');
    edge.world.publish(RM, simDigest(`${RM}#2`));
    await edge.tick();
    expect(edge.line('DECOUPLED_NOT_SETTLED')).toContain('daemonset/stg-resource-monitor is not settled either');
    expect(edge.ops()).not.toContain('setImages');
  });

  it('at the skip ceiling the tick is still FROZEN with exit 1, and the settled workloads still move', async () => {
    const edge = await stuckEdge();
    edge.world.setAnnotation(ANNOTATION.skipStreak, '7');
    edge.world.publish(RM, simDigest(`${RM}#2`));
    const outcome = await edge.tick();
    expect(outcome.exitCode).toBe(1);
    expect(outcome.result).toBe('frozen');
    expect(edge.line('FROZEN')).toContain('IMAGE REFRESH IS FROZEN');
    expect(outcome.reimages.map((r) => r.workload.id)).toEqual(['resource-monitor']);
  });

  it('shares the one attempt counter: a flapping DaemonSet reaches the lockout, which then holds everything', async () => {
    const edge = await stuckEdge();
    edge.world.setBehaviour('resource-monitor', 'flaps');
    edge.world.publish(RM, simDigest(`${RM}#2`));
    const results = [];
    for (let i = 0; i < 4; i++) results.push((await edge.tick()).result);
    expect(results).toEqual(['reimageFailed', 'reimageFailed', 'reimageFailed', 'flapLockout']);
    expect(edge.world.annotations[ANNOTATION.flapDetected]).toBe('3');
  });

  // The flap counter keeps its meaning (I25), reproduced:
  // jobs-manager Ready at the top of one tick and failing its rollout after the
  // re-image, crash-looping (unsettled) at the next. Each decoupled pass used to
  // patch requests-proxy to the digest it already ran and then clear the
  // counter: 1, cleared, 1, cleared — never the lockout (I10, I25).
  it('a flapping jobs-manager still reaches the lockout: decoupled passes neither re-image in place nor clear its count', async () => {
    const edge = await aSteadyEdge({ DECOUPLED_REFRESH: '1', MAX_REFRESH_ATTEMPTS: '3' });
    edge.world.publish(JM, simDigest(`${JM}#2`));
    const results: string[] = [];
    const attempts: (string | undefined)[] = [];
    for (let i = 0; i < 7; i++) {
      edge.world.setBehaviour('jobs-manager', i % 2 === 0 ? 'flaps' : 'neverReady');
      results.push((await edge.tick()).result);
      attempts.push(edge.world.annotations[ANNOTATION.refreshAttempt]);
    }
    expect(results).toEqual([
      'reimageFailed',
      'skipped',
      'reimageFailed',
      'skipped',
      'reimageFailed',
      'skipped',
      'flapLockout',
    ]);
    // The one real decoupled re-image (requests-proxy onto build 2) puts back the count it found.
    expect(attempts).toEqual(['1', '1', '2', '2', '3', '3', '3']);
    expect(edge.world.annotations[ANNOTATION.flapDetected]).toBe('3');
    expect(
      edge.writes().filter((w) => w.startsWith('setImages requests-proxy')),
      'requests-proxy is patched once, not again onto the digest it runs',
    ).toEqual([`setImages requests-proxy proxy=${at(JM, 2)}`]);
  });

  it('a decoupled success with no count before it is the full success reset', async () => {
    const edge = await stuckEdge();
    edge.world.publish(JM, simDigest(`${JM}#2`));
    await edge.tick();
    expect(edge.writes()).toContain('clearFlapState');
    expect(edge.world.annotations[ANNOTATION.refreshAttempt]).toBeUndefined();
  });

  it('with the switch off (the default) an unsettled tick is the reference`s: skip counted, nothing else', async () => {
    const edge = await aSteadyEdge();
    edge.world.setBehaviour('jobs-manager', 'neverReady');
    edge.world.publish(RM, simDigest(`${RM}#2`));
    await edge.tick();
    expect(edge.ops()).toEqual(['observeJobsManager', 'readSkipStreak', 'writeSkipStreak', 'recordEvent']);
  });
});
