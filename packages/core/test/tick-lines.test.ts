import * as TE from 'fp-ts/lib/TaskEither.js';
import { describe, expect, it } from 'vitest';
import { createActor } from 'xstate';
import type { WorkloadRef } from '../src/domain/workloads.js';
import { tickMachine } from '../src/index.js';
import type { TickOutcome } from '../src/machine/tick-outcome.js';
import { runTick, type TickPorts } from '../src/run-tick.js';
import { SimWorld, simConfig, simDigest, simPorts } from '../src/sim/index.js';
import { ANNOTATION } from './support/chart.js';
import { JM, RM } from './support/edge.js';

// The lines an operator reads for the steps that only speak — a re-image
// completed, the digests being recorded, a decoupled pass putting the attempt
// count back, a workload that could not be read — each asserted as the one
// line of its code, with the number or the workload it must name.

const JM_KEY = 'tracebloc.io/last-refreshed-jobs-manager-digest';
const RM_KEY = 'tracebloc.io/last-refreshed-resource-monitor-digest';

const linesOf = (outcome: TickOutcome, code: string): string[] =>
  outcome.events.filter((e) => e.code === code).map((e) => e.message);

const forbidden = { _tag: 'Forbidden', message: 'no', status: 403 } as const;

const observeFailingFor = (ports: TickPorts, id: string): TickPorts => ({
  ...ports,
  cluster: {
    ...ports.cluster,
    observeWorkload: (workload: WorkloadRef) =>
      workload.id === id ? TE.left(forbidden) : ports.cluster.observeWorkload(workload),
  },
});

const patchFailingFor = (ports: TickPorts, key: string, value: string): TickPorts => ({
  ...ports,
  cluster: {
    ...ports.cluster,
    patchBookkeeping: (changes) =>
      changes[key] === value ? TE.left(forbidden) : ports.cluster.patchBookkeeping(changes),
  },
});

const jmDrifting = (env: Record<string, string> = {}, annotations: Record<string, string> = {}) => {
  const config = simConfig(env);
  const world = new SimWorld(config);
  world.annotations = { [JM_KEY]: simDigest(`${JM}#1`), ...annotations };
  world.publish(JM, simDigest(`${JM}#2`));
  return { config, world };
};

/** jobs-manager never Ready, DECOUPLED_REFRESH=1, resource-monitor moved to build 2. */
const decoupledRm = (annotations: Record<string, string> = {}) => {
  const config = simConfig({ DECOUPLED_REFRESH: '1' });
  const world = new SimWorld(config);
  world.annotations = { [RM_KEY]: simDigest(`${RM}#1`), ...annotations };
  world.publish(RM, simDigest(`${RM}#2`));
  world.setBehaviour('jobs-manager', 'neverReady');
  return { config, world };
};

describe('a re-image that completes', () => {
  it('says "re-image complete" once, then the record it writes, key by key', async () => {
    const { config, world } = jmDrifting();
    const outcome = await runTick(config, simPorts(world));
    expect(linesOf(outcome, 'REIMAGE_COMPLETE')).toEqual(['re-image complete']);
    // The drift and the two first observations, as the cluster received them.
    const PM_KEY = 'tracebloc.io/last-refreshed-pods-monitor-digest';
    expect(linesOf(outcome, 'RECORDING_DIGESTS')).toEqual([
      `updating deployment annotations: ${JM_KEY}=${simDigest(`${JM}#2`)} ${PM_KEY}=${world.annotations[PM_KEY]} ${RM_KEY}=${world.annotations[RM_KEY]}`,
    ]);
    expect(world.annotations[RM_KEY]).toMatch(/^sha256:/);
  });

  it('reports no "previous" images where the tick did not read the workloads', async () => {
    const { config, world } = jmDrifting();
    const outcome = await runTick(config, simPorts(world));
    expect(outcome.reimages).toHaveLength(2);
    for (const reimage of outcome.reimages) expect(reimage).not.toHaveProperty('previous');
  });
});

