import * as TE from 'fp-ts/lib/TaskEither.js';
import { describe, expect, it } from 'vitest';
import type { TickOutcome } from '../src/machine/tick-outcome.js';
import { runTick, type TickPorts } from '../src/run-tick.js';
import { SimWorld, simConfig, simDigest, simPorts } from '../src/sim/index.js';
import { JM, PM } from './support/edge.js';

// How the tick reads the answers its ports give, through the public runTick:
// a rollout error is quoted as the port said it only when it is one of the
// two rollout errors with a message; anything else is an "unexpected
// failure" of that call, never a crash and never a pass (docs/behaviour.md
// §3.6, I7). And the lines that say what the plan left alone.

const JM_KEY = 'tracebloc.io/last-refreshed-jobs-manager-digest';
const PM_KEY = 'tracebloc.io/last-refreshed-pods-monitor-digest';

const drifting = (env: Record<string, string> = {}, moved: readonly string[] = [JM]) => {
  const config = simConfig(env);
  const world = new SimWorld(config);
  world.annotations = { [JM_KEY]: simDigest(`${JM}#1`), [PM_KEY]: simDigest(`${PM}#1`) };
  for (const repo of moved) world.publish(repo, simDigest(`${repo}#2`));
  return { config, world };
};

const waitAnswering = (ports: TickPorts, error: unknown): TickPorts => ({
  ...ports,
  cluster: { ...ports.cluster, waitForRollout: () => TE.left(error as never) },
});

const lineOf = (outcome: TickOutcome, code: string): string[] =>
  outcome.events.filter((e) => e.code === code).map((e) => e.message);

describe('a rollout wait that fails', () => {
  const failedWith = async (error: unknown) => {
    const { config, world } = drifting();
    const outcome = await runTick(config, waitAnswering(simPorts(world), error));
    expect([outcome.result, outcome.exitCode]).toEqual(['reimageFailed', 1]);
    expect(world.annotations[JM_KEY]).toBe(simDigest(`${JM}#1`));
    return lineOf(outcome, 'ROLLOUT_FAILED');
  };

  it('RolloutTimedOut: the timeout and the port`s own words', async () => {
    expect(await failedWith({ _tag: 'RolloutTimedOut', message: '0 of 1 updated replicas are available' })).toEqual([
      'ERROR: rollout of deployment/stg-jobs-manager did not complete within ROLLOUT_TIMEOUT=10m (RolloutTimedOut: 0 of 1 updated replicas are available); the attempt counter stays incremented and the new digests are not recorded.',
    ]);
  });

  it('RolloutFailed: it says waiting cannot complete it', async () => {
    expect(await failedWith({ _tag: 'RolloutFailed', message: 'ProgressDeadlineExceeded' })).toEqual([
      'ERROR: rollout of deployment/stg-jobs-manager failed, and waiting cannot complete it (RolloutFailed: ProgressDeadlineExceeded); the attempt counter stays incremented and the new digests are not recorded.',
    ]);
  });

  it.each([
    [{ _tag: 'RolloutFailed', message: 7 }, 'Transport: unexpected failure: [object Object]'],
    [{ _tag: 'RolloutTimedOut' }, 'Transport: unexpected failure: [object Object]'],
    [null, 'Transport: unexpected failure: null'],
    ['gone', 'Transport: unexpected failure: gone'],
    // Only an object is a rollout error: a function that carries the fields is not one.
    [
      Object.assign(() => undefined, { _tag: 'RolloutFailed', message: 'lookalike' }),
      'Transport: unexpected failure: () => undefined',
    ],
  ])('%j is an unexpected failure of the wait, named as such', async (error, said) => {
    expect(await failedWith(error)).toEqual([
      `ERROR: rollout of deployment/stg-jobs-manager did not complete within ROLLOUT_TIMEOUT=10m (${said}); the attempt counter stays incremented and the new digests are not recorded.`,
    ]);
  });

  it('a port error from the wait keeps its tag', async () => {
    expect(await failedWith({ _tag: 'Forbidden', message: 'no watch', status: 403 })).toEqual([
      'ERROR: rollout of deployment/stg-jobs-manager did not complete within ROLLOUT_TIMEOUT=10m (Forbidden (HTTP 403): no watch); the attempt counter stays incremented and the new digests are not recorded.',
    ]);
  });
});

