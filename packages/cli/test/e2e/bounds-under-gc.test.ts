import { createServer, type Server, type Socket } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeAll, expect, it } from 'vitest';
import { JOBS_MANAGER, NS } from '../../../k8s-adapter/test/support/fake-api-chart.js';
import { ATTEMPT, PM, RECORD, RESOLVE_FAILURE_STREAK, STREAK } from './support/chart-facts.js';
import { type Stage, startStage } from './support/cluster-stage.js';
import { linesWith, theLine } from './support/run-bundle.js';
import { startBundle } from './support/run-bundle-live.js';
import { type Builds, describeOnStoryRegistry } from './support/story-registry.js';

// Every bound holds whatever the garbage collector does (docs/behaviour.md §3,
// I15, I17). On Node 20 a signal composed with AbortSignal.any — and the
// AbortSignal.timeout inside it — can be collected while a request still waits
// on it (nodejs/node#55428, nodejs/undici#4068); the request then never
// aborts. Without a collection inside the hang no test saw it: here the bundle
// runs under `node --expose-gc` with a full collection every 100 ms
// (support/force-gc.cjs), and each hang must end at its own bound, named in
// its own line, the rest of the tick going on as the contract says. The
// cli@node24 project runs this file on Node 24, whose AbortSignal.any keeps
// its sources alive: the bound must hold there too.
//
// Seen red on Node 20.20.2 before boundedCall made every bound (whole process,
// before → after): the HEAD and the token GET ran to the resolve pass's
// backstop, "asking the registry for the tags got no answer within 12s, the tick's own
// bound)", all three images lost (12.3 s → 1.3 s); the settled guard's GET,
// the streak's PATCH and the rollout read ran to their port calls' backstops
// (3.5 s, 3.3 s, 3.8 s → 1.3 s each); the interrupted tick's push ran to
// API_TIMEOUT=5s instead of its 1.5 s (5.6 s → 2.1 s). The push of a tick
// that was not interrupted held its bound already (1.3 s): push.ts's own
// closure kept its timeout signal alive by chance; it stays as a guard. On
// Node 24.21.0 every case ended within its bound before and after (the
// interrupted push then said "was aborted"; it now names its own 1500 ms).

const CASE_MS = 40_000;
const BOUNDS = { REGISTRY_TIMEOUT: '1s', API_TIMEOUT: '1s', SETTLE_TIMEOUT: '300ms', ROLLOUT_TIMEOUT: '500ms' };
const BOUND_MS = 1_000;
/** Between two lines of one process: scheduling on a loaded 2-core machine, never the 2 s backstop grace. */
const MARGIN_MS = 1_000;
const UNDER_GC = ['--expose-gc', '--require', fileURLToPath(new URL('./support/force-gc.cjs', import.meta.url))];
/** A recorded jobs-manager digest the registry no longer serves: the tick re-images. */
const OLD_JM = `sha256:${'0'.repeat(64)}`;

