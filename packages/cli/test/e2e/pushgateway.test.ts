import { createServer, type Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registryBinaryMissing } from '../../../k8s-adapter/test/parity/support/parity-registry.js';
import { restAs } from '../../../k8s-adapter/test/parity/support/world-controls.js';
import { annotationsOf, JOBS_MANAGER, NS } from '../../../k8s-adapter/test/support/fake-api-chart.js';
import { renderExposition } from '../../src/metrics/exposition.js';
import { bundleEnv, STORY_BOUNDS } from './support/chart-env.js';
import { JM, JM_REF, PM, RM } from './support/chart-facts.js';
import { CHART_WORLD_SETUP_TIMEOUT_MS, type ChartWorld, startChartWorld } from './support/chart-world.js';
import {
  type GatewaySample,
  PUSHGATEWAY_SETUP_TIMEOUT_MS,
  type Pushgateway,
  pushgatewayBinaryMissing,
  startPushgateway,
} from './support/pushgateway.js';
import { type BundleRun, linesWith, runBundle, theLine } from './support/run-bundle.js';

// Fleet visibility, told to what ships: the bundled CLI as a process against
// the fake API server and the real docker-registry, pushing to a real
// Pushgateway (Debian's prometheus-pushgateway) on 127.0.0.1, read back with
// GET /metrics as Prometheus would scrape it. Chapters follow one edge:
// first install, a steady tick, a skip, FROZEN (the last success survives
// it), settled again with a re-image; then gateways that refuse, hang and
// answer garbage, which change no exit code and no write and cost at most
// API_TIMEOUT.

const CHAPTER_MS = 60_000;
/** An edge id with every character the exposition format escapes, and a '/' (the base64 form). */
const EDGE = 'berlin/1 "north"\\rack\n2';

const missing = registryBinaryMissing ?? pushgatewayBinaryMissing;
if (missing !== undefined) console.warn(`SKIPPED ${import.meta.url}: ${missing}`);

