import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { restAs } from '../../../k8s-adapter/test/parity/support/world-controls.js';
import { type ChartCluster, imagesOf, JOBS_MANAGER, NS } from '../../../k8s-adapter/test/support/fake-api-chart.js';
import { ATTEMPT, JM, JM_REF, pinned, RECORD } from './support/chart-facts.js';
import { patchesOf, type Stage, startStage } from './support/cluster-stage.js';
import { linesWith, theLine } from './support/run-bundle.js';
import { type Builds, describeOnStoryRegistry } from './support/story-registry.js';

// ON_ROLLOUT_FAILURE and ROLLOUT_STABLE_FOR (docs/behaviour.md §3.6), each both
// ways, told to what ships: the bundled CLI as a child process per tick against
// the fake API server and a real docker-registry (support/cluster-stage.ts).
// Assertions are exit codes, what the API server holds and received, and the
// one line that matters.
//
// ON_ROLLOUT_FAILURE: a crash-looping jobs-manager build — the fake
// controller rolls any pod spec naming it as never Ready, any other as
// settling — is left half-rolled under keep, and rolled back, quarantined,
// held and then replaced by a fixed build under revert; `rearm` lifts the
// quarantine. ROLLOUT_STABLE_FOR: a build whose pods go unavailable about a
// second after its rollout wait saw them complete counts under 0s and is a
// failed rollout under a 3s window. (The adapter polls every 2 s: the wait's
// second read sees it complete, the window's second read sees it fallen.)

const QUARANTINE_JM = 'tracebloc.io/quarantined-jobs-manager-digest';
const STORY_MS = 90_000;
// Long enough for the adapter's 2 s polls to see a rollout through.
const BOUNDS = { ROLLOUT_TIMEOUT: '6s' };

/** The fake controller rolls a Deployment whose pods run one of `bad` as never Ready, any other as settling. */
const stageBadBuilds = (cluster: ChartCluster, bad: Set<string>): (() => void) => {
  const { store } = cluster.server;
  return store.watch('Deployment', NS, undefined, (event) => {
    const name = (event.object.metadata as { name: string }).name;
    const crashes = Object.values(imagesOf(event.object)).some((image) => bad.has(image));
    // Called before the controller schedules the spec change's steps: they follow this behaviour.
    store.setBehaviour('Deployment', NS, name, crashes ? 'neverReady' : 'settles');
  });
};

/** jobs-manager's pods go unavailable `afterMs` after a spec change naming `image`: it completes, then falls apart. */
const stageFallingApart = (cluster: ChartCluster, image: string, afterMs: number): (() => void) => {
  let seenGeneration = 0;
  const timers: NodeJS.Timeout[] = [];
  const stop = cluster.server.store.watch('Deployment', NS, JOBS_MANAGER, (event) => {
    const generation = Number((event.object.metadata as { generation: number }).generation);
    if (generation === seenGeneration || imagesOf(event.object).api !== image) return;
    seenGeneration = generation;
    timers.push(setTimeout(() => restAs(cluster, JM_REF, 'flaps'), afterMs));
  });
  return () => {
    stop();
    for (const t of timers) clearTimeout(t);
  };
};

