import { type BookkeepingChanges, runTick, type TickConfig, type TickPorts } from '@image-refresh/core';
import { SHOP_PROFILE, SimWorld, simConfig, simDigest, simPorts } from '@image-refresh/core/sim';
import { describe, expect, it } from 'vitest';
import { IMAGES, imageSpec } from '../../../core/test/support/chart.js';
import { renderExposition } from '../../src/metrics/exposition.js';
import { emptyObservations, observePorts } from '../../src/metrics/observations.js';
import { tickMetrics, unixSecondsOf } from '../../src/metrics/tick-metrics.js';

// The canaries' evidence in every push (docs/metrics.md, "Evidence for
// promotion"; docs/fleet-promotion.md): this edge's ring, when it recorded
// each current digest, and what it holds in quarantine — from what the
// tick's own port calls answered, on the simulated cluster.

const JM = 'tracebloc/jobs-manager';
const JM1 = simDigest(`${JM}#1`);
const JM2 = simDigest(`${JM}#2`);
const config = simConfig({ MAX_SKIP_TICKS: '3' });
const REQUESTS = { kubernetes: 1, events: 0, registry: 3, token: 1 } as const;
const jm = imageSpec('jobs-manager');
const T1 = '2026-01-01T00:00:00Z';
const T1_SECONDS = Date.UTC(2026, 0, 1) / 1000;

const recordedAll = (world: SimWorld) => {
  for (const image of IMAGES) world.setAnnotation(image.recordKey, simDigest(`${image.repo}#1`));
};

/**
 * What the tick's record write carries once core writes the time beside the
 * digest (PUSHGATEWAY_URL set): the time added to the same write, as the
 * tick would send it — wrapped outside the observed ports, so they see one write.
 */
const writingTimes = (ports: TickPorts, tickConfig: TickConfig, at: string): TickPorts => ({
  ...ports,
  cluster: {
    ...ports.cluster,
    patchBookkeeping: (changes) => {
      const withTimes: Record<string, string | null> = { ...changes };
      for (const image of tickConfig.topology.images) {
        const digest = changes[image.recordKey];
        if (typeof digest === 'string') withTimes[image.recordedAtKey] = `${digest} ${at}`;
      }
      return ports.cluster.patchBookkeeping(withTimes as BookkeepingChanges);
    },
  },
});

/** One tick on `world`; the lines of the families named `prefix…`. */
const linesOf = async (
  world: SimWorld,
  prefix: string,
  options: { tickConfig?: TickConfig; writeTimeAt?: string } = {},
): Promise<string[]> => {
  const tickConfig = options.tickConfig ?? config;
  const observed = emptyObservations();
  const observing = observePorts(simPorts(world), observed, tickConfig.topology);
  const ports =
    options.writeTimeAt === undefined ? observing : writingTimes(observing, tickConfig, options.writeTimeAt);
  const outcome = await runTick(tickConfig, ports);
  const text = renderExposition(
    tickMetrics({ outcome, observed, requests: REQUESTS, startedAtMs: 0, endedAtMs: 1_000 }, tickConfig),
  );
  return text.split('\n').filter((l) => l.startsWith(prefix));
};

describe('image_refresh_rollout_ring', () => {
  it('is ROLLOUT_RING, 0 by default, on every tick that pushes (a skip too)', async () => {
    const world = new SimWorld(config);
    recordedAll(world);
    expect(await linesOf(world, 'image_refresh_rollout_ring')).toEqual(['image_refresh_rollout_ring 0']);
    const ring2 = simConfig({ MAX_SKIP_TICKS: '3', ROLLOUT_RING: '2' });
    const skipping = new SimWorld(ring2);
    skipping.setBehaviour('jobs-manager', 'neverReady');
    expect(await linesOf(skipping, 'image_refresh_', { tickConfig: ring2 })).toEqual(
      expect.arrayContaining(['image_refresh_tick_outcome{outcome="skipped"} 1', 'image_refresh_rollout_ring 2']),
    );
  });
});

