import { fileURLToPath } from 'node:url';
import { runScenario, scenarioNamed, simDigest } from '@image-refresh/core/sim';
import { describe, expect, it } from 'vitest';
import { main } from '../src/main.js';

// `image-refresh simulate` is the README's main-job command: it must print a
// timeline whose rows say what the real machine decided.

const run = async (...argv: string[]) => {
  const stdout: string[] = [];
  const stderr: string[] = [];
  const { exitCode } = await main(
    argv,
    { stdout: (l) => stdout.push(l), stderr: (l) => stderr.push(l) },
    {
      env: {},
      connect: () => {
        throw new Error('simulate must not connect');
      },
    },
  );
  return { exitCode, stdout: stdout.join('\n'), stderr: stderr.join('\n') };
};

/** The example profile the README points at. */
const SHOP_EXAMPLE = fileURLToPath(new URL('../examples/shop.yaml', import.meta.url));
const ABSENT = fileURLToPath(new URL('../examples/absent.yaml', import.meta.url));

const row = (timeline: string, tick: number): string => {
  const line = timeline.split('\n').find((l) => l.startsWith(`${tick} `));
  if (line === undefined) throw new Error(`no row for tick ${tick} in:\n${timeline}`);
  return line;
};

describe('image-refresh simulate', () => {
  it('never-ready: seven counted skips, FROZEN with exit 1 on the eighth, resumes once settled', async () => {
    const { exitCode, stdout } = await run('simulate', '--scenario', 'never-ready');
    expect(exitCode).toBe(0);
    expect(row(stdout, 8)).toMatch(/not settled: skip\s+0\s+7\/8/);
    expect(row(stdout, 9)).toMatch(/IMAGE REFRESH IS FROZEN\s+1\s+8\/8/);
    expect(row(stdout, 11)).toMatch(/settled\s+re-imaged jobs-manager, requests-proxy\s+0\s+-/);
  });

  it('flapping-readiness: three failed re-images, then the lockout exits 0 until re-armed', async () => {
    const { stdout } = await run('simulate', '--scenario', 'flapping-readiness');
    expect(row(stdout, 4)).toMatch(/retry failed: jobs-manager rollout timed out\s+1\s+-\s+3\/3/);
    expect(row(stdout, 5)).toMatch(/FLAP DETECTED: no re-image\s+0\s+-\s+3\/3\s+3/);
    expect(row(stdout, 7)).toMatch(/re-imaged jobs-manager, requests-proxy\s+0\s+-\s+-\s+-/);
  });

  it('helm-revert: a re-render is repaired once; a fresh install on its tag never is', async () => {
    const { stdout } = await run('simulate', '--scenario', 'helm-revert');
    expect(row(stdout, 2)).toMatch(/settled\s+no change\s+0/);
    expect(row(stdout, 4)).toMatch(/re-imaged jobs-manager\s+0/);
    expect(row(stdout, 5)).toMatch(/no change\s+0/);
  });

  it('proxy-skew: requests-proxy converges alone, and jobs-manager is left on its tag', async () => {
    const { stdout } = await run('simulate', '--scenario', 'proxy-skew');
    expect(row(stdout, 2)).toMatch(/re-imaged requests-proxy\s+0/);
    expect(row(stdout, 3)).toMatch(/no change\s+0/);
  });

  it('canary-ring: the canary rolls build 2 at once; the tag is moved back and ring 1 never runs it', async () => {
    const { exitCode, stdout } = await run('simulate', '--scenario', 'canary-ring', '--verbose');
    expect(exitCode).toBe(0);
    const rows = stdout.split('\n').filter((l) => /^\d+ +\[(canary|ring 1)\]/.test(l));
    const of = (edge: string) => rows.filter((l) => l.includes(`[${edge}]`));
    expect(of('canary')[1]).toMatch(/re-imaged jobs-manager, requests-proxy\s+0/);
    expect(of('ring 1')[1]).toMatch(/soaking jobs-manager\s+0.*RefreshDigestSoakStarted/);
    expect(of('ring 1')[2]).toMatch(/soaking jobs-manager\s+0/);
    expect(of('ring 1')).toHaveLength(9);
    expect(of('ring 1').filter((l) => l.includes('re-imaged'))).toEqual([]);
    // Its log says why it waits, and the canary's says where build 2 went.
    const ring1Log = stdout.slice(stdout.indexOf('--- tick 2 [ring 1]'), stdout.indexOf('--- tick 3 [canary]'));
    expect(ring1Log).toMatch(
      /tracebloc\/jobs-manager@sha256:[0-9a-f]{12}… first seen 0s ago; acting after 01:15Z \(MIN_DIGEST_AGE=0s, ring 1 × RING_DELAY=1h\)/,
    );
    expect(stdout.slice(stdout.indexOf('--- tick 2 [canary]'))).toMatch(/set image deployment\/stg-jobs-manager/);
    const ring1Reimages = stdout
      .split('--- tick ')
      .filter((section) => section.includes('[ring 1]'))
      .filter((section) => section.includes('set image'));
    expect(ring1Reimages).toEqual([]);
  });

  it('fleet-halt: ring 0 goes bad, the halt is published, ring 1 never moves, ring 0 is sent back to the pin', async () => {
    const { exitCode, stdout } = await run('simulate', '--scenario', 'fleet-halt', '--verbose');
    expect(exitCode).toBe(0);
    const rows = stdout.split('\n').filter((l) => /^\d+ +\[(canary|ring 1)\]/.test(l));
    const of = (edge: string) => rows.filter((l) => l.includes(`[${edge}]`));
    const build1 = simDigest('tracebloc/jobs-manager#1').slice(0, 19);
    const build2 = simDigest('tracebloc/jobs-manager#2').slice(0, 19);
    // The canary rolls build 2 (tick 2); the halt sends it back to build 1, its pin (tick 4).
    expect(of('canary')[1]).toMatch(new RegExp(`re-imaged jobs-manager, requests-proxy\\s+0.*${build2}`));
    expect(of('canary')[3]).toMatch(
      new RegExp(
        `re-imaged jobs-manager, requests-proxy \\(the halt'…\\s+0.*${build1}.*Warning RefreshHalted, Normal RefreshReimaged`,
      ),
    );
    // Ring 1 soaked build 2, then the halt held it: past its RING_DELAY it never runs it.
    for (const row of of('ring 1').slice(3, 8))
      expect(row).toMatch(new RegExp(`FLEET HALT holds jobs-manager\\s+0.*${build1}`));
    const ring1Sets = stdout
      .split('--- tick ')
      .filter((section) => section.includes('[ring 1]'))
      .flatMap((section) => section.split('\n'))
      .filter((line) => line.includes('set image') && line.includes(`@${simDigest('tracebloc/jobs-manager#2')}`));
    expect(ring1Sets).toEqual([]);
    expect(stdout).toContain('FLEET HALT in force: jobs-manager build 2 loses jobs on restart (until ');
  });

  it('evidence-rings: ring 1 never runs the build the canary rolled back; it runs the promoted one at once, not after RING_DELAY', async () => {
    const { exitCode, stdout } = await run('simulate', '--scenario', 'evidence-rings', '--verbose');
    expect(exitCode).toBe(0);
    const rows = stdout.split('\n').filter((l) => /^\d+ +\[(canary|ring 1)\]/.test(l));
    const of = (edge: string) => rows.filter((l) => l.includes(`[${edge}]`));
    const short = (build: number) => simDigest(`tracebloc/jobs-manager#${build}`).slice(0, 19);
    expect(of('canary')).toHaveLength(9);
    expect(of('ring 1')).toHaveLength(9);
    // (a) The canary rolls build 2 back and quarantines it; nobody promotes it, and ring 1, a day
    // and more later (past ROLLOUT_RING × RING_DELAY), still records build 1 and waits.
    expect(of('canary')[1]).toMatch(new RegExp(`ROLLED BACK: jobs-manager\\s+1\\s.*${short(1)}`));
    for (const row of of('ring 1').slice(1, 6))
      expect(row).toMatch(new RegExp(`waiting for promotion: jobs-manager\\s+0\\s.*${short(1)}`));
    expect(of('ring 1')[4]).toContain('Fri 00:30');
    // (b) Build 3 runs on the canary from Fri 01:00; promoted at Fri 03:00, ring 1 rolls it that tick.
    expect(of('canary')[5]).toMatch(new RegExp(`re-imaged jobs-manager, requests-proxy\\s+0\\s.*${short(3)}`));
    expect(of('ring 1')[6]).toMatch(new RegExp(`waiting for promotion: jobs-manager\\s+0\\s.*${short(1)}`));
    expect(of('ring 1')[7]).toMatch(new RegExp(`re-imaged jobs-manager, requests-proxy\\s+0\\s.*${short(3)}`));
    // Its log says what it waited for.
    const ring1Log = stdout.slice(stdout.indexOf('--- tick 5 [ring 1]'), stdout.indexOf('--- tick 6 [canary]'));
    expect(ring1Log).toContain(
      `held back waiting for promotion of jobs-manager@${simDigest('tracebloc/jobs-manager#2')} to ring 1`,
    );

    // Which edge ran which build when, from the simulated workloads themselves.
    const scenario = scenarioNamed('evidence-rings');
    if (scenario === undefined) throw new Error('no evidence-rings scenario');
    const { rows: ticks } = await runScenario(scenario);
    // The build each edge's jobs-manager and requests-proxy run after each tick: the tag (the fresh install's build 1), or a pinned build.
    const builds = [1, 2, 3].map((n) => [simDigest(`tracebloc/jobs-manager#${n}`), `build ${n}`] as const);
    const runs = (edge: string) =>
      ticks
        .filter((t) => t.edge === edge)
        .map((t) =>
          [t.images['jobs-manager']?.api, t.images['requests-proxy']?.proxy]
            .map((image) =>
              image === 'docker.io/tracebloc/jobs-manager:stg'
                ? 'build 1 (tag)'
                : (builds.find(([digest]) => image?.endsWith(`@${digest}`))?.[1] ?? image),
            )
            .join(' / '),
        );
    // Ring 1: the install's build 1 until the promotion (tick 8, Fri 03:00), never build 2, then build 3 —
    // 26h after build 3's push, where its clock alone (RING_DELAY=24h from Fri 01:00) would have waited to Sat 01:00.
    expect(runs('ring 1')).toEqual([
      ...Array.from({ length: 7 }, () => 'build 1 (tag) / build 1 (tag)'),
      'build 3 / build 3',
      'build 3 / build 3',
    ]);
    // The canary: build 2 rolled back to build 1 (pinned), build 3 from its push on.
    expect(runs('canary')).toEqual([
      'build 1 (tag) / build 1 (tag)',
      ...Array.from({ length: 4 }, () => 'build 1 / build 1 (tag)'),
      ...Array.from({ length: 4 }, () => 'build 3 / build 3'),
    ]);
  });

  it('slow-link: without PREPULL the 20-minute pull times out and the good build is quarantined; with it the switch waits, then rolls', async () => {
    const { exitCode, stdout } = await run('simulate', '--scenario', 'slow-link');
    expect(exitCode).toBe(0);
    const rows = (edge: string) => stdout.split('\n').filter((l) => l.includes(`[${edge}]`));
    expect(rows('without PREPULL')[1]).toMatch(/ROLLED BACK: jobs-manager\s+1\s/);
    expect(rows('without PREPULL')[2]).toMatch(/quarantined digest held \(jobs-manager\)\s+0\s/);
    expect(rows('with PREPULL')[1]).toMatch(
      /re-imaged jobs-manager, requests-proxy\s+0\s.*Normal RefreshStaging, Normal RefreshReimaged/,
    );
    expect(stdout.split('\n').at(-1)).toBe(
      'time with pods unavailable (rollout waits of re-imaged workloads): [without PREPULL] 10m30s, [with PREPULL] 1m',
    );
  });

  it('--profile runs the example profile on an edge of its own topology: observed, re-imaged, rolled back, fixed', async () => {
    const { exitCode, stdout, stderr } = await run('simulate', '--profile', SHOP_EXAMPLE);
    expect(stderr).toBe('');
    expect(exitCode).toBe(0);
    expect(row(stdout, 1)).toMatch(/fresh install +settled +first observation: recorded 3 digest\(s\) +0 /);
    expect(row(stdout, 3)).toMatch(/publish shop\/web build 2 +settled +re-imaged web, worker +0 /);
    expect(row(stdout, 5)).toMatch(/crash-loops +settled +ROLLED BACK: agent +1 /);
    expect(row(stdout, 6)).toMatch(/quarantined digest held \(agent\) +0 /);
    expect(row(stdout, 7)).toMatch(/build 4, fixed +settled +re-imaged agent +0 /);
  });

  it('--profile with a file that is not a profile says why, exit 2; with --scenario, exit 2', async () => {
    const missing = await run('simulate', '--profile', ABSENT);
    expect(missing.exitCode).toBe(2);
    expect(missing.stderr).toBe(
      `image-refresh simulate: ${ABSENT}: no such file (mount the profile, e.g. from a ConfigMap, at this path)`,
    );
    const both = await run('simulate', '--profile', SHOP_EXAMPLE, '--scenario', 'shop');
    expect(both.exitCode).toBe(2);
    expect(both.stderr).toContain('--scenario and --profile are exclusive');
  });

  it('mirror: a build the mirror has not served waits, one it serves is pinned through it, another digest is a finding', async () => {
    const { stdout } = await run('simulate', '--scenario', 'mirror');
    expect(row(stdout, 2)).toMatch(/waiting: jobs-manager unresolved\s+0/);
    expect(row(stdout, 4)).toMatch(/re-imaged jobs-manager, requests-proxy\s+0/);
    expect(row(stdout, 5)).toMatch(/MIRROR MISMATCH\s+1/);
  });

  it('private-registry: a refused credential leaves the images waiting, then REGISTRY UNREACHABLE at the ceiling', async () => {
    const { stdout } = await run('simulate', '--scenario', 'private-registry');
    expect(row(stdout, 2)).toMatch(/re-imaged web, worker\s+0/);
    expect(row(stdout, 3)).toMatch(/waiting: web, log, agent unresolved\s+0/);
    expect(row(stdout, 5)).toMatch(/REGISTRY UNREACHABLE\s+1/);
    expect(row(stdout, 6)).toMatch(/no change\s+0/);
  });

  it('--list names every scenario', async () => {
    const { stdout } = await run('simulate', '--list');
    for (const name of [
      'healthy-drift',
      'never-ready',
      'flapping-readiness',
      'registry-outage',
      'api-outage',
      'first-install',
      'canary-ring',
      'fleet-halt',
      'evidence-rings',
      'slow-link',
      'shop',
      'private-registry',
      'mirror',
    ]) {
      expect(stdout).toMatch(new RegExp(`^${name} `, 'm'));
    }
  });

  it('an unknown scenario or flag is a usage error, exit 2', async () => {
    expect((await run('simulate', '--scenario', 'nope')).exitCode).toBe(2);
    const flag = await run('simulate', '--frobnicate');
    expect(flag.exitCode).toBe(2);
    expect(flag.stderr).toContain("Unknown option '--frobnicate'");
  });
});
