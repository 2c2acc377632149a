import { simDigest } from '@image-refresh/core/sim';
import { describe, expect, it } from 'vitest';
import { ANNOTATION } from '../../core/test/support/chart.js';
import { aWorld, runCli } from './support/sim-connection.js';

// `status --json`: the facts `status` prints, with the README's field names,
// for fleet tooling — one JSON object on stdout.

const JM = 'tracebloc/jobs-manager';

describe('image-refresh status --json', () => {
  it('settledness, both counters against their ceilings, the flap marker, and per image recorded, registry and live', async () => {
    const world = aWorld({ MAX_SKIP_TICKS: '8' });
    world.setBehaviour('jobs-manager', 'neverReady');
    world.annotations = {
      [ANNOTATION.skipStreak]: '3',
      [ANNOTATION.refreshAttempt]: 'x',
      [ANNOTATION.flapDetected]: '3',
      'tracebloc.io/last-refreshed-jobs-manager-digest': simDigest(`${JM}#1`),
    };
    world.publish(JM, simDigest(`${JM}#2`));
    const { exitCode, stdout } = await runCli(['status', '--json'], world, { PODS_MONITOR_PINNED: '1' });
    expect(exitCode).toBe(0);
    expect(stdout).toHaveLength(1);
    const facts = JSON.parse(stdout[0] ?? '');
    expect(facts).toMatchObject({
      release: 'stg',
      namespace: 'tracebloc',
      cluster: 'simulated cluster',
      workloads: {
        'jobs-manager': { workload: 'deployment/stg-jobs-manager', readable: true, settled: 'waiting', error: null },
        'requests-proxy': { readable: true, settled: 'settled' },
        'resource-monitor': { workload: 'daemonset/stg-resource-monitor', readable: true, settled: 'settled' },
      },
      skipStreak: { value: 3, max: 8, annotation: '3' },
      refreshAttempt: { value: 0, max: 3, annotation: 'x' },
      flapDetected: '3',
    });
    expect(facts.images).toEqual([
      {
        image: 'jobs-manager',
        repo: JM,
        recorded: simDigest(`${JM}#1`),
        registry: { state: 'resolved', digest: simDigest(`${JM}#2`), drift: true, error: null },
        live: { api: 'docker.io/tracebloc/jobs-manager:stg', proxy: 'docker.io/tracebloc/jobs-manager:stg' },
        signature: { state: 'off', digest: null, by: null, why: 'VERIFY_SIGNATURES=off' },
      },
      {
        image: 'pods-monitor',
        repo: 'tracebloc/pods-monitor',
        recorded: null,
        registry: { state: 'pinned', digest: null, drift: null, error: null },
        live: { 'pods-monitor-container': 'docker.io/tracebloc/pods-monitor:stg' },
        signature: { state: 'off', digest: null, by: null, why: 'VERIFY_SIGNATURES=off' },
      },
      {
        image: 'resource-monitor',
        repo: 'tracebloc/resource-monitor',
        recorded: null,
        registry: { state: 'resolved', digest: simDigest('tracebloc/resource-monitor#1'), drift: false, error: null },
        live: { 'tracebloc-resource-monitor': 'docker.io/tracebloc/resource-monitor:stg' },
        signature: { state: 'off', digest: null, by: null, why: 'VERIFY_SIGNATURES=off' },
      },
    ]);
    expect(world.calls.filter((c) => c.op !== 'resolveDigest')).toEqual([]);
  });

  it('--no-registry: every registry state is notAsked and the registry is asked nothing', async () => {
    const world = aWorld();
    const { stdout } = await runCli(['status', '--json', '--no-registry'], world);
    expect(world.calls).toEqual([]);
    expect(JSON.parse(stdout[0] ?? '').images.map((i: { registry: { state: string } }) => i.registry.state)).toEqual([
      'notAsked',
      'notAsked',
      'notAsked',
    ]);
  });

  it('an unreadable jobs-manager: readable false with the cause, the rest null, exit 0 (as status)', async () => {
    const world = aWorld();
    world.deleteGate();
    const { exitCode, stdout } = await runCli(['status', '--json'], world);
    expect(exitCode).toBe(0);
    const facts = JSON.parse(stdout[0] ?? '');
    expect(facts.workloads['jobs-manager']).toMatchObject({
      readable: false,
      settled: null,
      message: null,
      error: { tag: 'NotFound' },
    });
    expect(facts.workloads['jobs-manager'].error.message).toContain('NotFound (HTTP 404)');
    expect(facts).toMatchObject({ skipStreak: null, refreshAttempt: null, flapDetected: null, images: null });
  });

  it('MAINTENANCE_WINDOW set: where the edge stands in its windows, and what each workload is expected to take here', async () => {
    const world = aWorld({ MAINTENANCE_WINDOW: 'Mon-Sun 00:00-24:00 UTC' });
    world.annotations = { 'tracebloc.io/rollout-seconds-jobs-manager': '300 2400 60' };
    const json = await runCli(['status', '--json'], world, { MAINTENANCE_WINDOW: 'Mon-Sun 00:00-24:00 UTC' });
    const facts = JSON.parse(json.stdout[0] ?? '');
    expect(facts.window).toEqual({
      windows: 'Mon-Sun 00:00-24:00 UTC',
      open: true,
      until: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/),
      expected: [
        { workload: 'jobs-manager', seconds: 2400, measured: true },
        { workload: 'requests-proxy', seconds: 600, measured: false },
        { workload: 'resource-monitor', seconds: 600, measured: false },
      ],
    });
    const text = await runCli(['status'], world, { MAINTENANCE_WINDOW: 'Mon-Sun 00:00-24:00 UTC' });
    expect(text.stdout.filter((l) => l.includes('window') || l.includes('expected rollouts'))).toEqual([
      expect.stringMatching(/^window +open until \S+Z \(Mon-Sun 00:00-24:00 UTC\)$/),
      expect.stringMatching(
        /^ +expected rollouts here: jobs-manager ~40m, requests-proxy ~10m \(none recorded: the bounds\), resource-monitor ~10m \(none recorded: the bounds\)$/,
      ),
    ]);
  });

  it('MAINTENANCE_WINDOW unset: no window field at all', async () => {
    const facts = JSON.parse((await runCli(['status', '--json'], aWorld())).stdout[0] ?? '');
    expect('window' in facts).toBe(false);
  });
});