describe('image_refresh_digest_recorded_timestamp_seconds', () => {
  const RECORDED_AT = 'image_refresh_digest_recorded_timestamp_seconds';
  /** The series that carry a time: every other one is the `digest=""` 0 of a record without one. */
  const timed = (lines: readonly string[]) =>
    lines.filter((l) => l.startsWith(RECORDED_AT) && !l.includes('digest=""'));

  it('the recorded digest and its time read together: one series per image that has both', async () => {
    const world = new SimWorld(config);
    recordedAll(world);
    world.setAnnotation(jm.recordedAtKey, `${JM1} ${T1}`);
    expect(await linesOf(world, RECORDED_AT)).toEqual([
      `${RECORDED_AT}{image="jobs-manager",digest="${JM1}"} ${T1_SECONDS}`,
      // Recorded without a time: 0 with digest="", so the gateway keeps no earlier digest's time for them.
      `${RECORDED_AT}{image="pods-monitor",digest=""} 0`,
      `${RECORDED_AT}{image="resource-monitor",digest=""} 0`,
    ]);
  });

  it('absent where the gate holds no time beside the digest, or no digest beside the time', async () => {
    const world = new SimWorld(config);
    recordedAll(world);
    expect(timed(await linesOf(world, RECORDED_AT))).toEqual([]);
    const timeOnly = new SimWorld(config);
    timeOnly.setAnnotation(jm.recordedAtKey, `${JM1} ${T1}`);
    expect(timed(await linesOf(timeOnly, RECORDED_AT))).toEqual([]);
  });

  it('a digest written this tick with its time in the same write: that digest at that time, the old one gone', async () => {
    const world = new SimWorld(config);
    recordedAll(world);
    world.setAnnotation(jm.recordedAtKey, `${JM1} ${T1}`);
    world.publish(JM, JM2);
    const at = '2026-01-02T03:04:05Z';
    expect(timed(await linesOf(world, RECORDED_AT, { writeTimeAt: at }))).toEqual([
      `${RECORDED_AT}{image="jobs-manager",digest="${JM2}"} ${Date.UTC(2026, 0, 2, 3, 4, 5) / 1000}`,
    ]);
    expect(world.annotations[jm.recordKey]).toBe(JM2);
  });

  it('a digest written without its time is not paired with the time read beside the old digest', async () => {
    const world = new SimWorld(config);
    recordedAll(world);
    world.setAnnotation(jm.recordedAtKey, `${JM1} ${T1}`);
    world.publish(JM, JM2);
    const lines = await linesOf(world, 'image_refresh_');
    expect(lines).toContain(`image_refresh_image_info{image="jobs-manager",digest="${JM2}",state="recorded"} 1`);
    expect(timed(lines)).toEqual([]);
  });

  it('a time written without its digest pairs with nothing', async () => {
    const observed = emptyObservations();
    const world = new SimWorld(config);
    recordedAll(world);
    world.setAnnotation(jm.recordedAtKey, `${JM1} ${T1}`);
    const ports = observePorts(simPorts(world), observed, config.topology);
    await ports.cluster.readGate(0)();
    expect(observed.recordedAt['jobs-manager']).toEqual({ digest: JM1, at: T1 });
    await ports.cluster.patchBookkeeping({ [jm.recordedAtKey]: `${JM1} 2026-01-03T00:00:00Z` })();
    expect(observed.recordedAt['jobs-manager']).toBeUndefined();
  });

  it('a time whose value names another digest than the recorded one pairs with nothing (a record rewritten by hand or by the script)', async () => {
    const world = new SimWorld(config);
    recordedAll(world);
    world.setAnnotation(jm.recordedAtKey, `${JM2} ${T1}`);
    const lines = await linesOf(world, 'image_refresh_');
    expect(lines).toContain(`image_refresh_image_info{image="jobs-manager",digest="${JM1}",state="recorded"} 1`);
    expect(timed(lines)).toEqual([]);
  });

  it('a time held for another digest than the recorded one is never pushed under either', async () => {
    const outcome = await runTick(config, simPorts(new SimWorld(config)));
    const observed = { ...emptyObservations(), recorded: { 'jobs-manager': JM2 } };
    observed.recordedAt['jobs-manager'] = { digest: JM1, at: T1 };
    const text = renderExposition(
      tickMetrics({ outcome, observed, requests: REQUESTS, startedAtMs: 0, endedAtMs: 1 }, config),
    );
    expect(text).toContain(`image_refresh_image_info{image="jobs-manager",digest="${JM2}",state="recorded"} 1`);
    expect(timed(text.split('\n'))).toEqual([]);
    expect(text).toContain(`${RECORDED_AT}{image="jobs-manager",digest=""} 0`);
  });

  for (const malformed of ['yesterday', '2026-01-01 00:00:00Z', '2026-02-31T00:00:00Z', '2026-01-01T24:00:00Z', '']) {
    it(`a time that does not parse (${JSON.stringify(malformed)}): no series, the digest still known`, async () => {
      const world = new SimWorld(config);
      recordedAll(world);
      world.setAnnotation(jm.recordedAtKey, `${JM1} ${malformed}`);
      const lines = await linesOf(world, 'image_refresh_');
      expect(lines).toContain(`image_refresh_image_info{image="jobs-manager",digest="${JM1}",state="recorded"} 1`);
      expect(timed(lines)).toEqual([]);
    });
  }

  it('RFC 3339 with a fraction or an offset is read as the instant it names', () => {
    expect(unixSecondsOf('2026-01-01T02:00:00+02:00')).toBe(T1_SECONDS);
    expect(unixSecondsOf('2026-01-01T00:00:00.5Z')).toBe(T1_SECONDS + 0.5);
    expect(unixSecondsOf('2024-02-29T00:00:00Z')).toBe(Date.UTC(2024, 1, 29) / 1000);
  });
});

