import { simDigest } from '@image-refresh/core/sim';
import { describe, expect, it } from 'vitest';
import { ANNOTATION } from '../../core/test/support/chart.js';
import { main } from '../src/main.js';
import { aWorld, runCli, theLine } from './support/sim-connection.js';

// The way back (docs/behaviour.md §3.6) in the CLI: `simulate --scenario
// bad-build` tells the way back's story; `status` and `status --json` show a
// quarantine; `rearm` lifts it and says which.

const JM = 'tracebloc/jobs-manager';
const QUARANTINE = 'tracebloc.io/quarantined-jobs-manager-digest';
const BAD = simDigest(`${JM}#2`);

const simulate = async (...argv: string[]) => {
  const stdout: string[] = [];
  const { exitCode } = await main(
    ['simulate', ...argv],
    { stdout: (l) => stdout.push(l), stderr: () => undefined },
    {
      env: {},
      connect: () => {
        throw new Error('simulate must not connect');
      },
    },
  );
  return { exitCode, stdout: stdout.join('\n') };
};

const row = (timeline: string, tick: number): string => {
  const line = timeline.split('\n').find((l) => l.startsWith(`${tick} `));
  if (line === undefined) throw new Error(`no row for tick ${tick} in:\n${timeline}`);
  return line;
};

describe('simulate --scenario bad-build', () => {
  it('rolls the crash-looping build back (exit 1), holds it while the tag names it, rolls the fixed build out', async () => {
    const { exitCode, stdout } = await simulate('--scenario', 'bad-build');
    expect(exitCode).toBe(0);
    expect(row(stdout, 2)).toMatch(/ROLLED BACK: jobs-manager\s+1\s+-\s+1\/3/);
    expect(row(stdout, 2)).toContain('Warning RefreshRolledBack');
    expect(row(stdout, 3)).toMatch(/quarantined digest held \(jobs-manager\)\s+0/);
    expect(row(stdout, 4)).toMatch(/re-imaged jobs-manager, requests-proxy\s+0\s+-\s+-/);
  });

  it('is listed', async () => {
    expect((await simulate('--list')).stdout).toMatch(/^bad-build /m);
  });
});

describe('status and rearm with a quarantine', () => {
  it('status names the quarantined digest; --json carries it per image', async () => {
    const world = aWorld();
    world.annotations = { [QUARANTINE]: BAD };
    const { stdout } = await runCli(['status', '--no-registry'], world);
    expect(theLine(stdout, 'quarantined')).toContain(`${JM}@${BAD}`);
    const json = await runCli(['status', '--no-registry', '--json'], world);
    expect(JSON.parse(json.stdout[0] ?? '').quarantined).toEqual({
      'jobs-manager': BAD,
      'pods-monitor': null,
      'resource-monitor': null,
    });
  });

  it('status says nothing of quarantines where none is set', async () => {
    const { stdout } = await runCli(['status', '--no-registry'], aWorld());
    expect(stdout.filter((l) => l.startsWith('quarantined'))).toEqual([]);
  });

  it('rearm lifts the quarantine with the flap state, in one write, and says which digest it lets back in', async () => {
    const world = aWorld();
    world.annotations = { [ANNOTATION.refreshAttempt]: '3', [QUARANTINE]: BAD };
    const { exitCode, stdout } = await runCli(['rearm'], world);
    expect(exitCode).toBe(0);
    expect(world.calls.filter((c) => c.op === 'patchBookkeeping').map((c) => c.detail)).toEqual([
      `${ANNOTATION.refreshAttempt}- ${ANNOTATION.flapDetected}- ${QUARANTINE}-`,
    ]);
    expect(stdout).toContainEqual(expect.stringMatching(new RegExp(`^lifted the quarantine of ${JM}@${BAD} `)));
    expect(world.annotations).toEqual({});
  });

  it('rearm with only a quarantine set lifts it alone', async () => {
    const world = aWorld();
    world.annotations = { [QUARANTINE]: BAD };
    const { exitCode, stdout } = await runCli(['rearm'], world);
    expect(exitCode).toBe(0);
    expect(world.calls.filter((c) => c.op === 'patchBookkeeping').map((c) => c.detail)).toEqual([`${QUARANTINE}-`]);
    expect(stdout).toHaveLength(1);
  });
});
