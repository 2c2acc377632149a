import { shortDigest, type WorkloadRef } from '@image-refresh/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registryBinaryMissing } from '../../../k8s-adapter/test/parity/support/parity-registry.js';
import { type Flapping, restAs, stageFlapping } from '../../../k8s-adapter/test/parity/support/world-controls.js';
import {
  AGENTS_NS,
  annotationsOf,
  imagesOf,
  JOBS_MANAGER,
  NS,
  REQUESTS_PROXY,
  RESOURCE_MONITOR,
  templateOf,
} from '../../../k8s-adapter/test/support/fake-api-chart.js';
import { TOKEN_SERVICE } from '../../../k8s-adapter/test/support/registry-token-server.js';
import { bundleEnv, STORY_BOUNDS, shippedCronJobEnv } from './support/chart-env.js';
import { STEADY_SUMMARY } from './support/chart-facts.js';
import { CHART_WORLD_SETUP_TIMEOUT_MS, type ChartWorld, startChartWorld } from './support/chart-world.js';
import { type BundleRun, linesWith, runBundle, theLine } from './support/run-bundle.js';

// The story an edge lives through, told to what ships: the bundled CLI
// (`node dist/image-refresh.mjs`, a child process per command, as the
// CronJob runs it) against the fake Kubernetes API server holding the chart's
// release and a real docker-registry with token auth. The environment is the
// shipped CronJob's (deploy/cronjob.yaml) with short bounds; KUBECONFIG names
// the fake server and HOME is a temp dir, so ~/.kube is never read.
//
// One cluster, chapter after chapter, each starting where the last ended:
// first install → a new jobs-manager build re-imaged → jobs-manager never
// Ready until FROZEN at MAX_SKIP_TICKS → it settles → a flapping build, three
// failed re-images, then the lockout → `status` → `rearm` → recovery; and a
// malformed environment that never reaches the server. Assertions are exit
// codes, what the servers hold afterwards, and the one log line that matters
// — never a banner: the TICK_START banner names requests-proxy and
// resource-monitor on every tick, so a whole-output grep for them proves
// nothing (the chart's bats suite, backend#1964: that exact assertion once passed while the
// script exited long before the guard).
//
// Mutations of the CLI's src that redden it, each run by hand in a private
// copy of the tree (never in the shared one), bundle rebuilt, then discarded:
// rearm clearing the skip streak instead of the flap state (rearm, recovery);
// a configuration error not printed (the malformed environment); exit 1
// reported as 0 by bin.ts (FROZEN, the flap chapter, and the chapters after);
// status counting attempts against MAX_SKIP_TICKS (status).

const JM = 'tracebloc/jobs-manager';
const PM = 'tracebloc/pods-monitor';
const RM = 'tracebloc/resource-monitor';
const RECORD = {
  jm: 'tracebloc.io/last-refreshed-jobs-manager-digest',
  pm: 'tracebloc.io/last-refreshed-pods-monitor-digest',
  rm: 'tracebloc.io/last-refreshed-resource-monitor-digest',
} as const;
const STREAK = 'tracebloc.io/refresh-skip-streak';
const ATTEMPT = 'tracebloc.io/refresh-attempt';
const FLAP = 'tracebloc.io/refresh-flap-detected';
const JM_REF: WorkloadRef = { id: 'jobs-manager', kind: 'Deployment', name: JOBS_MANAGER, namespace: NS };
const pinned = (repo: string, digest: string) => `docker.io/${repo}@${digest}`;
const FLOATING = {
  pm: 'docker.io/tracebloc/pods-monitor:stg',
  rm: 'docker.io/tracebloc/resource-monitor:stg',
};
const REIMAGED_BOTH = 're-images=2 (deployment/stg-jobs-manager, deployment/stg-requests-proxy)';

// A chapter is several CLI runs of ~0.5–2 s each on a loaded 2-core machine.
const CHAPTER_MS = 60_000;

// The default reporter folds a skipped file into one line: say why on stderr too.
if (registryBinaryMissing !== undefined) console.warn(`SKIPPED ${import.meta.url}: ${registryBinaryMissing}`);

