import { simDigest } from '@image-refresh/core/sim';
import { describe, expect, it } from 'vitest';
import { ANNOTATION } from '../../core/test/support/chart.js';
import { main } from '../src/main.js';
import { aWorld, ENV, runCli, theLine } from './support/sim-connection.js';

// `image-refresh tick` as the CronJob runs it: the chart's environment in, the
// reference's stderr lines and exit codes out.

const JM = 'tracebloc/jobs-manager';

describe('image-refresh tick', () => {
  it('prints the reference phrases with the [image-refresh] prefix and exits 1 at the skip ceiling', async () => {
    const world = aWorld();
    world.setBehaviour('jobs-manager', 'neverReady');
    world.setAnnotation(ANNOTATION.skipStreak, '7');
    const { exitCode, stderr } = await runCli(['tick'], world);
    expect(exitCode).toBe(1);
    const frozen = theLine(stderr, 'IMAGE REFRESH IS FROZEN');
    expect(frozen).toMatch(
      /^\[image-refresh\] ERROR: deployment\/stg-jobs-manager has been unsettled for 8 consecutive ticks/,
    );
    expect(frozen).toContain('deployment/stg-requests-proxy');
    expect(world.annotations[ANNOTATION.skipStreak]).toBe('8');
  });

  it('ends with a one-line summary: outcome, exit code, writes, re-images', async () => {
    const world = aWorld();
    world.annotations = { 'tracebloc.io/last-refreshed-jobs-manager-digest': simDigest(`${JM}#1`) };
    world.publish(JM, simDigest(`${JM}#2`));
    const { exitCode, stderr } = await runCli(['tick'], world);
    expect(exitCode).toBe(0);
    expect(stderr.at(-1)).toBe(
      // A topology this edge never checked: every container found the followed image's, remembered (§3.4c).
      '[image-refresh] summary: outcome=complete exit=0 findings=0 writes=4 (recordTopologyFingerprint, writeRefreshAttempt, clearFlapState, recordDigests) re-images=2 (deployment/stg-jobs-manager, deployment/stg-requests-proxy) unresolved=0',
    );
    // 'set image' is printed before its rollout completes: events stream.
    expect(stderr.findIndex((l) => l.includes('set image deployment/stg-jobs-manager'))).toBeLessThan(
      stderr.findIndex((l) => l.includes('deployment/stg-jobs-manager rollout complete')),
    );
  });

  it('--json writes one JSON event per line on stdout, same codes, and nothing on stderr', async () => {
    const world = aWorld();
    world.setBehaviour('jobs-manager', 'neverReady');
    const { exitCode, stdout, stderr } = await runCli(['tick', '--json'], world);
    expect(exitCode).toBe(0);
    expect(stderr).toEqual([]);
    const events = stdout.map((l) => JSON.parse(l) as { code: string; message: string });
    expect(events.map((e) => e.code)).toEqual(['CLUSTER', 'TICK_START', 'NOT_SETTLED_SKIP', 'SUMMARY']);
    expect(events[2]?.message).toContain('skipping this refresh tick 1/8');
  });

  it('a malformed environment is exit 2, names the variable, and never connects', async () => {
    const world = aWorld();
    const { exitCode, stderr, connected } = await runCli(['tick'], world, { MAX_REFRESH_ATTEMPTS: 'three' });
    expect(exitCode).toBe(2);
    expect(theLine(stderr, 'MAX_REFRESH_ATTEMPTS')).toContain('MAX_REFRESH_ATTEMPTS="three"');
    expect(connected).toBe(0);
    expect(world.calls).toEqual([]);
  });

  it('--dry-run decides and prints the plan; every write goes to the API server as a dry run, and nothing persists', async () => {
    const world = aWorld();
    world.annotations = { 'tracebloc.io/last-refreshed-jobs-manager-digest': simDigest(`${JM}#1`) };
    world.publish(JM, simDigest(`${JM}#2`));
    const { exitCode, stderr } = await runCli(['tick', '--dry-run'], world);
    expect(exitCode).toBe(0);
    expect(
      stderr.filter(
        (l) => l.includes('dry-run: would set image') && l.endsWith('(the API server accepted it as a dry run)'),
      ),
    ).toHaveLength(2);
    expect(stderr.at(-1)).toMatch(/^\[image-refresh\] dry-run summary: outcome=complete/);
    const writes = world.calls.filter((c) => c.op === 'setImages' || c.op === 'patchBookkeeping');
    expect(writes.map((c) => c.outcome)).toEqual(['dry run', 'dry run', 'dry run', 'dry run', 'dry run', 'dry run']);
    expect(world.annotations['tracebloc.io/last-refreshed-jobs-manager-digest']).toBe(simDigest(`${JM}#1`));
    expect(world.workload('jobs-manager').images.api).toBe(`docker.io/${JM}:stg`);
  });

  it('--dry-run: a write the API server would refuse ends the dry run as it would end the real tick, exit 1', async () => {
    const world = aWorld();
    world.annotations = { 'tracebloc.io/last-refreshed-jobs-manager-digest': simDigest(`${JM}#1`) };
    world.publish(JM, simDigest(`${JM}#2`));
    world.injectClusterFault('patchBookkeeping', 'Forbidden', 1, `${ANNOTATION.refreshAttempt}=`);
    const { exitCode, stderr } = await runCli(['tick', '--dry-run'], world);
    expect(exitCode).toBe(1);
    expect(theLine(stderr, 'dry-run: ERROR: could not persist')).toMatch(
      /^\[image-refresh\] dry-run: ERROR: could not persist tracebloc\.io\/refresh-attempt=1 /,
    );
    expect(stderr.at(-1)).toMatch(/^\[image-refresh\] dry-run summary: outcome=attemptWriteFailed exit=1 /);
    expect(world.calls.filter((c) => c.op === 'setImages')).toEqual([]);
  });

  it('--dry-run=client sends no write at all (credentials that may only read), and says every one', async () => {
    const world = aWorld();
    world.annotations = { 'tracebloc.io/last-refreshed-jobs-manager-digest': simDigest(`${JM}#1`) };
    world.publish(JM, simDigest(`${JM}#2`));
    world.injectClusterFault('patchBookkeeping', 'Forbidden', 1, `${ANNOTATION.refreshAttempt}=`);
    const { exitCode, stderr } = await runCli(['tick', '--dry-run=client'], world);
    expect(exitCode).toBe(0);
    expect(stderr.filter((l) => l.includes('dry-run: would set image'))).toHaveLength(2);
    expect(world.calls.filter((c) => c.op === 'setImages' || c.op === 'patchBookkeeping')).toEqual([]);
  });

  it('--dry-run takes server or client, nothing else', async () => {
    const { exitCode, stderr, connected } = await runCli(['tick', '--dry-run=maybe'], aWorld());
    expect(exitCode).toBe(2);
    expect(stderr[0]).toBe("image-refresh: tick: --dry-run takes server (the default) or client, not 'maybe'");
    expect(connected).toBe(0);
  });

  it("--dry-run: every line says it is a dry run, and none reports an action in a real run's words", async () => {
    const world = aWorld();
    world.annotations = { 'tracebloc.io/last-refreshed-jobs-manager-digest': simDigest(`${JM}#1`) };
    world.publish(JM, simDigest(`${JM}#2`));
    const { stderr } = await runCli(['tick', '--dry-run'], world);
    expect(stderr.filter((l) => !/^\[image-refresh\] +dry-run[: ]/.test(l))).toEqual([]);
    const realRun =
      /^\[image-refresh\] +(dry-run: )?(re-imaging|set image|\S+ rollout complete|re-image complete|updating deployment annotations|tick complete)/;
    expect(stderr.filter((l) => realRun.test(l))).toEqual([]);
    expect(theLine(stderr, 'would re-image control-plane workloads')).toContain('(attempt 1/3)');
  });

  it('a variable within two edits of one of ours is said, with the one it was likely meant to be', async () => {
    const { exitCode, stderr } = await runCli(['tick'], aWorld(), { ON_ROLOUT_FAILURE: 'revert', PATH: '/usr/bin' });
    expect(exitCode).toBe(0);
    expect(theLine(stderr, 'did you mean')).toBe(
      '[image-refresh] WARN: ON_ROLOUT_FAILURE is not a variable image-refresh reads (did you mean ON_ROLLOUT_FAILURE?); it is ignored',
    );
  });

  it.each([['tick'], ['status'], ['rearm']])(
    '%s without credentials for the cluster: a configuration error naming KUBECONFIG, exit 2, no request',
    async (command) => {
      const stderr: string[] = [];
      const { exitCode } = await main(
        [command],
        { stdout: () => undefined, stderr: (l) => stderr.push(l) },
        {
          env: { ...ENV, KUBECONFIG: '/nowhere/config' },
          connect: () => ({
            source: 'unavailable: KUBECONFIG names file(s) that do not exist: /nowhere/config',
            reachable: false,
            configProblem: {
              variable: 'KUBECONFIG',
              value: '/nowhere/config',
              problem: 'KUBECONFIG names file(s) that do not exist: /nowhere/config',
            },
            ports: () => {
              throw new Error('no port may be built without credentials');
            },
            inspect: () => {
              throw new Error('no workload may be read without credentials');
            },
          }),
        },
      );
      expect(exitCode).toBe(2);
      expect(theLine(stderr, 'KUBECONFIG')).toBe(
        '[image-refresh] ERROR: configuration: KUBECONFIG="/nowhere/config": KUBECONFIG names file(s) that do not exist: /nowhere/config',
      );
    },
  );

  it('an unknown flag is a usage error, exit 2', async () => {
    const { exitCode, stderr } = await runCli(['tick', '--force'], aWorld());
    expect(exitCode).toBe(2);
    expect(stderr[0]).toContain("Unknown option '--force'");
  });
});