describe('what the plan leaves alone, said once', () => {
  it('a pinned requests-proxy is said to stay when jobs-manager moves, and is not patched', async () => {
    const { config, world } = drifting({ REQUESTS_PROXY_PINNED: '1' });
    const outcome = await runTick(config, simPorts(world));
    expect(lineOf(outcome, 'WORKLOAD_PINNED')).toEqual([
      'requests-proxy is pinned by REQUESTS_PROXY_PINNED=1; not following this digest',
    ]);
    expect(outcome.reimages.map((r) => r.workload.id)).toEqual(['jobs-manager']);
  });

  it('nothing is said of requests-proxy when only pods-monitor moved', async () => {
    const { config, world } = drifting({ REQUESTS_PROXY_PINNED: '1' }, [PM]);
    const outcome = await runTick(config, simPorts(world));
    expect(lineOf(outcome, 'WORKLOAD_PINNED')).toEqual([]);
    expect(outcome.reimages.map((r) => r.workload.id)).toEqual(['jobs-manager']);
  });

  it('nothing is said of requests-proxy when it is not pinned', async () => {
    const { config, world } = drifting();
    const outcome = await runTick(config, simPorts(world));
    expect(lineOf(outcome, 'WORKLOAD_PINNED')).toEqual([]);
    expect(outcome.reimages.map((r) => r.workload.id)).toEqual(['jobs-manager', 'requests-proxy']);
  });

  it('a pinned image is checked, said to be pinned, and never resolved', async () => {
    const { config, world } = drifting({ PODS_MONITOR_PINNED: '1' }, [PM]);
    const outcome = await runTick(config, simPorts(world));
    expect(lineOf(outcome, 'IMAGE_PINNED')).toEqual([
      'tracebloc/pods-monitor: pinned by digest in values; skipping (auto-refresh disabled for this image)',
    ]);
    expect(lineOf(outcome, 'CHECKING_IMAGE')).toContain(
      'checking tracebloc/pods-monitor:stg (annotation=tracebloc.io/last-refreshed-pods-monitor-digest)',
    );
    expect(world.calls.filter((c) => c.op === 'resolveDigest').map((c) => c.detail)).not.toContainEqual(
      expect.stringContaining('pods-monitor'),
    );
    expect(outcome.reimages).toEqual([]);
  });
});

describe('RECONCILE_LIVE reads only what image-refresh manages, and only on a settled tick', () => {
  const observed = async (env: Record<string, string>) => {
    const { config, world } = drifting({ RECONCILE_LIVE: '1', ...env }, []);
    const outcome = await runTick(config, simPorts(world));
    expect(outcome.exitCode).toBe(0);
    return world.calls.filter((c) => c.op === 'observeWorkload').map((c) => c.detail);
  };

  it('nothing pinned: each of the three workloads is read', async () => {
    expect(await observed({})).toEqual(['jobs-manager', 'requests-proxy', 'resource-monitor']);
  });

  it.each([
    ['REQUESTS_PROXY_PINNED', ['jobs-manager', 'resource-monitor']],
    // requests-proxy runs jobs-manager's image: with that pinned it has nothing to follow.
    ['JOBS_MANAGER_PINNED', ['jobs-manager', 'resource-monitor']],
    ['RESOURCE_MONITOR_PINNED', ['jobs-manager', 'requests-proxy']],
  ])('%s=1: that workload is not read', async (variable, reads) => {
    expect(await observed({ [variable]: '1' })).toEqual(reads);
  });

  it('a decoupled pass makes the calls and says the lines it makes without RECONCILE_LIVE: no pin markers, no live drift', async () => {
    const RM = 'tracebloc/resource-monitor';
    const pass = async (reconcileLive: string) => {
      const config = simConfig({ DECOUPLED_REFRESH: '1', RECONCILE_LIVE: reconcileLive });
      const world = new SimWorld(config);
      world.annotations = { 'tracebloc.io/last-refreshed-resource-monitor-digest': simDigest(`${RM}#1`) };
      world.setBehaviour('jobs-manager', 'neverReady');
      // resource-monitor runs a digest nobody recorded: a live finding, on a settled tick.
      world.setLiveImage('resource-monitor', 'tracebloc-resource-monitor', `docker.io/${RM}@${simDigest(`${RM}#9`)}`);
      const outcome = await runTick(config, simPorts(world));
      return {
        ops: world.calls.map((c) => `${c.op} ${c.op === 'observeWorkload' ? c.detail : ''}`.trim()),
        codes: outcome.events.map((e) => e.code),
        result: outcome.result,
      };
    };
    const without = await pass('0');
    expect(without.result).toBe('skipped');
    expect(await pass('1')).toEqual(without);
  });
});

describe('every line of a decoupled tick is a line', () => {
  it('images a decoupled pass does not ask about add nothing to the log', async () => {
    const config = simConfig({ DECOUPLED_REFRESH: '1' });
    const world = new SimWorld(config);
    world.setBehaviour('jobs-manager', 'neverReady');
    const outcome = await runTick(config, simPorts(world));
    for (const event of outcome.events) {
      expect(event).toEqual(expect.objectContaining({ level: expect.any(String), code: expect.any(String) }));
    }
    // pods-monitor is a sidecar of the unsettled jobs-manager: not asked, not said.
    expect(lineOf(outcome, 'CHECKING_IMAGE')).toEqual([
      'checking tracebloc/jobs-manager:stg (annotation=tracebloc.io/last-refreshed-jobs-manager-digest)',
      'checking tracebloc/resource-monitor:stg (annotation=tracebloc.io/last-refreshed-resource-monitor-digest)',
    ]);
  });
});