describe.skipIf(registryBinaryMissing !== undefined)(
  `the bundled CLI, tick after tick, on the fake API server and a real registry (MAX_SKIP_TICKS=8, as shipped)${registryBinaryMissing === undefined ? '' : ` (skipped: ${registryBinaryMissing})`}`,
  () => {
    let world: ChartWorld;
    let flapping: Flapping;
    const digest: Record<string, string> = {};

    beforeAll(async () => {
      world = await startChartWorld();
      flapping = stageFlapping(world.cluster);
      digest.jm1 = await world.registry.push(JM, 'stg');
      digest.pm1 = await world.registry.push(PM, 'stg');
      digest.rm1 = await world.registry.push(RM, 'stg');
    }, CHART_WORLD_SETUP_TIMEOUT_MS);

    afterAll(async () => {
      flapping?.stop();
      await world?.close();
    });

    const shipped = () => shippedCronJobEnv();
    const env = (): Record<string, string> => bundleEnv(world, STORY_BOUNDS);

    /** One `image-refresh tick`; its last stderr line is always the summary, with the process's own exit code. */
    const tick = async (overrides: Readonly<Record<string, string>> = {}): Promise<BundleRun> => {
      const run = await runBundle(['tick'], { ...env(), ...overrides });
      expect(run.stderr.at(-1)).toMatch(new RegExp(`^\\[image-refresh\\] summary: outcome=\\w+ exit=${run.exitCode} `));
      // The flapping workload (if any) is Ready again once the tick has waited on it.
      flapping.readyAgain();
      return run;
    };

    /** The tick's bookkeeping on the jobs-manager Deployment. */
    // The topology fingerprint (docs/behaviour.md §3.4c) is the ownership check's, asserted where it is tested.
    const bookkeeping = () =>
      Object.fromEntries(
        Object.entries(annotationsOf(world.cluster.jobsManager())).filter(
          ([key]) => key.startsWith('tracebloc.io/') && !key.endsWith('/topology-fingerprint'),
        ),
      );
    const images = () => ({
      [JOBS_MANAGER]: imagesOf(world.cluster.jobsManager()),
      [REQUESTS_PROXY]: imagesOf(world.cluster.requestsProxy()),
      [RESOURCE_MONITOR]: imagesOf(world.cluster.resourceMonitor()),
    });
    const jobsManagerOn = (jm: string) => ({
      [JOBS_MANAGER]: { api: pinned(JM, jm), 'pods-monitor-container': FLOATING.pm },
      [REQUESTS_PROXY]: { proxy: pinned(JM, jm) },
      [RESOURCE_MONITOR]: { 'tracebloc-resource-monitor': FLOATING.rm },
    });

    it('runs the shipped CronJob environment: release stg in tracebloc, node agents in tracebloc-node-agents, MAX_SKIP_TICKS 8', () => {
      expect(shipped()).toMatchObject({
        RELEASE_NAME: 'stg',
        RELEASE_NAMESPACE: 'tracebloc',
        NODE_AGENTS_NAMESPACE: AGENTS_NS,
        MAX_SKIP_TICKS: '8',
        MAX_REFRESH_ATTEMPTS: '3',
      });
    });

    it('first install: records the three digests the tag points at and re-images nothing', async () => {
      const run = await tick();
      expect(run.exitCode).toBe(0);
      expect(linesWith(run.stderr, 'first observation; recording without re-imaging')).toHaveLength(3);
      // Every container found the followed image's first: the topology is remembered (§3.4c).
      expect(run.stderr.at(-1)).toBe(
        '[image-refresh] summary: outcome=complete exit=0 findings=0 writes=2 (recordTopologyFingerprint, recordDigests) re-images=0 unresolved=0',
      );
      expect(linesWith(run.stderr, 'every mapped container runs the image it follows')).toHaveLength(1);
      expect(bookkeeping()).toEqual({ [RECORD.jm]: digest.jm1, [RECORD.pm]: digest.pm1, [RECORD.rm]: digest.rm1 });
      expect(images()).toEqual({
        [JOBS_MANAGER]: { api: 'docker.io/tracebloc/jobs-manager:stg', 'pods-monitor-container': FLOATING.pm },
        [REQUESTS_PROXY]: { proxy: 'docker.io/tracebloc/jobs-manager:stg' },
        [RESOURCE_MONITOR]: { 'tracebloc-resource-monitor': FLOATING.rm },
      });
    });

    it(
      'a new jobs-manager build: both Deployments are re-imaged in order, their rollouts complete, then the digest is recorded',
      async () => {
        digest.jm2 = await world.registry.push(JM, 'stg');
        const run = await tick();
        expect(run.exitCode).toBe(0);
        expect(theLine(run.stderr, 'digest changed')).toContain(
          `${JM}: digest changed (${digest.jm1} -> ${digest.jm2})`,
        );
        // docs/behaviour.md §3.6: set image, wait for that rollout, then the next workload.
        const at = (phrase: string) => run.stderr.indexOf(theLine(run.stderr, phrase));
        const order = [
          at('set image deployment/stg-jobs-manager'),
          at('deployment/stg-jobs-manager rollout complete'),
          at('set image deployment/stg-requests-proxy'),
          at('deployment/stg-requests-proxy rollout complete'),
          at('updating deployment annotations'),
        ];
        expect(order).toEqual([...order].sort((a, b) => a - b));
        expect(theLine(run.stderr, 'set image deployment/stg-jobs-manager')).toContain(
          `api=${pinned(JM, digest.jm2 ?? '')}`,
        );
        expect(run.stderr.at(-1)).toBe(
          `[image-refresh] summary: outcome=complete exit=0 findings=0 writes=3 (writeRefreshAttempt, clearFlapState, recordDigests) ${REIMAGED_BOTH} unresolved=0`,
        );
        expect(images()).toEqual(jobsManagerOn(digest.jm2 ?? ''));
        expect(bookkeeping()).toEqual({ [RECORD.jm]: digest.jm2, [RECORD.pm]: digest.pm1, [RECORD.rm]: digest.rm1 });
      },
      CHAPTER_MS,
    );

    it(
      'jobs-manager never Ready: 7 ticks skip with exit 0 and N/8, the 8th is exit 1 IMAGE REFRESH IS FROZEN naming the workloads frozen with it; nothing is re-imaged',
      async () => {
        const { store } = world.cluster.server;
        store.setBehaviour('Deployment', NS, JOBS_MANAGER, 'neverReady');
        restAs(world.cluster, JM_REF, 'neverReady');
        const template = templateOf(world.cluster.jobsManager());
        for (let k = 1; k <= 7; k++) {
          // A new build lands mid-freeze: it must wait for the Deployment to settle (I1).
          if (k === 7) digest.jm3 = await world.registry.push(JM, 'stg');
          const run = await tick();
          expect(run.exitCode, `skip ${k}`).toBe(0);
          expect(theLine(run.stderr, 'skipping this refresh tick'), `skip ${k}`).toContain(
            `skipping this refresh tick ${k}/8;`,
          );
          expect(linesWith(run.stderr, 'IMAGE REFRESH IS FROZEN'), `skip ${k}`).toEqual([]);
          expect(bookkeeping()[STREAK], `skip ${k}`).toBe(String(k));
        }
        const frozen = await tick();
        expect(frozen.exitCode).toBe(1);
        const line = theLine(frozen.stderr, 'IMAGE REFRESH IS FROZEN');
        expect(line).toMatch(
          /^\[image-refresh\] ERROR: deployment\/stg-jobs-manager has been unsettled for 8 consecutive ticks \(>= MAX_SKIP_TICKS=8\)/,
        );
        expect(line).toContain('deployment/stg-requests-proxy');
        expect(line).toContain('daemonset/stg-resource-monitor');
        // Why the scoping matters: the banner names them as well.
        expect(linesWith(frozen.stderr, 'daemonset/stg-resource-monitor').length).toBeGreaterThan(1);
        expect(linesWith(frozen.stderr, 'skipping this refresh tick')).toEqual([]);
        expect(frozen.stderr.at(-1)).toMatch(
          /summary: outcome=frozen exit=1 findings=1 writes=1 \(writeSkipStreak\) re-images=0 unresolved=0$/,
        );
        expect(bookkeeping()[STREAK]).toBe('8');
        expect(templateOf(world.cluster.jobsManager())).toEqual(template);
        expect(images()).toEqual(jobsManagerOn(digest.jm2 ?? ''));
      },
      CHAPTER_MS,
    );

    it(
      'it settles: the streak is cleared with "settled again after 8 skipped tick(s)" and the build that waited is rolled out',
      async () => {
        world.cluster.server.store.setBehaviour('Deployment', NS, JOBS_MANAGER, 'settles');
        restAs(world.cluster, JM_REF, 'settles');
        const run = await tick();
        expect(run.exitCode).toBe(0);
        expect(theLine(run.stderr, 'settled again')).toContain(
          `deployment/stg-jobs-manager is settled again after 8 skipped tick(s) -- clearing ${STREAK}`,
        );
        expect(run.stderr.at(-1)).toBe(
          `[image-refresh] summary: outcome=complete exit=0 findings=0 writes=4 (clearSkipStreak, writeRefreshAttempt, clearFlapState, recordDigests) ${REIMAGED_BOTH} unresolved=0`,
        );
        expect(bookkeeping()).toEqual({ [RECORD.jm]: digest.jm3, [RECORD.pm]: digest.pm1, [RECORD.rm]: digest.rm1 });
        expect(images()).toEqual(jobsManagerOn(digest.jm3 ?? ''));
      },
      CHAPTER_MS,
    );

    it(
      'a flapping build: three failed re-images exit 1, then the lockout exits 0 with FLAP DETECTED and MANUAL ATTENTION NEEDED',
      async () => {
        digest.jm4 = await world.registry.push(JM, 'stg');
        flapping.add(JM_REF);
        for (let attempt = 1; attempt <= 3; attempt++) {
          const run = await tick();
          expect(run.exitCode, `attempt ${attempt}`).toBe(1);
          expect(theLine(run.stderr, 're-imaging control-plane workloads'), `attempt ${attempt}`).toContain(
            `(attempt ${attempt}/3)`,
          );
          expect(theLine(run.stderr, 'did not complete within ROLLOUT_TIMEOUT'), `attempt ${attempt}`).toMatch(
            /^\[image-refresh\] ERROR: rollout of deployment\/stg-jobs-manager did not complete within ROLLOUT_TIMEOUT=1s \(RolloutTimedOut: /,
          );
          expect(run.stderr.at(-1), `attempt ${attempt}`).toMatch(/summary: outcome=reimageFailed exit=1 /);
          expect(bookkeeping()[ATTEMPT], `attempt ${attempt}`).toBe(String(attempt));
          expect(bookkeeping()[RECORD.jm], `attempt ${attempt}`).toBe(digest.jm3);
        }
        const lockout = await tick();
        expect(lockout.exitCode).toBe(0);
        const flap = theLine(lockout.stderr, 'FLAP DETECTED');
        expect(flap).toContain('failed 3 time(s) in a row (>= MAX_REFRESH_ATTEMPTS=3)');
        expect(flap).toContain('MANUAL ATTENTION NEEDED');
        for (const workload of [
          'deployment/stg-jobs-manager',
          'deployment/stg-requests-proxy',
          'daemonset/stg-resource-monitor',
        ]) {
          expect(flap).toContain(workload);
        }
        expect(linesWith(lockout.stderr, 'set image')).toEqual([]);
        expect(lockout.stderr.at(-1)).toBe(
          '[image-refresh] summary: outcome=flapLockout exit=0 findings=0 writes=1 (markFlapDetected) re-images=0 unresolved=0',
        );
        expect(bookkeeping()).toEqual({
          [RECORD.jm]: digest.jm3,
          [RECORD.pm]: digest.pm1,
          [RECORD.rm]: digest.rm1,
          [ATTEMPT]: '3',
          [FLAP]: '3',
        });
        // Attempt 1 set the new image on jobs-manager (its rollout never
        // completed); requests-proxy, after it in order, was never reached.
        expect(images()).toEqual({
          ...jobsManagerOn(digest.jm3 ?? ''),
          [JOBS_MANAGER]: { api: pinned(JM, digest.jm4 ?? ''), 'pods-monitor-container': FLOATING.pm },
        });
      },
      CHAPTER_MS,
    );

    it('`image-refresh status` on the same server prints the counters, the flap marker and the drift', async () => {
      const run = await runBundle(['status'], env());
      expect(run.exitCode).toBe(0);
      expect(theLine(run.stdout, 'jobs-manager     deployment/stg-jobs-manager')).toContain(': settled');
      expect(theLine(run.stdout, 'skip streak')).toMatch(/skip streak\s+0\/8 \(not set\)$/);
      expect(theLine(run.stdout, 'attempts')).toMatch(/attempts\s+3\/3$/);
      expect(theLine(run.stdout, 'flap marker')).toContain('FLAP DETECTED after 3 failed attempt(s)');
      const row = theLine(run.stdout, 'jobs-manager      ');
      expect(row).toContain(shortDigest(digest.jm3 ?? ''));
      expect(row).toContain(`${shortDigest(digest.jm4 ?? '')} DRIFT`);
      expect(row).toContain(`api=${shortDigest(digest.jm4 ?? '')} proxy=${shortDigest(digest.jm3 ?? '')}`);
    });

    it('`image-refresh rearm` removes refresh-attempt and refresh-flap-detected and says what it removed', async () => {
      const run = await runBundle(['rearm'], env());
      expect(run.exitCode).toBe(0);
      expect(theLine(run.stdout, 're-armed')).toContain(
        `re-armed deployment/stg-jobs-manager in tracebloc: removed ${ATTEMPT}=3 and ${FLAP}=3.`,
      );
      expect(bookkeeping()).toEqual({ [RECORD.jm]: digest.jm3, [RECORD.pm]: digest.pm1, [RECORD.rm]: digest.rm1 });
    });

    it(
      'recovery: a fixed build is re-imaged as attempt 1, rolls out, is recorded; the story leaves these objects and Events behind',
      async () => {
        flapping.delete(JM_REF);
        world.cluster.server.store.setBehaviour('Deployment', NS, JOBS_MANAGER, 'settles');
        restAs(world.cluster, JM_REF, 'settles');
        digest.jm5 = await world.registry.push(JM, 'stg');
        const run = await tick();
        expect(run.exitCode).toBe(0);
        expect(theLine(run.stderr, 're-imaging control-plane workloads')).toContain('(attempt 1/3)');
        expect(run.stderr.at(-1)).toBe(
          `[image-refresh] summary: outcome=complete exit=0 findings=0 writes=3 (writeRefreshAttempt, clearFlapState, recordDigests) ${REIMAGED_BOTH} unresolved=0`,
        );
        expect(bookkeeping()).toEqual({ [RECORD.jm]: digest.jm5, [RECORD.pm]: digest.pm1, [RECORD.rm]: digest.rm1 });
        expect(images()).toEqual(jobsManagerOn(digest.jm5 ?? ''));
        // Kubernetes Events on the jobs-manager Deployment: a repeat of the same
        // line (numbers aside) is counted in its series; each re-image names
        // other digests, so each is its own Event.
        expect(world.cluster.server.events.counted()).toEqual([
          'Normal RefreshReimaged ×1',
          'Normal RefreshReimaged ×1',
          'Normal RefreshReimaged ×1',
          'Normal RefreshSkipped ×7',
          'Warning RefreshFlapDetected ×1',
          'Warning RefreshFrozen ×1',
          'Warning RefreshRolloutFailed ×3',
        ]);
      },
      CHAPTER_MS,
    );

    it('a steady tick with the token realm known (IMAGE_REFRESH_AUTH_URL): 1 Kubernetes request, 1 token, 1 HEAD per image, no anonymous probe', async () => {
      const from = {
        api: world.cluster.server.requests.length,
        registry: world.registry.proxy.seen.length,
        tokens: world.registry.tokens.scopeRequests.length,
      };
      const run = await tick({ IMAGE_REFRESH_AUTH_URL: `${world.registry.tokens.realm}?service=${TOKEN_SERVICE}` });
      expect(run.exitCode).toBe(0);
      expect(run.stderr.at(-1)).toBe(STEADY_SUMMARY);
      expect(world.cluster.server.requests.slice(from.api).map((r) => `${r.method} ${r.path}`)).toEqual([
        `GET /apis/apps/v1/namespaces/${NS}/deployments/${JOBS_MANAGER}`,
      ]);
      expect(world.registry.tokens.scopeRequests.slice(from.tokens)).toEqual([
        [JM, PM, RM].map((repo) => `repository:${repo}:pull`),
      ]);
      expect(
        world.registry.proxy.seen
          .slice(from.registry)
          .map((r) => `${r.method} ${r.url} ${r.authorization === undefined ? 'anonymous' : 'token'}`)
          .sort(),
      ).toEqual([JM, PM, RM].map((repo) => `HEAD /v2/${repo}/manifests/stg token`));
    });

    it('a malformed environment: exit 2 naming the variable, and not one request to the API server or the registry', async () => {
      const before = {
        api: world.cluster.server.requests.length,
        registry: world.registry.proxy.seen.length,
        tokens: world.registry.tokens.scopeRequests.length,
      };
      const run = await tick({ MAX_SKIP_TICKS: 'eight' });
      expect(run.exitCode).toBe(2);
      expect(theLine(run.stderr, 'MAX_SKIP_TICKS')).toMatch(
        /^\[image-refresh\] ERROR: configuration: MAX_SKIP_TICKS="eight": /,
      );
      expect(run.stderr.at(-1)).toMatch(/summary: outcome=configInvalid exit=2 /);
      expect({
        api: world.cluster.server.requests.length,
        registry: world.registry.proxy.seen.length,
        tokens: world.registry.tokens.scopeRequests.length,
      }).toEqual(before);
    });

    it('every request of the story was one the fake API server models, with the kubeconfig token', () => {
      expect(world.cluster.server.requests.length).toBeGreaterThan(0);
      expect(world.cluster.server.unexpected.map((r) => `${r.method} ${r.path}: ${r.problem}`)).toEqual([]);
      expect(world.cluster.server.requests.filter((r) => r.auth !== 'token').map((r) => r.path)).toEqual([]);
    });
  },
);
