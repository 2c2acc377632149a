import { describe, expect, it } from 'vitest';
import { simDigest } from '../src/sim/index.js';
import { ANNOTATION } from './support/chart.js';
import { aSteadyEdge, JM, RM } from './support/edge.js';

// docs/behaviour.md §3.6: a set image whose containers already run
// the target reference is not sent — as `kubectl set image` sends nothing
// then — is not announced or counted as a re-image, and its rollout is still
// waited for before the record (I7). Asserted on the simulated cluster: its
// call log ('unchanged' = the port sent nothing), generations and Events.

const JM_KEY = 'tracebloc.io/last-refreshed-jobs-manager-digest';
const RM_KEY = 'tracebloc.io/last-refreshed-resource-monitor-digest';
const at = (repo: string, build: number) => `docker.io/${repo}@${simDigest(`${repo}#${build}`)}`;

/** The set images the simulated cluster received, as `workload outcome`. */
const setImageCalls = (edge: Awaited<ReturnType<typeof aSteadyEdge>>) =>
  edge.world.calls.filter((c) => c.op === 'setImages').map((c) => `${c.detail.split(' ')[0]} ${c.outcome}`);

/** A tick that gave up on requests-proxy's rollout after jobs-manager's completed; the DaemonSet was never reached. */
const afterAGivenUpTick = async () => {
  const edge = await aSteadyEdge();
  edge.world.publish(JM, simDigest(`${JM}#2`));
  edge.world.publish(RM, simDigest(`${RM}#2`));
  edge.world.setBehaviour('requests-proxy', 'stalls');
  const gaveUp = await edge.tick();
  if (gaveUp.exitCode !== 1 || edge.world.annotations[ANNOTATION.refreshAttempt] !== '1') {
    throw new Error(`setup: the first tick ended ${gaveUp.result}`);
  }
  edge.world.calls.length = 0;
  return edge;
};

describe('write only what changes (docs/behaviour.md §3.6)', () => {
  it('the retry tick sends only the DaemonSet: jobs-manager and requests-proxy already run the new build', async () => {
    const edge = await afterAGivenUpTick();
    // Its rollout completes after the tick gave up on it.
    edge.world.setBehaviour('requests-proxy', 'settles');
    const generations = {
      jm: edge.world.workload('jobs-manager').generation,
      proxy: edge.world.workload('requests-proxy').generation,
    };
    const retry = await edge.tick();
    expect(retry.exitCode).toBe(0);
    expect(setImageCalls(edge)).toEqual(['jobs-manager unchanged', 'requests-proxy unchanged', 'resource-monitor ok']);
    expect(edge.world.workload('jobs-manager').generation).toBe(generations.jm);
    expect(edge.world.workload('requests-proxy').generation).toBe(generations.proxy);
    expect(edge.world.workload('resource-monitor').images['tracebloc-resource-monitor']).toBe(at(RM, 2));
    // Counted and evented as one re-image; the two already on target are said so.
    expect(retry.reimages.map((r) => r.workload.id)).toEqual(['resource-monitor']);
    expect(retry.events.filter((e) => e.code === 'SET_IMAGE').map((e) => e.message)).toEqual([
      `set image daemonset/stg-resource-monitor in tracebloc-node-agents: tracebloc-resource-monitor=${at(RM, 2)}`,
    ]);
    expect(retry.events.filter((e) => e.code === 'ALREADY_ON_TARGET').map((e) => e.message)).toEqual([
      `deployment/stg-jobs-manager already runs ${at(JM, 2)}; not re-imaged`,
      `deployment/stg-requests-proxy already runs ${at(JM, 2)}; not re-imaged`,
    ]);
    const reimaged = edge.world.kubeEvents.filter((e) => e.reason === 'RefreshReimaged').at(-1);
    expect(reimaged?.message).toMatch(/^daemonset\/stg-resource-monitor re-imaged: tracebloc-resource-monitor /);
    // Every rollout still waited for, then the attempt cleared and the record written (I7, I12).
    expect(edge.calls().filter((c) => c.startsWith('waitForRollout'))).toEqual([
      'waitForRollout jobs-manager',
      'waitForRollout requests-proxy',
      'waitForRollout resource-monitor',
    ]);
    expect(edge.world.annotations[ANNOTATION.refreshAttempt]).toBeUndefined();
    expect(edge.world.annotations[JM_KEY]).toBe(simDigest(`${JM}#2`));
    expect(edge.world.annotations[RM_KEY]).toBe(simDigest(`${RM}#2`));
  });

  it('a workload already on target whose rollout is still in progress is waited for, and blocks the record (I7)', async () => {
    const edge = await afterAGivenUpTick();
    // requests-proxy still stalls: already on target, but its pods are not all updated.
    const retry = await edge.tick();
    expect(retry.exitCode).toBe(1);
    expect(setImageCalls(edge)).toEqual(['jobs-manager unchanged', 'requests-proxy unchanged']);
    expect(retry.reimages).toEqual([]);
    expect(edge.line('ROLLOUT_FAILED')).toContain('rollout of deployment/stg-requests-proxy did not complete');
    expect(edge.world.annotations[ANNOTATION.refreshAttempt]).toBe('2');
    expect(edge.world.annotations[JM_KEY]).toBe(simDigest(`${JM}#1`));
  });
});

describe('a workload already on the target of both its images', () => {
  it('is said to run each of them, in its container order, space separated', async () => {
    const edge = await aSteadyEdge();
    const PM = 'tracebloc/pods-monitor';
    edge.world.publish(JM, simDigest(`${JM}#2`));
    edge.world.publish(PM, simDigest(`${PM}#2`));
    // Someone set jobs-manager by hand to the builds the registry now answers.
    edge.world.workload('jobs-manager').images.api = at(JM, 2);
    edge.world.workload('jobs-manager').images['pods-monitor-container'] = at(PM, 2);
    const outcome = await edge.tick();
    expect(outcome.exitCode).toBe(0);
    expect(setImageCalls(edge)).toEqual(['jobs-manager unchanged', 'requests-proxy ok']);
    expect(outcome.events.filter((e) => e.code === 'ALREADY_ON_TARGET').map((e) => e.message)).toEqual([
      `deployment/stg-jobs-manager already runs ${at(JM, 2)} ${at(PM, 2)}; not re-imaged`,
    ]);
  });
});
