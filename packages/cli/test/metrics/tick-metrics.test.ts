import { runTick, type TickConfig } from '@image-refresh/core';
import {
  SIM_HALT_ENVIRONMENT,
  SIM_HALT_REPO,
  SIM_HALT_TAG,
  SimWorld,
  simConfig,
  simDigest,
  simHaltDocument,
  simPorts,
} from '@image-refresh/core/sim';
import { describe, expect, it } from 'vitest';
import { ANNOTATION, IMAGES } from '../../../core/test/support/chart.js';
import { renderExposition } from '../../src/metrics/exposition.js';
import { emptyObservations, observePorts } from '../../src/metrics/observations.js';
import { tickMetrics } from '../../src/metrics/tick-metrics.js';

// The metrics of one tick from its outcome and what its ports answered, on
// the simulated cluster: the values a dashboard reads, per kind of tick.

const JM = 'tracebloc/jobs-manager';
const config = simConfig({ MAX_SKIP_TICKS: '3', MAX_REFRESH_ATTEMPTS: '2' });
const REQUESTS = { kubernetes: 1, events: 0, registry: 3, token: 1 } as const;
/** The simulated wall clock at virtual time 0 (core's SIM_EPOCH_MS): 2026-01-01T00:00:00Z. */
const SIM_EPOCH = Date.UTC(2026, 0, 1);

const recordedAll = (world: SimWorld) => {
  for (const image of IMAGES) world.setAnnotation(image.recordKey, simDigest(`${image.repo}#1`));
};

/** One tick on `world`, its metrics as `name{labels} value` lines (HELP/TYPE left out). */
const metricsOf = async (world: SimWorld, tickConfig: TickConfig = config): Promise<string[]> => {
  const observed = emptyObservations();
  const outcome = await runTick(tickConfig, observePorts(simPorts(world), observed, tickConfig.topology));
  const text = renderExposition(
    tickMetrics({ outcome, observed, requests: REQUESTS, startedAtMs: 1_000_000, endedAtMs: 1_002_500 }, tickConfig),
  );
  return text.split('\n').filter((l) => l !== '' && !l.startsWith('#'));
};

describe('the metrics of one tick', () => {
  it('a steady tick: outcome complete, exit 0, last success = last run, streak 0, three recorded and registry digests', async () => {
    const world = new SimWorld(config);
    recordedAll(world);
    world.rateLimitRemaining = 77;
    const lines = await metricsOf(world);
    expect(lines).toEqual(
      expect.arrayContaining([
        'image_refresh_last_run_timestamp_seconds 1002.5',
        'image_refresh_last_success_timestamp_seconds 1002.5',
        'image_refresh_exit_code 0',
        'image_refresh_tick_outcome{outcome="complete"} 1',
        'image_refresh_tick_duration_seconds 2.5',
        'image_refresh_skip_streak 0',
        'image_refresh_max_skip_ticks 3',
        'image_refresh_max_refresh_attempts 2',
        'image_refresh_registry_ratelimit_remaining 77',
        'image_refresh_tick_requests{kind="kubernetes"} 1',
        'image_refresh_tick_requests{kind="token"} 1',
        ...IMAGES.flatMap(({ name, repo }) => [
          `image_refresh_image_info{image="${name}",digest="${simDigest(`${repo}#1`)}",state="recorded"} 1`,
          `image_refresh_image_info{image="${name}",digest="${simDigest(`${repo}#1`)}",state="registry"} 1`,
        ]),
      ]),
    );
    // The settled guard's read of jobs-manager carries every annotation (one
    // GET): a steady tick knows refresh-attempt too, and says so.
    expect(lines.filter((l) => l.startsWith('image_refresh_refresh_attempt'))).toEqual([
      'image_refresh_refresh_attempt 0',
    ]);
    expect(lines.filter((l) => l.startsWith('image_refresh_flap_locked_out'))).toEqual([
      'image_refresh_flap_locked_out 0',
    ]);
  });

  // A jobs-manager never Ready, on either side of MAX_SKIP_TICKS=3: the streak
  // written before the tick, and a series the tick must not emit.
  const skips = [
    {
      title: 'a skip: exit 0, the streak as written, no digest asked',
      streakBefore: '1',
      outcome: 'skipped',
      exitCode: 0,
      streakAfter: 2,
      absent: 'image_refresh_image_info',
    },
    {
      title: 'FROZEN: exit 1, the streak at its ceiling, and no last success',
      streakBefore: '2',
      outcome: 'frozen',
      exitCode: 1,
      streakAfter: 3,
      absent: 'image_refresh_last_success',
    },
  ];
  for (const { title, streakBefore, outcome, exitCode, streakAfter, absent } of skips) {
    it(title, async () => {
      const world = new SimWorld(config);
      world.setBehaviour('jobs-manager', 'neverReady');
      world.setAnnotation(ANNOTATION.skipStreak, streakBefore);
      const lines = await metricsOf(world);
      expect(lines).toEqual(
        expect.arrayContaining([
          `image_refresh_tick_outcome{outcome="${outcome}"} 1`,
          `image_refresh_exit_code ${exitCode}`,
          `image_refresh_skip_streak ${streakAfter}`,
        ]),
      );
      expect(lines.filter((l) => l.startsWith(absent))).toEqual([]);
    });
  }

  it('a re-image: the new digest recorded, in the registry and live; attempt reset to 0, not locked out', async () => {
    const world = new SimWorld(config);
    recordedAll(world);
    const next = simDigest(`${JM}#2`);
    world.publish(JM, next);
    const lines = await metricsOf(world);
    expect(lines).toEqual(
      expect.arrayContaining([
        'image_refresh_tick_outcome{outcome="complete"} 1',
        `image_refresh_image_info{image="jobs-manager",digest="${next}",state="recorded"} 1`,
        `image_refresh_image_info{image="jobs-manager",digest="${next}",state="registry"} 1`,
        `image_refresh_image_info{image="jobs-manager",digest="${next}",state="live"} 1`,
        'image_refresh_refresh_attempt 0',
        'image_refresh_flap_locked_out 0',
      ]),
    );
    expect(lines.filter((l) => l.includes(simDigest(`${JM}#1`)))).toEqual([]);
  });

  it('the flap lockout: attempt at MAX_REFRESH_ATTEMPTS is locked out', async () => {
    const world = new SimWorld(config);
    recordedAll(world);
    world.publish(JM, simDigest(`${JM}#2`));
    world.setAnnotation(ANNOTATION.refreshAttempt, '2');
    const lines = await metricsOf(world);
    expect(lines).toEqual(
      expect.arrayContaining([
        'image_refresh_tick_outcome{outcome="flapLockout"} 1',
        'image_refresh_refresh_attempt 2',
        'image_refresh_flap_locked_out 1',
      ]),
    );
  });

  it('RECONCILE_LIVE read the workloads on the old digest, then re-imaged them: live is the new digest only', async () => {
    const live = simConfig({ MAX_SKIP_TICKS: '3', RECONCILE_LIVE: 'report' });
    const world = new SimWorld(live);
    recordedAll(world);
    const old = simDigest(`${JM}#1`);
    world.workload('jobs-manager').images.api = `docker.io/${JM}@${old}`;
    world.workload('requests-proxy').images.proxy = `docker.io/${JM}@${old}`;
    const next = simDigest(`${JM}#2`);
    world.publish(JM, next);
    const lines = (await metricsOf(world, live)).filter((l) => l.includes('state="live"'));
    expect(lines).toEqual([`image_refresh_image_info{image="jobs-manager",digest="${next}",state="live"} 1`]);
  });
});