describe('image_refresh_quarantined_digest', () => {
  const QUARANTINED = 'image_refresh_quarantined_digest{';

  it('1 for the digest quarantined on the gate; every other image 0 with digest="" (the group replaced whole)', async () => {
    const world = new SimWorld(config);
    recordedAll(world);
    world.setAnnotation(jm.quarantineKey, JM2);
    expect(await linesOf(world, QUARANTINED)).toEqual([
      `image_refresh_quarantined_digest{image="jobs-manager",digest="${JM2}",repository="tracebloc/jobs-manager"} 1`,
      'image_refresh_quarantined_digest{image="pods-monitor",digest="",repository="tracebloc/pods-monitor"} 0',
      'image_refresh_quarantined_digest{image="resource-monitor",digest="",repository="tracebloc/resource-monitor"} 0',
    ]);
  });

  it('none quarantined: one 0 series per image, digest="" — never an empty family the gateway would drop', async () => {
    const world = new SimWorld(config);
    recordedAll(world);
    expect(await linesOf(world, QUARANTINED)).toEqual(
      IMAGES.map(
        ({ name, repo }) => `image_refresh_quarantined_digest{image="${name}",digest="",repository="${repo}"} 0`,
      ),
    );
  });

  it('a rollback this tick: the digest it quarantined, from its own write', async () => {
    const revert = simConfig({ MAX_SKIP_TICKS: '3', ON_ROLLOUT_FAILURE: 'revert' });
    const world = new SimWorld(revert);
    recordedAll(world);
    world.breakBuild(JM2);
    world.publish(JM, JM2);
    const lines = await linesOf(world, 'image_refresh_', { tickConfig: revert });
    expect(lines).toContain('image_refresh_tick_outcome{outcome="rolledBack"} 1');
    expect(lines).toContain(
      `image_refresh_quarantined_digest{image="jobs-manager",digest="${JM2}",repository="tracebloc/jobs-manager"} 1`,
    );
  });

  it('not pushed by a tick that never read the quarantine', async () => {
    const outcome = await runTick(config, simPorts(new SimWorld(config)));
    const text = renderExposition(
      tickMetrics({ outcome, observed: emptyObservations(), requests: REQUESTS, startedAtMs: 0, endedAtMs: 1 }, config),
    );
    expect(text).not.toContain('image_refresh_quarantined_digest{');
  });

  it('repository as a fleet halt names it: Docker Hub by its short name, another registry host[:port]/path', async () => {
    const profile = {
      ...SHOP_PROFILE,
      images: [
        { name: 'web', repository: 'docker.io/shop/web' },
        { name: 'log', repository: 'registry.example:5000/shop/log' },
        { name: 'agent', repository: 'ghcr.io/shop/agent' },
      ],
    };
    const shop = simConfig({ IMAGE_TAG: 'stg', ROLLOUT_TIMEOUT: '10m' }, profile);
    const world = new SimWorld(shop);
    const [web, log] = shop.topology.images;
    world.setAnnotation(web?.quarantineKey ?? '', simDigest('web#2'));
    world.setAnnotation(log?.quarantineKey ?? '', simDigest('log#2'));
    expect(await linesOf(world, QUARANTINED, { tickConfig: shop })).toEqual([
      `image_refresh_quarantined_digest{image="web",digest="${simDigest('web#2')}",repository="shop/web"} 1`,
      `image_refresh_quarantined_digest{image="log",digest="${simDigest('log#2')}",repository="registry.example:5000/shop/log"} 1`,
      'image_refresh_quarantined_digest{image="agent",digest="",repository="ghcr.io/shop/agent"} 0',
    ]);
  });
});