describeOnStoryRegistry(
  import.meta.url,
  'every bound holds while the garbage collector runs (the bundle under --expose-gc, a full collection every 100 ms)',
  (world) => {
    let first: Builds;
    let stage: Stage | undefined;
    const servers: Server[] = [];

    beforeAll(async () => {
      first = await world.pushAll();
    });
    afterEach(async () => {
      world.registry.proxy.disarm(PM);
      world.registry.tokens.behaviour = 'grant';
      world.registry.tokens.healAll();
      for (const server of servers.splice(0)) server.close();
      await stage?.close();
      stage = undefined;
    });

    const newStage = async (annotations: Readonly<Record<string, string>> = {}): Promise<Stage> => {
      stage = await startStage(world.endpoint, { annotations });
      return stage;
    };

    /**
     * One tick under forced collections; its lines, and how far apart two of
     * them came. `stopAt`: SIGTERM once that line is out (and the call after it started).
     */
    const tickUnderGc = async (on: Stage, extra: Readonly<Record<string, string>> = {}, stopAt?: string) => {
      const run = startBundle(['tick'], on.env({ ...BOUNDS, ...extra }), { nodeArgs: UNDER_GC });
      if (stopAt !== undefined) {
        await run.lineWith('stderr', stopAt);
        await new Promise((resolve) => setTimeout(resolve, 300));
        run.child.kill('SIGTERM');
      }
      const { exitCode } = await run.ended;
      const at = (phrase: string): number =>
        run.stderrAt[run.stderr.indexOf(theLine(run.stderr, phrase))] ?? Number.NaN;
      return {
        exitCode,
        stderr: run.stderr,
        line: (phrase: string) => theLine(run.stderr, phrase),
        msBetween: (from: string, to: string) => at(to) - at(from),
      };
    };

    /** A TCP server on 127.0.0.1 that accepts and never answers: a hung Pushgateway. */
    const hangingServer = (): Promise<string> =>
      new Promise((resolve) => {
        const server = createServer((_socket: Socket) => undefined);
        servers.push(server);
        server.listen(0, '127.0.0.1', () => {
          const address = server.address();
          resolve(`http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}`);
        });
      });

    const PM_FAILED = `could not resolve latest digest of ${PM}:stg`;
    // The silence of pods-monitor's registry is counted (docs/behaviour.md §3.3, I46); the others are recorded.
    const onlyPodsMonitorSkipped = (on: Stage) => {
      expect(on.bookkeeping()).toEqual({ [RECORD.jm]: first.jm, [RECORD.rm]: first.rm, [RESOLVE_FAILURE_STREAK]: '1' });
    };

    it(
      `a registry HEAD that never answers ends at REGISTRY_TIMEOUT=1s, and only its image is skipped (I15)`,
      async () => {
        const on = await newStage();
        world.registry.proxy.arm(PM, 'Hang');
        const run = await tickUnderGc(on);
        expect(run.exitCode).toBe(0);
        expect(run.line(PM_FAILED)).toMatch(/did not answer within 1000 ms\)/);
        expect(linesWith(run.stderr, 'could not resolve latest digest')).toHaveLength(1);
        onlyPodsMonitorSkipped(on);
        expect(run.msBetween('cluster:', PM_FAILED)).toBeLessThan(BOUND_MS + MARGIN_MS);
      },
      CASE_MS,
    );

    it(
      `a token GET that never answers ends at REGISTRY_TIMEOUT=1s, and only its image is skipped (a token server refusing batches: each repo asks its own)`,
      async () => {
        const on = await newStage();
        world.registry.tokens.behaviour = 'refuse-batch';
        world.registry.tokens.failFor(PM, { kind: 'hang' });
        const run = await tickUnderGc(on);
        expect(run.exitCode).toBe(0);
        expect(run.line(PM_FAILED)).toMatch(/token endpoint: GET \S+ did not answer within 1000 ms\)/);
        expect(linesWith(run.stderr, 'could not resolve latest digest')).toHaveLength(1);
        onlyPodsMonitorSkipped(on);
        expect(run.msBetween('cluster:', PM_FAILED)).toBeLessThan(BOUND_MS + MARGIN_MS);
      },
      CASE_MS,
    );

    it(
      'the settled guard’s GET that never answers ends at API_TIMEOUT=1s: exit 1 naming the request’s own bound, no write (I2)',
      async () => {
        const on = await newStage();
        on.cluster.server.inject({ route: 'get', kind: 'Deployment', name: JOBS_MANAGER }, { kind: 'hang' }, 1);
        const run = await tickUnderGc(on);
        expect(run.exitCode).toBe(1);
        const unreadable = 'ERROR: cannot read deployment/stg-jobs-manager';
        expect(run.line(unreadable)).toContain('no answer within 1000 ms (API_TIMEOUT)');
        expect(on.bookkeeping()).toEqual({});
        expect(run.msBetween('cluster:', unreadable)).toBeLessThan(BOUND_MS + MARGIN_MS);
      },
      CASE_MS,
    );

    it(
      'a PATCH that never answers (the skip streak’s removal) ends at API_TIMEOUT=1s: a WARNING, and every image is still recorded (#2007)',
      async () => {
        const on = await newStage({ [STREAK]: '3' });
        on.cluster.server.inject(
          { route: 'patch', kind: 'Deployment', name: JOBS_MANAGER, bodyIncludes: STREAK },
          { kind: 'hang' },
          1,
        );
        const run = await tickUnderGc(on);
        expect(run.exitCode).toBe(0);
        const warning = `WARNING: could not clear ${STREAK}`;
        expect(run.line(warning)).toContain('no answer within 1000 ms (API_TIMEOUT)');
        expect(on.bookkeeping()).toEqual({
          [STREAK]: '3',
          [RECORD.jm]: first.jm,
          [RECORD.pm]: first.pm,
          [RECORD.rm]: first.rm,
        });
        expect(run.msBetween('is settled again after 3 skipped tick(s)', warning)).toBeLessThan(BOUND_MS + MARGIN_MS);
      },
      CASE_MS,
    );

    it(
      'a rollout wait whose read never answers ends at ROLLOUT_TIMEOUT=500ms plus one API_TIMEOUT=1s read: the rollout fails, nothing recorded',
      async () => {
        const on = await newStage({ [RECORD.jm]: OLD_JM, [RECORD.pm]: first.pm, [RECORD.rm]: first.rm });
        const jobsManagerGet = { route: 'get', kind: 'Deployment', name: JOBS_MANAGER } as const;
        // The settled guard's read is served; the rollout wait's first read hangs.
        on.cluster.server.inject(jobsManagerGet, { kind: 'delay', ms: 0 }, 1);
        on.cluster.server.inject(jobsManagerGet, { kind: 'hang' }, 1);
        const run = await tickUnderGc(on);
        expect(run.exitCode).toBe(1);
        const failed = 'ERROR: rollout of deployment/stg-jobs-manager';
        expect(run.line(failed)).toContain('no answer within 1000 ms (API_TIMEOUT)');
        expect(on.bookkeeping()).toEqual({
          [ATTEMPT]: '1',
          [RECORD.jm]: OLD_JM,
          [RECORD.pm]: first.pm,
          [RECORD.rm]: first.rm,
        });
        expect(run.msBetween('set image deployment/stg-jobs-manager', failed)).toBeLessThan(500 + BOUND_MS + MARGIN_MS);
      },
      CASE_MS,
    );

    it(
      'a Pushgateway that never answers ends at API_TIMEOUT=1s: a WARN, every image recorded, the outcome unchanged',
      async () => {
        const on = await newStage();
        const run = await tickUnderGc(on, { PUSHGATEWAY_URL: await hangingServer() });
        expect(run.exitCode).toBe(0);
        const warn = "WARN: could not push this tick's metrics";
        expect(run.line(warn)).toContain('did not answer within 1000 ms');
        // A first observation rolled nothing out: no time beside it, even with a push (docs/fleet-promotion.md).
        expect(on.bookkeeping()).toEqual({ [RECORD.jm]: first.jm, [RECORD.pm]: first.pm, [RECORD.rm]: first.rm });
        expect(run.msBetween('tick complete', warn)).toBeLessThan(BOUND_MS + MARGIN_MS);
        expect(run.stderr.at(-1)).toMatch(/^\[image-refresh\] summary: outcome=complete exit=0 /);
      },
      CASE_MS,
    );

    it(
      'a Pushgateway that never answers after SIGTERM ends at the interrupted tick’s 1.5 s push bound, not API_TIMEOUT=5s: exit 143',
      async () => {
        const on = await newStage({ [RECORD.jm]: OLD_JM, [RECORD.pm]: first.pm, [RECORD.rm]: first.rm });
        on.cluster.server.setBehaviour('Deployment', NS, JOBS_MANAGER, 'stalls');
        const setImage = 'set image deployment/stg-jobs-manager';
        const run = await tickUnderGc(
          on,
          { PUSHGATEWAY_URL: await hangingServer(), API_TIMEOUT: '5s', ROLLOUT_TIMEOUT: '20s' },
          setImage,
        );
        expect(run.exitCode).toBe(143);
        const warn = "WARN: could not push this tick's metrics";
        expect(run.line(warn)).toContain('did not answer within 1500 ms');
        expect(run.msBetween('interrupted by SIGTERM', warn)).toBeLessThan(1_500 + MARGIN_MS);
        expect(run.stderr.at(-1)).toMatch(/^\[image-refresh\] summary: outcome=interrupted exit=143 /);
      },
      CASE_MS,
    );
  },
);
