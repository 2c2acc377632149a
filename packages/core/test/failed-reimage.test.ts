import * as TE from 'fp-ts/lib/TaskEither.js';
import { describe, expect, it } from 'vitest';
import { runTick } from '../src/run-tick.js';
import { type RolloutBehaviour, simDigest, simPorts } from '../src/sim/index.js';
import { aSteadyEdge, JM, RM } from './support/edge.js';

// The outcome's `failedReimage` (docs/behaviour.md §3.6): which workload failed
// the re-image and why, in the words the CLI's decision line and metrics carry.
// Each kind of failure is named apart; a tick without one carries none.

const JM2 = simDigest(`${JM}#2`);

/** The failedReimage an outcome carries for this workload. */
const failed = (id: string, why: string, alreadyOnTarget: boolean) => ({
  workload: expect.objectContaining({ id }),
  why,
  alreadyOnTarget,
});

const aFailingReimage = async (env: Record<string, string> = {}) => {
  const edge = await aSteadyEdge(env);
  edge.world.publish(JM, JM2);
  return edge;
};

describe("the outcome names the workload that failed the tick's re-image, and why", () => {
  it.each<[RolloutBehaviour, string]>([
    ['stalls', 'rolloutTimedOut'],
    ['flaps', 'rolloutTimedOut'],
  ])('a rollout that %s: %s', async (behaviour, why) => {
    const edge = await aFailingReimage();
    edge.world.setBehaviour('jobs-manager', behaviour);
    const outcome = await edge.tick();
    expect(outcome.failedReimage).toEqual(failed('jobs-manager', why, false));
  });

  it('a rollout the cluster reports failed (ProgressDeadlineExceeded): rolloutFailed', async () => {
    const edge = await aFailingReimage();
    const sim = simPorts(edge.world);
    const failed = TE.left({ _tag: 'RolloutFailed' as const, message: 'ProgressDeadlineExceeded' });
    const outcome = await runTick(edge.config, { ...sim, cluster: { ...sim.cluster, waitForRollout: () => failed } });
    expect(outcome.failedReimage?.why).toBe('rolloutFailed');
  });

  it('a rollout wait that could not read the workload: rolloutUnreadable', async () => {
    const edge = await aFailingReimage();
    edge.world.injectClusterFault('waitForRollout', 'Transport');
    const outcome = await edge.tick();
    expect(outcome.failedReimage?.why).toBe('rolloutUnreadable');
  });

  it('a rollout that falls apart inside ROLLOUT_STABLE_FOR: notStable', async () => {
    const edge = await aFailingReimage({ ROLLOUT_STABLE_FOR: '2m' });
    edge.world.setBehaviour('jobs-manager', 'fallsApart');
    const outcome = await edge.tick();
    expect(outcome.failedReimage?.why).toBe('notStable');
  });

  it('a set image refused: setImageRefused, nothing patched', async () => {
    const edge = await aFailingReimage();
    edge.world.injectClusterFault('setImages', 'Forbidden');
    const outcome = await edge.tick();
    expect(outcome.failedReimage).toEqual(failed('jobs-manager', 'setImageRefused', false));
  });

  it('the retry tick of a rollout still not done patched nothing: alreadyOnTarget', async () => {
    const edge = await aSteadyEdge();
    edge.world.publish(RM, simDigest(`${RM}#2`));
    edge.world.setBehaviour('resource-monitor', 'stalls');
    expect((await edge.tick()).failedReimage?.alreadyOnTarget).toBe(false);
    const outcome = await edge.tick();
    expect(outcome.failedReimage).toEqual(failed('resource-monitor', 'rolloutTimedOut', true));
  });

  it('a re-image that completes carries none', async () => {
    const edge = await aFailingReimage();
    expect((await edge.tick()).failedReimage).toBeUndefined();
  });
});