describe.skipIf(missing !== undefined)(
  `the bundled CLI pushes each tick's metrics to a real Pushgateway${missing === undefined ? '' : ` (skipped: ${missing})`}`,
  () => {
    let world: ChartWorld;
    let gateway: Pushgateway;
    const digest: Record<string, string> = {};

    beforeAll(async () => {
      world = await startChartWorld();
      gateway = await startPushgateway();
      digest.jm1 = await world.registry.push(JM, 'stg');
      digest.pm1 = await world.registry.push(PM, 'stg');
      digest.rm1 = await world.registry.push(RM, 'stg');
    }, CHART_WORLD_SETUP_TIMEOUT_MS + PUSHGATEWAY_SETUP_TIMEOUT_MS);

    afterAll(async () => {
      await gateway?.stop();
      await world?.close();
    });

    const env = (overrides: Readonly<Record<string, string>> = {}): Record<string, string> =>
      bundleEnv(world, STORY_BOUNDS, {
        MAX_SKIP_TICKS: '2',
        PUSHGATEWAY_URL: gateway.url,
        METRICS_GROUPING: `edge=${EDGE}`,
        ...overrides,
      });
    const tick = (overrides: Readonly<Record<string, string>> = {}): Promise<BundleRun> =>
      runBundle(['tick'], env(overrides));

    /** This edge's image_refresh_ samples on the gateway, as `name{labels}` → value (grouping labels dropped). */
    const pushed = async (edge = EDGE): Promise<Record<string, number>> => {
      const mine = (await gateway.samples()).filter(
        (s: GatewaySample) => s.name.startsWith('image_refresh_') && s.labels.edge === edge,
      );
      return Object.fromEntries(
        mine.map((s) => {
          const { edge: _edge, job: _job, instance: _instance, ...own } = s.labels;
          // The gateway serves labels sorted by name.
          const labels = Object.entries(own)
            .sort(([a], [b]) => a.localeCompare(b))
            .map(([k, v]) => `${k}=${v}`)
            .join(',');
          return [labels === '' ? s.name : `${s.name}{${labels}}`, s.value];
        }),
      );
    };
    const bookkeeping = () => annotationsOf(world.cluster.jobsManager());

    it('the group is the one METRICS_GROUPING names, its value read back unescaped: quote, backslash, newline and "/"', async () => {
      const run = await tick();
      expect(run.exitCode).toBe(0);
      expect(linesWith(run.stderr, 'Pushgateway')).toEqual([]);
      const groups = (await gateway.samples()).filter((s) => s.name === 'image_refresh_exit_code');
      expect(groups.map((s) => s.labels)).toEqual([{ edge: EDGE, instance: '', job: 'image-refresh' }]);
    });

    it(
      'a steady tick: outcome complete, exit 0, last success = last run, streak 0, each digest recorded and in the registry, its requests by kind',
      async () => {
        const apiBefore = world.cluster.server.requests.length;
        const registryBefore = world.registry.proxy.seen.length;
        const tokensBefore = world.registry.tokens.scopeRequests.length;
        const run = await tick();
        expect(run.exitCode).toBe(0);
        const m = await pushed();
        expect(m).toMatchObject({
          image_refresh_exit_code: 0,
          'image_refresh_tick_outcome{outcome=complete}': 1,
          image_refresh_skip_streak: 0,
          image_refresh_max_skip_ticks: 2,
          image_refresh_max_refresh_attempts: 3,
          [`image_refresh_image_info{digest=${digest.jm1},image=jobs-manager,state=recorded}`]: 1,
          [`image_refresh_image_info{digest=${digest.jm1},image=jobs-manager,state=registry}`]: 1,
          [`image_refresh_image_info{digest=${digest.pm1},image=pods-monitor,state=registry}`]: 1,
          [`image_refresh_image_info{digest=${digest.rm1},image=resource-monitor,state=recorded}`]: 1,
          // What landed on the servers, counted there.
          'image_refresh_tick_requests{kind=kubernetes}': world.cluster.server.requests.length - apiBefore,
          'image_refresh_tick_requests{kind=registry}': world.registry.proxy.seen.length - registryBefore,
          'image_refresh_tick_requests{kind=token}': world.registry.tokens.scopeRequests.length - tokensBefore,
          'image_refresh_tick_requests{kind=events}': 0,
        });
        expect(m['image_refresh_tick_requests{kind=kubernetes}']).toBe(1);
        expect(m.image_refresh_last_success_timestamp_seconds).toBe(m.image_refresh_last_run_timestamp_seconds);
        expect(Math.abs((m.image_refresh_last_run_timestamp_seconds ?? 0) - Date.now() / 1000)).toBeLessThan(30);
        expect(m.image_refresh_tick_duration_seconds).toBeGreaterThan(0);
      },
      CHAPTER_MS,
    );

    it(
      'a skip, then FROZEN: the streak 1 then 2, exit 0 then 1, and the last success stays the skip’s (it exited 0)',
      async () => {
        world.cluster.server.store.setBehaviour('Deployment', NS, JOBS_MANAGER, 'neverReady');
        restAs(world.cluster, JM_REF, 'neverReady');
        const skip = await tick();
        expect(skip.exitCode).toBe(0);
        const skipped = await pushed();
        expect(skipped).toMatchObject({
          'image_refresh_tick_outcome{outcome=skipped}': 1,
          image_refresh_exit_code: 0,
          image_refresh_skip_streak: 1,
        });
        const lastSuccess = skipped.image_refresh_last_success_timestamp_seconds;
        expect(lastSuccess).toBe(skipped.image_refresh_last_run_timestamp_seconds);
        const apiBefore = world.cluster.server.requests.length;
        const frozen = await tick();
        expect(frozen.exitCode).toBe(1);
        const requests = world.cluster.server.requests.slice(apiBefore);
        const events = requests.filter((r) => r.path.startsWith('/apis/events.k8s.io/')).length;
        // The RefreshFrozen Warning Event was recorded, and counted as an events request.
        expect(events).toBeGreaterThan(0);
        const m = await pushed();
        expect(m).toMatchObject({
          'image_refresh_tick_outcome{outcome=frozen}': 1,
          image_refresh_exit_code: 1,
          image_refresh_skip_streak: 2,
          'image_refresh_tick_requests{kind=events}': events,
          'image_refresh_tick_requests{kind=kubernetes}': requests.length - events,
        });
        // POST replaces only the names pushed: the outcome of the steady tick is gone, its success is not.
        expect(m['image_refresh_tick_outcome{outcome=complete}']).toBeUndefined();
        expect(m.image_refresh_last_success_timestamp_seconds).toBe(lastSuccess);
        expect(m.image_refresh_last_run_timestamp_seconds).toBeGreaterThan(lastSuccess ?? Number.POSITIVE_INFINITY);
      },
      CHAPTER_MS,
    );

    it(
      'settled again with a new build: re-imaged, the new digest recorded, in the registry and live; attempt 0, not locked out',
      async () => {
        world.cluster.server.store.setBehaviour('Deployment', NS, JOBS_MANAGER, 'settles');
        restAs(world.cluster, JM_REF, 'settles');
        digest.jm2 = await world.registry.push(JM, 'stg');
        const run = await tick();
        expect(run.exitCode).toBe(0);
        expect(run.stderr.at(-1)).toContain('re-images=2');
        const m = await pushed();
        expect(m).toMatchObject({
          'image_refresh_tick_outcome{outcome=complete}': 1,
          image_refresh_skip_streak: 0,
          image_refresh_refresh_attempt: 0,
          image_refresh_flap_locked_out: 0,
          [`image_refresh_image_info{digest=${digest.jm2},image=jobs-manager,state=recorded}`]: 1,
          [`image_refresh_image_info{digest=${digest.jm2},image=jobs-manager,state=registry}`]: 1,
          [`image_refresh_image_info{digest=${digest.jm2},image=jobs-manager,state=live}`]: 1,
        });
        expect(Object.keys(m).filter((k) => k.includes(digest.jm1 ?? '-'))).toEqual([]);
        expect(m.image_refresh_last_success_timestamp_seconds).toBe(m.image_refresh_last_run_timestamp_seconds);
      },
      CHAPTER_MS,
    );

    it('label values with a quote, a backslash and a newline in the body survive the real gateway’s parser', async () => {
      const value = 'a"b\\c\nd';
      const body = renderExposition([
        { name: 'image_refresh_escape_probe', help: 'x', samples: [{ labels: { v: value }, value: 7 }] },
      ]);
      const answer = await fetch(`${gateway.url}/metrics/job/escape-probe`, { method: 'POST', body });
      expect(answer.status).toBe(200);
      const probe = (await gateway.samples()).filter((s) => s.name === 'image_refresh_escape_probe');
      expect(probe.map((s) => [s.labels.v, s.value])).toEqual([[value, 7]]);
    });

    describe('a gateway that fails changes no exit code and no write, with a WARN, and costs at most API_TIMEOUT', () => {
      const servers: Server[] = [];
      afterAll(() => {
        for (const server of servers) server.close();
      });
      /** A TCP server on 127.0.0.1 that does `onConnection` with each socket. */
      const listen = (onConnection: (socket: import('node:net').Socket) => void): Promise<string> =>
        new Promise((resolve) => {
          const server = createServer(onConnection);
          servers.push(server);
          server.listen(0, '127.0.0.1', () => {
            const address = server.address();
            resolve(`http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}`);
          });
        });

      const faults: Record<string, () => Promise<string>> = {
        refuses: async () => {
          const url = await listen((socket) => socket.destroy());
          servers.at(-1)?.close();
          return url;
        },
        hangs: () => listen(() => undefined),
        'answers garbage': () => listen((socket) => socket.end('\u0000\u0001 not HTTP at all\r\n\r\n')),
        'answers 500': () =>
          listen((socket) =>
            socket.once('data', () =>
              socket.end('HTTP/1.1 500 Internal Server Error\r\nContent-Length: 5\r\nConnection: close\r\n\r\nboom!'),
            ),
          ),
      };

      it.each(Object.keys(faults))(
        'a gateway that %s',
        async (fault) => {
          const url = await (faults[fault] as () => Promise<string>)();
          const writesBefore = bookkeeping();
          const started = Date.now();
          const run = await tick({ PUSHGATEWAY_URL: url, API_TIMEOUT: '2s' });
          const elapsed = Date.now() - started;
          const baseline = await tick({ PUSHGATEWAY_URL: '' });
          expect(run.exitCode).toBe(baseline.exitCode);
          expect(run.exitCode).toBe(0);
          expect(bookkeeping()).toEqual(writesBefore);
          expect(theLine(run.stderr, "could not push this tick's metrics")).toMatch(
            /^\[image-refresh\] WARN: could not push this tick's metrics to the Pushgateway \(.+\); the tick's outcome is unchanged$/,
          );
          expect(run.stderr.at(-1)).toBe(baseline.stderr.at(-1));
          if (fault === 'hangs')
            expect(theLine(run.stderr, 'could not push')).toContain('did not answer within 2000 ms');
          // The bound and some start-up slack of a loaded machine, never the 20 s a hung CLI is killed at.
          expect(elapsed).toBeLessThan(baseline.elapsedMs + 2_000 + 4_000);
        },
        CHAPTER_MS,
      );
    });

    it('PUSHGATEWAY_URL unset: not one request reaches the gateway', async () => {
      const before = (await gateway.samples()).filter((s) => s.name === 'image_refresh_last_run_timestamp_seconds');
      const run = await tick({ PUSHGATEWAY_URL: '', METRICS_GROUPING: 'edge=off-edge' });
      expect(run.exitCode).toBe(0);
      const after = await gateway.samples();
      expect(after.filter((s) => s.labels.edge === 'off-edge')).toEqual([]);
      expect(after.filter((s) => s.name === 'image_refresh_last_run_timestamp_seconds')).toEqual(before);
    });
  },
);
