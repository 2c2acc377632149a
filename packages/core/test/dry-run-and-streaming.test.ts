import { describe, expect, it } from 'vitest';
import { dryRunPorts } from '../src/dry-run.js';
import type { TickEvent } from '../src/machine/tick-event.js';
import { runTick } from '../src/run-tick.js';
import { SimWorld, simConfig, simDigest, simPorts } from '../src/sim/index.js';
import { ANNOTATION } from './support/chart.js';
import { JM } from './support/edge.js';

const JM_KEY = 'tracebloc.io/last-refreshed-jobs-manager-digest';

describe('--dry-run ports', () => {
  it('decide as the real tick would, write nothing, and say every write they would have made', async () => {
    const config = simConfig();
    const world = new SimWorld(config);
    world.annotations = { [JM_KEY]: simDigest(`${JM}#1`), [ANNOTATION.skipStreak]: '2' };
    world.publish(JM, simDigest(`${JM}#2`));
    const wouldDo: string[] = [];
    const outcome = await runTick(
      config,
      dryRunPorts(simPorts(world), config, (a) => wouldDo.push(a)),
    );
    expect(outcome.result).toBe('complete');
    expect(world.calls.map((c) => c.op)).not.toContain('setImages');
    expect(world.annotations[ANNOTATION.skipStreak]).toBe('2');
    expect(wouldDo).toEqual([
      'annotate deployment/stg-jobs-manager -n tracebloc tracebloc.io/refresh-skip-streak-',
      // A topology never checked on this edge: every container found the followed image's, remembered (§3.4c).
      expect.stringMatching(
        /^annotate deployment\/stg-jobs-manager -n tracebloc tracebloc\.io\/topology-fingerprint=v1-[0-9a-f]{16}$/,
      ),
      'annotate deployment/stg-jobs-manager -n tracebloc tracebloc.io/refresh-attempt=1',
      `set image deployment/stg-jobs-manager -n tracebloc api=docker.io/${JM}@${simDigest(`${JM}#2`)}`,
      'wait for the rollout of deployment/stg-jobs-manager (up to 10m)',
      `set image deployment/stg-requests-proxy -n tracebloc proxy=docker.io/${JM}@${simDigest(`${JM}#2`)}`,
      'wait for the rollout of deployment/stg-requests-proxy (up to 10m)',
      'annotate deployment/stg-jobs-manager -n tracebloc tracebloc.io/refresh-attempt- tracebloc.io/refresh-flap-detected-',
      expect.stringMatching(
        /^annotate deployment\/stg-jobs-manager -n tracebloc tracebloc\.io\/last-refreshed-jobs-manager-digest=sha256:[0-9a-f]{64}/,
      ),
      expect.stringMatching(
        /^record the Normal Event RefreshReimaged: deployment\/stg-jobs-manager re-imaged: api sha256:/,
      ),
    ]);
    expect(world.kubeEvents).toEqual([]);
  });

  it('name the pin markers in the record line under RECONCILE_LIVE, as the real record writes them', async () => {
    // A dry-run record line that dropped `pins` would hide from an operator
    // previewing RECONCILE_LIVE the pinned-* markers it would write.
    const config = simConfig({ RECONCILE_LIVE: '1' });
    const world = new SimWorld(config);
    world.annotations = { [JM_KEY]: simDigest(`${JM}#1`) };
    world.publish(JM, simDigest(`${JM}#2`));
    const wouldDo: string[] = [];
    await runTick(
      config,
      dryRunPorts(simPorts(world), config, (a) => wouldDo.push(a)),
    );
    const record = wouldDo.filter((line) => line.includes('last-refreshed-jobs-manager-digest='));
    expect(record).toHaveLength(1);
    expect(record[0]).toContain(` tracebloc.io/pinned-jobs-manager-digest=${simDigest(`${JM}#2`)}`);
    expect(world.annotations).toEqual({ [JM_KEY]: simDigest(`${JM}#1`) });
  });

  it('pass reads through: an unsettled jobs-manager is still a counted skip, on paper', async () => {
    const config = simConfig();
    const world = new SimWorld(config);
    world.setBehaviour('jobs-manager', 'neverReady');
    const wouldDo: string[] = [];
    const outcome = await runTick(
      config,
      dryRunPorts(simPorts(world), config, (a) => wouldDo.push(a)),
    );
    expect(outcome.result).toBe('skipped');
    expect(wouldDo).toEqual([
      'annotate deployment/stg-jobs-manager -n tracebloc tracebloc.io/refresh-skip-streak=1',
      expect.stringMatching(/^record the Normal Event RefreshSkipped: deployment\/stg-jobs-manager not settled/),
    ]);
    expect(world.annotations).toEqual({});
  });
});

describe('event streaming', () => {
  it('hands each event out as the machine emits it, before the next port call', async () => {
    const config = simConfig();
    const world = new SimWorld(config);
    world.annotations = { [JM_KEY]: simDigest(`${JM}#1`) };
    world.publish(JM, simDigest(`${JM}#2`));
    const seen: string[] = [];
    const ports = simPorts(world);
    const spied = {
      ...ports,
      cluster: {
        ...ports.cluster,
        waitForRollout: (...args: Parameters<typeof ports.cluster.waitForRollout>) => {
          seen.push(`(waiting on ${args[0].id})`);
          return ports.cluster.waitForRollout(...args);
        },
      },
    };
    const outcome = await runTick(config, spied, { onEvent: (e: TickEvent) => seen.push(e.code) });
    expect(seen.slice(seen.indexOf('SET_IMAGE'), seen.indexOf('SET_IMAGE') + 3)).toEqual([
      'SET_IMAGE',
      '(waiting on jobs-manager)',
      'ROLLOUT_COMPLETE',
    ]);
    expect(seen.filter((s) => !s.startsWith('('))).toEqual(outcome.events.map((e) => e.code));
  });
});
