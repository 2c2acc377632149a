import * as E from 'fp-ts/lib/Either.js';
import { describe, expect, it } from 'vitest';
import { parseTickConfig } from '../src/config/parse-config.js';
import { kubernetesEventsFor } from '../src/machine/kubernetes-events.js';
import { SIM_ENVIRONMENT, simDigest } from '../src/sim/index.js';
import { ANNOTATION, imageSpec } from './support/chart.js';
import { aSteadyEdge, type Edge, JM, PM, RM } from './support/edge.js';

// A registry that never answers is a finding (docs/behaviour.md §3.3, I46):
// the resolve-failure streak on the gate, REGISTRY UNREACHABLE at
// MAX_RESOLVE_FAILURE_TICKS, the streak removed once every image answers.

const STREAK = ANNOTATION.resolveFailureStreak;
const ALL = [JM, PM, RM];

/** The registry down for every image, for `ticks` ticks. */
const registryDown = (edge: Edge, ticks = 1) => {
  for (const repo of ALL) edge.world.injectRegistryFault(repo, 'Transport', ticks);
};

describe('the registry silence streak (MAX_RESOLVE_FAILURE_TICKS, default 8)', () => {
  it('counts each silent tick, says REGISTRY UNREACHABLE at the ceiling (exit 1, an Event), and ends when the registry answers', async () => {
    const edge = await aSteadyEdge();
    registryDown(edge, 9);
    for (let tick = 1; tick <= 7; tick += 1) {
      const outcome = await edge.tick();
      expect(outcome.exitCode, `tick ${tick}`).toBe(0);
      expect(outcome.result, `tick ${tick}`).toBe('complete');
      expect(edge.world.annotations[STREAK]).toBe(String(tick));
      expect(edge.line('REGISTRY_SILENT')).toBe(
        `WARN: the registry did not answer for ${ALL.join(', ')} -- tick ${tick}/8 in a row (${STREAK}); at 8: REGISTRY UNREACHABLE, exit 1`,
      );
    }
    const eighth = await edge.tick();
    expect(eighth.exitCode).toBe(1);
    expect(eighth.result).toBe('registryUnreachable');
    expect(edge.line('REGISTRY_UNREACHABLE').split('\n')[0]).toBe(
      `ERROR: REGISTRY UNREACHABLE for 8 ticks: ${ALL.join(', ')} — Transport: simulated Transport on registry ${RM}`,
    );
    expect(kubernetesEventsFor(eighth).map((e) => `${e.type} ${e.reason}`)).toContain(
      'Warning RefreshRegistryUnreachable',
    );
    // Past the ceiling it stays a finding until the registry answers (as the skip streak, I5).
    expect((await edge.tick()).exitCode).toBe(1);
    expect(edge.world.annotations[STREAK]).toBe('9');

    const answered = await edge.tick();
    expect(answered.exitCode).toBe(0);
    expect(answered.result).toBe('complete');
    expect(edge.world.annotations[STREAK]).toBeUndefined();
    expect(edge.line('REGISTRY_ANSWERING')).toBe(
      `the registry answered every image again after 9 tick(s) without -- clearing ${STREAK}`,
    );
    // Steady again: nothing more to write.
    edge.world.calls.length = 0;
    await edge.tick();
    expect(edge.writes()).toEqual([]);
  });

  it('counts a tick in which one image went unanswered, and the others are refreshed all the same (I15)', async () => {
    const edge = await aSteadyEdge({ MAX_RESOLVE_FAILURE_TICKS: '1' });
    const rm2 = simDigest(`${RM}#2`);
    edge.world.publish(RM, rm2);
    edge.world.injectRegistryFault(PM, 'Timeout');
    const outcome = await edge.tick();
    expect(outcome.exitCode).toBe(1);
    expect(outcome.result).toBe('registryUnreachable');
    expect(edge.line('REGISTRY_UNREACHABLE').split('\n')[0]).toMatch(
      new RegExp(`^ERROR: REGISTRY UNREACHABLE for 1 ticks: ${PM} — Timeout`),
    );
    expect(outcome.reimages.map((r) => r.workload.id)).toEqual(['resource-monitor']);
    // The silent image keeps its record; the one that answered is recorded.
    expect(edge.world.annotations[imageSpec('pods-monitor').recordKey]).toBe(simDigest(`${PM}#1`));
    expect(edge.world.annotations[imageSpec('resource-monitor').recordKey]).toBe(rm2);
  });

  it('a 429 is the pull budget’s: it neither counts nor ends the streak', async () => {
    const edge = await aSteadyEdge();
    edge.world.setAnnotation(STREAK, '3');
    edge.world.calls.length = 0;
    edge.world.injectRegistryFault(JM, 'RateLimited');
    const outcome = await edge.tick();
    expect(outcome.exitCode).toBe(0);
    expect(edge.codes()).not.toContain('REGISTRY_SILENT');
    expect(edge.writes()).toEqual([]);
    expect(edge.world.annotations[STREAK]).toBe('3');
    expect(outcome.unresolved).toEqual(['jobs-manager']);
  });

  it('a pinned image is not asked, so it is never silent', async () => {
    const edge = await aSteadyEdge({ JOBS_MANAGER_PINNED: '1', PODS_MONITOR_PINNED: '1' });
    edge.world.injectRegistryFault(JM, 'Transport', 5);
    edge.world.injectRegistryFault(PM, 'Transport', 5);
    const outcome = await edge.tick();
    expect(outcome.exitCode).toBe(0);
    expect(edge.writes()).toEqual([]);
    expect(outcome.unresolved).toEqual([]);
  });

  it('a streak that is not a number counts as 0, as every counter (docs/behaviour.md §2)', async () => {
    const edge = await aSteadyEdge();
    edge.world.setAnnotation(STREAK, 'many');
    registryDown(edge);
    await edge.tick();
    expect(edge.world.annotations[STREAK]).toBe('1');
  });

  it('a streak that cannot be written fails the tick: an uncounted silence is how it hides', async () => {
    const edge = await aSteadyEdge();
    registryDown(edge);
    edge.world.injectClusterFault('patchBookkeeping', 'Forbidden', 1, `${STREAK}=`);
    const outcome = await edge.tick();
    expect(outcome.exitCode).toBe(1);
    expect(outcome.result).toBe('resolveFailureStreakWriteFailed');
    expect(edge.line('RESOLVE_FAILURE_STREAK_WRITE_FAILED')).toContain(`could not persist ${STREAK}=1`);
  });

  it('a streak that cannot be removed is a WARNING and the tick goes on', async () => {
    const edge = await aSteadyEdge();
    edge.world.setAnnotation(STREAK, '2');
    edge.world.publish(JM, simDigest(`${JM}#2`));
    edge.world.injectClusterFault('patchBookkeeping', 'Timeout', 1, `${STREAK}-`);
    const outcome = await edge.tick();
    expect(outcome.exitCode).toBe(0);
    expect(edge.line('RESOLVE_FAILURE_STREAK_CLEAR_FAILED')).toContain(`could not remove ${STREAK}`);
    expect(outcome.reimages.map((r) => r.workload.id)).toEqual(['jobs-manager', 'requests-proxy']);
  });

  it('with MAX_RESOLVE_FAILURE_TICKS=off nothing is counted, as the script: green for as long as the registry is down', async () => {
    const edge = await aSteadyEdge({ MAX_RESOLVE_FAILURE_TICKS: 'off' });
    registryDown(edge, 12);
    for (let tick = 1; tick <= 12; tick += 1) {
      const outcome = await edge.tick();
      expect(outcome.exitCode).toBe(0);
    }
    expect(edge.world.annotations[STREAK]).toBeUndefined();
    expect(edge.writes()).toEqual([]);
  });

  it('counts in a decoupled pass past an unsettled gate too', async () => {
    const edge = await aSteadyEdge({ DECOUPLED_REFRESH: '1' });
    edge.world.setBehaviour('jobs-manager', 'neverReady');
    edge.world.injectRegistryFault(RM, 'Transport');
    const outcome = await edge.tick();
    expect(outcome.result).toBe('skipped');
    expect(edge.world.annotations[STREAK]).toBe('1');
  });
});

describe('MAX_RESOLVE_FAILURE_TICKS', () => {
  const parsed = (value: string) => parseTickConfig({ ...SIM_ENVIRONMENT, MAX_RESOLVE_FAILURE_TICKS: value });

  it('is a whole number of at least 1, or off', () => {
    expect(E.isRight(parsed('1')) && parsed('1')).toMatchObject({ right: { maxResolveFailureTicks: 1 } });
    expect(E.isRight(parsed('off')) && parsed('off')).toMatchObject({ right: { maxResolveFailureTicks: 'off' } });
    for (const bad of ['0', 'eight', '-1', '1.5', '1e3', '9007199254740993']) {
      const refused = parsed(bad);
      expect(E.isLeft(refused) && refused.left).toEqual([
        {
          variable: 'MAX_RESOLVE_FAILURE_TICKS',
          value: bad,
          problem: 'must be a whole number of at least 1, or "off" (no such ceiling, as the script)',
        },
      ]);
    }
  });
});