describeOnStoryRegistry(
  import.meta.url,
  `the way back's switches both ways, on the bundled CLI (ROLLOUT_TIMEOUT=6s)`,
  (world) => {
    describe('ON_ROLLOUT_FAILURE with a crash-looping jobs-manager build', () => {
      const bad = new Set<string>();
      let keep: Stage;
      let revert: Stage;
      let first: Builds;
      let jm2 = '';
      const stops: (() => void)[] = [];
      beforeAll(async () => {
        keep = await startStage(world.endpoint);
        revert = await startStage(world.endpoint);
        stops.push(stageBadBuilds(keep.cluster, bad), stageBadBuilds(revert.cluster, bad));
        first = await world.pushAll();
        expect((await keep.tick(BOUNDS)).exitCode).toBe(0);
        expect((await revert.tick({ ...BOUNDS, ON_ROLLOUT_FAILURE: 'revert' })).exitCode).toBe(0);
        jm2 = await world.push(JM);
        bad.add(pinned(JM, jm2));
      }, STORY_MS);
      afterAll(async () => {
        for (const stop of stops) stop();
        await keep?.close();
        await revert?.close();
      });

      it(
        'keep (the default): the failed rollout is left half-rolled on the bad build, as the script',
        async () => {
          const run = await keep.tick(BOUNDS);
          expect(run.exitCode).toBe(1);
          expect(run.stderr.at(-1)).toMatch(/summary: outcome=reimageFailed exit=1 /);
          expect(linesWith(run.stderr, 'ROLLED BACK')).toEqual([]);
          expect(keep.images()[JOBS_MANAGER]?.api).toBe(pinned(JM, jm2));
          expect(keep.bookkeeping()).not.toHaveProperty(QUARANTINE_JM);
        },
        STORY_MS,
      );

      it(
        'revert: set back to docker.io/<repo>@<recorded digest>, the bad digest quarantined, exit 1 with ROLLED BACK and its Events',
        async () => {
          const run = await revert.tick({ ...BOUNDS, ON_ROLLOUT_FAILURE: 'revert' });
          expect(run.exitCode).toBe(1);
          expect(theLine(run.stderr, 'ROLLED BACK')).toMatch(
            new RegExp(`^\\[image-refresh\\] ROLLED BACK deployment/${JOBS_MANAGER} from ${jm2} to ${first.jm}: `),
          );
          const spec = patchesOf(run)
            .filter((p) => p.target === `Deployment/${JOBS_MANAGER}`)
            .map((p) => JSON.stringify(p.body))
            .filter((body) => body.includes('"containers"'));
          expect(spec).toEqual([
            JSON.stringify({ spec: { template: { spec: { containers: [{ name: 'api', image: pinned(JM, jm2) }] } } } }),
            JSON.stringify({
              spec: { template: { spec: { containers: [{ name: 'api', image: pinned(JM, first.jm) }] } } },
            }),
          ]);
          expect(revert.images()[JOBS_MANAGER]?.api).toBe(pinned(JM, first.jm));
          expect(revert.bookkeeping()).toMatchObject({ [RECORD.jm]: first.jm, [ATTEMPT]: '1', [QUARANTINE_JM]: jm2 });
          const events = revert.cluster.server.events.all();
          expect(events.find((e) => e.reason === 'RefreshRolledBack')?.type).toBe('Warning');
          expect(events.find((e) => e.reason === 'RefreshQuarantined')?.type).toBe('Normal');
        },
        STORY_MS,
      );

      it(
        'revert, next tick: the tag still names the bad build; held, said, exit 0, no workload touched',
        async () => {
          const quarantinedBefore = revert.cluster.server.events.all().filter((e) => e.reason === 'RefreshQuarantined');
          const run = await revert.tick({ ...BOUNDS, ON_ROLLOUT_FAILURE: 'revert' });
          expect(run.exitCode).toBe(0);
          expect(theLine(run.stderr, 'is quarantined')).toContain(`latest=${jm2} is quarantined`);
          expect(patchesOf(run).filter((p) => JSON.stringify(p.body).includes('"containers"'))).toEqual([]);
          // RefreshQuarantined says when the quarantine starts, not every tick.
          expect(revert.cluster.server.events.all().filter((e) => e.reason === 'RefreshQuarantined')).toEqual(
            quarantinedBefore,
          );
        },
        STORY_MS,
      );

      it(
        'revert: a fixed build under the tag is ordinary drift and rolls out; rearm then lifts the stale quarantine and says so',
        async () => {
          const jm3 = await world.push(JM);
          const run = await revert.tick({ ...BOUNDS, ON_ROLLOUT_FAILURE: 'revert' });
          expect(run.exitCode).toBe(0);
          expect(revert.images()[JOBS_MANAGER]?.api).toBe(pinned(JM, jm3));
          expect(revert.bookkeeping()).toMatchObject({ [RECORD.jm]: jm3, [QUARANTINE_JM]: jm2 });
          const rearm = await revert.run(['rearm']);
          expect(rearm.exitCode).toBe(0);
          expect(theLine(rearm.stdout, 'lifted the quarantine')).toContain(`${JM}@${jm2}`);
          expect(revert.bookkeeping()).not.toHaveProperty(QUARANTINE_JM);
        },
        STORY_MS,
      );
    });

    describe('ROLLOUT_STABLE_FOR with a build that falls apart a second after it completed', () => {
      let stage: Stage;
      let stop: (() => void) | undefined;
      beforeAll(async () => {
        stage = await startStage(world.endpoint);
        await world.pushAll();
        expect((await stage.tick(BOUNDS)).exitCode).toBe(0);
      }, STORY_MS);
      afterAll(async () => {
        stop?.();
        await stage?.close();
      });

      it(
        '0s (the default): counted the moment it completes, recorded, exit 0 — as the script',
        async () => {
          const jm = await world.push(JM);
          stop = stageFallingApart(stage.cluster, pinned(JM, jm), 3_000);
          const run = await stage.tick(BOUNDS);
          expect(run.exitCode).toBe(0);
          expect(stage.bookkeeping()[RECORD.jm]).toBe(jm);
          stop();
          restAs(stage.cluster, JM_REF, 'settles');
        },
        STORY_MS,
      );

      it(
        '3s: falling apart inside the window is a failed rollout, nothing recorded, exit 1',
        async () => {
          const recorded = stage.bookkeeping()[RECORD.jm];
          const jm = await world.push(JM);
          stop = stageFallingApart(stage.cluster, pinned(JM, jm), 3_000);
          const run = await stage.tick({ ...BOUNDS, ROLLOUT_STABLE_FOR: '3s' });
          expect(run.exitCode).toBe(1);
          expect(theLine(run.stderr, 'did not stay complete')).toMatch(
            new RegExp(
              `^\\[image-refresh\\] ERROR: rollout of deployment/${JOBS_MANAGER} completed but did not stay complete for ROLLOUT_STABLE_FOR=3s`,
            ),
          );
          expect(recorded).not.toBe(jm);
          expect(stage.bookkeeping()[RECORD.jm]).toBe(recorded);
        },
        STORY_MS,
      );
    });
  },
);