describe('image_refresh_fleet_halt (docs/behaviour.md §3.4b)', () => {
  const haltConfig = simConfig({ ...SIM_HALT_ENVIRONMENT });
  const fleetHaltLines = (lines: string[]) => lines.filter((l) => l.startsWith('image_refresh_fleet_halt'));
  const publish = (world: SimWorld, signed: boolean, expiresInMs = 3_600_000) =>
    world.publishHalt(
      simHaltDocument('build 2 loses jobs', SIM_EPOCH + world.clockMs + expiresInMs, {
        [JM]: { digests: [simDigest(`${JM}#2`)] },
      }),
      { signed, repo: SIM_HALT_REPO, tag: SIM_HALT_TAG },
    );

  it('1 while a verified, unexpired halt is in force', async () => {
    const world = new SimWorld(haltConfig);
    recordedAll(world);
    publish(world, true);
    expect(fleetHaltLines(await metricsOf(world, haltConfig))).toEqual(['image_refresh_fleet_halt 1']);
  });

  it('0 with none published, an unverified one (exit 1 says that), or an expired one', async () => {
    const none = new SimWorld(haltConfig);
    recordedAll(none);
    expect(fleetHaltLines(await metricsOf(none, haltConfig))).toEqual(['image_refresh_fleet_halt 0']);
    const unsigned = new SimWorld(haltConfig);
    recordedAll(unsigned);
    publish(unsigned, false);
    const lines = await metricsOf(unsigned, haltConfig);
    expect(fleetHaltLines(lines)).toEqual(['image_refresh_fleet_halt 0']);
    expect(lines).toContain('image_refresh_exit_code 1');
    const expired = new SimWorld(haltConfig);
    recordedAll(expired);
    publish(expired, true, 60_000);
    expired.clockMs += 120_000;
    expect(fleetHaltLines(await metricsOf(expired, haltConfig))).toEqual(['image_refresh_fleet_halt 0']);
  });

  it('not pushed with FLEET_HALT_REF unset, nor by a tick that never read the halt (a skip)', async () => {
    const world = new SimWorld(config);
    recordedAll(world);
    expect(fleetHaltLines(await metricsOf(world))).toEqual([]);
    const skipping = new SimWorld(haltConfig);
    skipping.setBehaviour('jobs-manager', 'neverReady');
    const text = renderExposition(
      tickMetrics(
        {
          outcome: await runTick(haltConfig, simPorts(skipping)),
          observed: emptyObservations(),
          requests: REQUESTS,
          startedAtMs: 0,
          endedAtMs: 1,
        },
        haltConfig,
      ),
    );
    expect(text).not.toContain('image_refresh_fleet_halt');
  });
});