describe('an attempt write that fails', () => {
  it('names the count it could not write: one more than the one read', async () => {
    const { config, world } = jmDrifting({}, { [ANNOTATION.refreshAttempt]: '1' });
    const outcome = await runTick(config, patchFailingFor(simPorts(world), ANNOTATION.refreshAttempt, '2'));
    expect([outcome.result, outcome.exitCode]).toEqual(['attemptWriteFailed', 1]);
    expect(linesOf(outcome, 'ATTEMPT_WRITE_FAILED')).toEqual([
      'ERROR: could not persist tracebloc.io/refresh-attempt=2 on deployment/stg-jobs-manager (Forbidden (HTTP 403): no); not re-imaging without a persisted attempt, which is what the flap guard counts.',
    ]);
    expect(world.calls.some((c) => c.op === 'setImages')).toBe(false);
  });
});

describe('a decoupled pass over earlier failures (I25)', () => {
  it('puts the count back and says so', async () => {
    const { config, world } = decoupledRm({ [ANNOTATION.refreshAttempt]: '1' });
    const outcome = await runTick(config, simPorts(world));
    expect(linesOf(outcome, 'ATTEMPT_KEPT')).toEqual([
      expect.stringMatching(/^decoupled re-image complete; tracebloc\.io\/refresh-attempt stays at 1\/3: /),
    ]);
    expect(world.annotations[ANNOTATION.refreshAttempt]).toBe('1');
  });

  it('a count it cannot put back is a finding naming both numbers, and the record still happens', async () => {
    const { config, world } = decoupledRm({ [ANNOTATION.refreshAttempt]: '1' });
    const outcome = await runTick(config, patchFailingFor(simPorts(world), ANNOTATION.refreshAttempt, '1'));
    expect(outcome.exitCode).toBe(1);
    expect(linesOf(outcome, 'SUCCESS_RESET_FAILED')).toEqual([
      expect.stringMatching(
        /^ERROR: the decoupled re-image completed but tracebloc\.io\/refresh-attempt could not be put back to 1 on deployment\/stg-jobs-manager \(Forbidden \(HTTP 403\): no\)\. It still reads 2,/,
      ),
    ]);
    expect(world.annotations[RM_KEY]).toBe(simDigest(`${RM}#2`));
  });
});

describe('a workload that cannot be read', () => {
  it('RECONCILE_LIVE=1 (OWNERSHIP_CHECK=off, which would need it): a WARN naming it, and the tick goes on', async () => {
    const { config, world } = jmDrifting({ RECONCILE_LIVE: '1', OWNERSHIP_CHECK: 'off' });
    const outcome = await runTick(config, observeFailingFor(simPorts(world), 'requests-proxy'));
    expect(linesOf(outcome, 'LIVE_UNREADABLE')).toEqual([
      'WARN: could not read deployment/stg-requests-proxy (Forbidden (HTTP 403): no); it is not reconciled this tick',
    ]);
    expect([outcome.result, outcome.exitCode]).toEqual(['complete', 0]);
    expect(world.calls.filter((c) => c.op === 'observeWorkload').map((c) => c.detail)).toContain('resource-monitor');
  });

  it('DECOUPLED_REFRESH=1: a WARN naming it, and it is not refreshed past jobs-manager', async () => {
    const { config, world } = decoupledRm();
    const outcome = await runTick(config, observeFailingFor(simPorts(world), 'resource-monitor'));
    expect(linesOf(outcome, 'LIVE_UNREADABLE')).toEqual([
      'WARN: could not read daemonset/stg-resource-monitor (Forbidden (HTTP 403): no); not refreshed past the unsettled jobs-manager this tick',
    ]);
    expect(world.calls.some((c) => c.op === 'setImages')).toBe(false);
    expect(outcome.result).toBe('skipped');
  });
});

describe('the public machine without a config', () => {
  it('fails at once, saying it needs a parsed TickConfig, and takes no step', () => {
    // What a JavaScript caller (or one that casts) can do: the types demand an input.
    const actor = createActor(tickMachine, { input: undefined as never });
    const errors: unknown[] = [];
    actor.subscribe({ error: (error) => errors.push(error) });
    actor.start();
    expect(actor.getSnapshot().status).toBe('error');
    expect(errors.map(String)).toEqual(['Error: the tick machine needs a parsed TickConfig as its input']);
  });
});
