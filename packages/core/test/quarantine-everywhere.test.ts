import { describe, expect, it } from 'vitest';
import { simDigest } from '../src/sim/index.js';
import { aSteadyEdge, JM } from './support/edge.js';

// I30 beyond the registry's drift (docs/behaviour.md §3.4a, §3.6): the record
// is what a live re-pin (RECONCILE_LIVE=1) and a rollback go back to, so a
// quarantined digest must never become the record, and a record that names
// it (edited by hand) must lead nowhere. CI's seed 876272729 found the first
// path: a human cleared the record, the next tick recorded the quarantined
// digest as a baseline, and the tick after re-pinned jobs-manager onto it.

const JM_KEY = 'tracebloc.io/last-refreshed-jobs-manager-digest';
const QUARANTINE_KEY = 'tracebloc.io/quarantined-jobs-manager-digest';
const ref = (digest: string) => `docker.io/${JM}@${digest}`;
const JM1 = simDigest(`${JM}#1`);
const JM2 = simDigest(`${JM}#2`);
const JM3 = simDigest(`${JM}#3`);

/** An edge that rolled back build 2 of jobs-manager: it runs build 1 and JM2 is quarantined. */
const anEdgeThatRolledBack = async (env: Record<string, string> = {}) => {
  const edge = await aSteadyEdge({ ON_ROLLOUT_FAILURE: 'revert', ...env });
  edge.world.publish(JM, JM2);
  edge.world.breakBuild(JM2);
  expect((await edge.tick()).result).toBe('rolledBack');
  expect(edge.world.annotations[QUARANTINE_KEY]).toBe(JM2);
  edge.world.calls.length = 0;
  return edge;
};

describe('I30: a quarantined digest is never recorded, re-pinned or rolled back to', () => {
  it('a cleared record with the registry on the quarantined digest: the first observation is held, not recorded', async () => {
    const edge = await anEdgeThatRolledBack({ RECONCILE_LIVE: '1' });
    edge.world.setAnnotation(JM_KEY, undefined);
    const held = await edge.tick();
    expect(held.exitCode).toBe(0);
    expect(edge.writes()).not.toContainEqual(expect.stringContaining(JM_KEY));
    expect(edge.world.annotations[JM_KEY]).toBeUndefined();
    expect(edge.line('FIRST_OBSERVATION')).toBe(
      `${JM}: latest=${JM2} recorded=<unset> -- first observation; held back by the quarantine, not recorded`,
    );
    expect(edge.line('DIGEST_QUARANTINED')).toContain(`latest=${JM2} is quarantined (${QUARANTINE_KEY}`);

    // The tick CI's seed failed on: with no record there is nothing to re-pin to.
    edge.world.calls.length = 0;
    await edge.tick();
    expect(edge.writes().filter((w) => w.startsWith('setImages'))).toEqual([]);
    expect(edge.world.workload('jobs-manager').images.api).toBe(ref(JM1));
  });

  it('a record edited to the quarantined digest: the live drift is reported, never re-pinned onto it', async () => {
    const edge = await anEdgeThatRolledBack({ RECONCILE_LIVE: '1' });
    edge.world.setAnnotation(JM_KEY, JM2);
    const outcome = await edge.tick();
    expect(outcome.exitCode).toBe(0);
    expect(edge.writes().filter((w) => w.startsWith('setImages') || w.startsWith('writeRefreshAttempt'))).toEqual([]);
    expect(edge.world.workload('jobs-manager').images.api).toBe(ref(JM1));
    expect(edge.line('LIVE_DRIFT')).toMatch(
      new RegExp(
        `not the recorded ${JM}@${JM2}; not re-pinning it: the recorded digest is the one quarantined \\(${QUARANTINE_KEY}\\)`,
      ),
    );
  });

  it('a record edited to the quarantined digest: a failed rollout is not rolled back onto it (ROLLBACK FAILED)', async () => {
    const edge = await anEdgeThatRolledBack();
    edge.world.setAnnotation(JM_KEY, JM2);
    edge.world.publish(JM, JM3);
    edge.world.breakBuild(JM3);
    const outcome = await edge.tick();
    expect(outcome.result).toBe('rollbackFailed');
    expect(outcome.exitCode).toBe(1);
    expect(edge.writes().filter((w) => w.startsWith('setImages'))).toEqual([`setImages jobs-manager api=${ref(JM3)}`]);
    expect(edge.line('ROLLBACK_FAILED')).toContain(
      `would go back to ${JM}@${JM2}, the digest quarantined in ${QUARANTINE_KEY}`,
    );
  });
});
