import { simDigest } from '@image-refresh/core/sim';
import { describe, expect, it } from 'vitest';
import { ANNOTATION } from '../../core/test/support/chart.js';
import { aWorld, runCli, theLine } from './support/sim-connection.js';

const JM = 'tracebloc/jobs-manager';

describe('image-refresh status', () => {
  it('shows settledness, both counters against their ceilings, the flap marker and digests per image', async () => {
    const world = aWorld({ MAX_SKIP_TICKS: '8' });
    world.setBehaviour('jobs-manager', 'neverReady');
    world.annotations = {
      [ANNOTATION.skipStreak]: '3',
      [ANNOTATION.refreshAttempt]: '2',
      'tracebloc.io/last-refreshed-jobs-manager-digest': simDigest(`${JM}#1`),
    };
    world.publish(JM, simDigest(`${JM}#2`));
    const { exitCode, stdout } = await runCli(['status'], world);
    expect(exitCode).toBe(0);
    expect(theLine(stdout, 'jobs-manager     deployment/stg-jobs-manager')).toContain('NOT settled');
    expect(theLine(stdout, 'skip streak')).toContain('3/8');
    expect(theLine(stdout, 'attempts')).toContain('2/3');
    expect(theLine(stdout, 'flap marker')).toContain('none');
    const jm = theLine(stdout, 'jobs-manager      ');
    expect(jm).toContain('DRIFT');
    expect(jm).toContain('api=tag stg');
    expect(world.calls.filter((c) => c.op !== 'resolveDigest')).toEqual([]);
  });

  it('every workload name is a column of its own: resource-monitor, 16 wide, is not run into its object', async () => {
    const { stdout } = await runCli(['status', '--no-registry'], aWorld());
    expect(
      stdout
        .filter((l) => /^(jobs-manager|requests-proxy|resource-monitor) +(deployment|daemonset)\//.test(l))
        .map((l) => l.split(':')[0]),
    ).toEqual([
      'jobs-manager     deployment/stg-jobs-manager',
      'requests-proxy   deployment/stg-requests-proxy',
      'resource-monitor daemonset/stg-resource-monitor',
    ]);
  });

  it('--no-registry asks the registry nothing', async () => {
    const world = aWorld();
    const { stdout } = await runCli(['status', '--no-registry'], world);
    expect(world.calls).toEqual([]);
    expect(theLine(stdout, 'pods-monitor      ')).toContain('not asked');
  });

  it('an unreadable jobs-manager is said with its cause; the report still exits 0', async () => {
    const world = aWorld();
    world.deleteGate();
    const { exitCode, stdout } = await runCli(['status'], world);
    expect(exitCode).toBe(0);
    expect(theLine(stdout, 'cannot read it')).toContain('NotFound (HTTP 404)');
  });
});

describe('image-refresh rearm', () => {
  it('removes refresh-attempt and the flap marker in one write and says what it removed', async () => {
    const world = aWorld();
    world.annotations = {
      [ANNOTATION.refreshAttempt]: '3',
      [ANNOTATION.flapDetected]: '3',
      [ANNOTATION.skipStreak]: '1',
    };
    const { exitCode, stdout } = await runCli(['rearm'], world);
    expect(exitCode).toBe(0);
    expect(stdout[0]).toContain('removed tracebloc.io/refresh-attempt=3 and tracebloc.io/refresh-flap-detected=3');
    expect(world.calls.filter((c) => c.op === 'patchBookkeeping').map((c) => c.detail)).toEqual([
      `${ANNOTATION.refreshAttempt}- ${ANNOTATION.flapDetected}-`,
    ]);
    expect(world.annotations).toEqual({ [ANNOTATION.skipStreak]: '1' });
  });

  it('says so when there was nothing to re-arm, and writes nothing', async () => {
    const world = aWorld();
    const { exitCode, stdout } = await runCli(['rearm'], world);
    expect(exitCode).toBe(0);
    expect(stdout[0]).toMatch(/^nothing to re-arm/);
    expect(world.calls).toEqual([]);
  });

  it('a failed write is exit 1 naming the cause', async () => {
    const world = aWorld();
    world.annotations = { [ANNOTATION.refreshAttempt]: '3' };
    world.injectClusterFault('patchBookkeeping', 'Forbidden');
    const { exitCode, stderr } = await runCli(['rearm'], world);
    expect(exitCode).toBe(1);
    expect(stderr[0]).toContain('Forbidden (HTTP 403)');
  });
});
