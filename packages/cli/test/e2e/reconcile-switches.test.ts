import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { restAs } from '../../../k8s-adapter/test/parity/support/world-controls.js';
import { JOBS_MANAGER, NS } from '../../../k8s-adapter/test/support/fake-api-chart.js';
import {
  ATTEMPT,
  FLAP,
  JM,
  JM_REF,
  ON_TAG,
  PIN_JM,
  PM,
  pinned,
  RECORD,
  REIMAGE_SUMMARY,
  RM,
  RP_REF,
  STEADY_SUMMARY,
  STREAK,
} from './support/chart-facts.js';
import { describeRequest, patchesOf, type Stage, type StageRun, startStage } from './support/cluster-stage.js';
import { helmRerender, kubectlSetImage } from './support/hand-edits.js';
import { linesWith, theLine } from './support/run-bundle.js';
import { type Builds, describeOnStoryRegistry } from './support/story-registry.js';

// RECONCILE_LIVE and DECOUPLED_REFRESH (docs/behaviour.md §6), each both ways,
// told to what ships: the bundled CLI as a child process per tick against the
// fake API server and a real docker-registry (stage: support/cluster-stage.ts).
// Each story has its own fresh release and its own first builds. What someone
// else does to the release — a `helm upgrade`, a `kubectl set image` — is
// written on the fake server under that client's field manager
// (support/hand-edits.ts), so managedFields tell the CLI who did it, as a
// cluster's would.
//
// Assertions are exit codes, what the server holds, what it received (the
// requests of each run: which objects a mode reads, which PATCHes it sends
// and in what order) and the one line that matters. The "no write" claims
// are on the wire: a run's PATCH list, not the summary line.
//
// Mutations of src that redden this file, each run by hand in a private copy
// of the tree (bundle rebuilt there, copy discarded), with the case that
// caught it: a container on repo:tag taken as reverted without a pin marker
// (the fresh-install and report cases); report mode repairing (the report
// cases); RECONCILE_LIVE=0 still reading the live workloads (both default
// cases); no pin marker recorded (the pin case); a re-image that skips the
// flap back-off, no refresh-attempt written (both repair cases);
// DECOUPLED_REFRESH ignored (the =1 case) and always on (the default case);
// pods-monitor resolved and re-imaged past the unsettled jobs-manager (the
// =1 case).

// A story is several CLI runs of ~0.5–1.5 s each on a loaded 2-core machine.
const STORY_MS = 60_000;

const ALL_READ = [
  'GET Deployment/stg-jobs-manager',
  'GET Deployment/stg-requests-proxy',
  'GET DaemonSet/stg-resource-monitor',
];
const ONLY_JOBS_MANAGER_READ = ['GET Deployment/stg-jobs-manager'];
const WARNINGS = (run: StageRun) => linesWith(run.stderr, 'WARN');
const containerPatch = (target: string, container: string, image: string) => ({
  target,
  body: { spec: { template: { spec: { containers: [{ name: container, image }] } } } },
});
const annotationPatch = (annotations: Record<string, string | null>) => ({
  target: 'Deployment/stg-jobs-manager',
  body: { metadata: { annotations } },
});

describeOnStoryRegistry(
  import.meta.url,
  `RECONCILE_LIVE and DECOUPLED_REFRESH both ways, on the bundled CLI (ROLLOUT_TIMEOUT=500ms, SETTLE_TIMEOUT=300ms)`,
  (world) => {
    describe('RECONCILE_LIVE: 0 (default), report and 1, on one release that lives through a pin, a helm re-render and a hand-set requests-proxy', () => {
      let stage: Stage;
      let first: Builds;
      let jm2 = '';
      const live = (mode: '1' | 'report') => ({ RECONCILE_LIVE: mode });
      /** The bookkeeping once jm2 is recorded and pinned; pods-monitor and resource-monitor still on their first builds. */
      const pinnedOnJm2 = () => ({ [RECORD.jm]: jm2, [RECORD.pm]: first.pm, [RECORD.rm]: first.rm, [PIN_JM]: jm2 });
      /** The line a reverted container gets, in either mode. */
      const revertedLine = (workload: string, container: string, mode: 'report' | 'repair') =>
        `[image-refresh] WARN: ${workload} container ${container} runs docker.io/tracebloc/jobs-manager:stg (set by helm), not ${JM}@${jm2} that image-refresh pinned: a Helm re-render (or a hand edit) undid the pin; ${
          mode === 'repair'
            ? 're-pinning it through the guarded re-image path (attempt counter, flap ceiling)'
            : 'RECONCILE_LIVE=1 would re-pin it'
        }`;
      const skewLine = (mode: 'report' | 'repair') =>
        `[image-refresh] WARN: deployment/stg-requests-proxy container proxy runs ${pinned(JM, first.jm)} (set by kubectl-set), another build than jobs-manager's recorded ${JM}@${jm2} (requests-proxy / jobs-manager skew); ${
          mode === 'repair'
            ? 're-pinning it through the guarded re-image path (attempt counter, flap ceiling)'
            : 'RECONCILE_LIVE=1 would re-pin it'
        }`;

      beforeAll(async () => {
        stage = await startStage(world.endpoint);
        first = await world.pushAll();
      });
      afterAll(async () => {
        await stage?.close();
      });

      it(
        'RECONCILE_LIVE=1 on a fresh install (every container on repo:tag, nothing pinned yet): digests recorded, nothing re-pinned or warned about, on that tick or the next',
        async () => {
          const install = await stage.tick(live('1'));
          expect(install.exitCode).toBe(0);
          expect(WARNINGS(install)).toEqual([]);
          expect(linesWith(install.stderr, 'set image')).toEqual([]);
          // No pin marker: nothing was pinned, so a tag here is not a revert later.
          expect(stage.bookkeeping()).toEqual({ [RECORD.jm]: first.jm, [RECORD.pm]: first.pm, [RECORD.rm]: first.rm });
          const steady = await stage.tick(live('1'));
          expect(steady.exitCode).toBe(0);
          expect(WARNINGS(steady)).toEqual([]);
          expect(steady.stderr.at(-1)).toBe(STEADY_SUMMARY);
          // The mode does read the live workloads (so "no warning" above was looked for).
          expect(steady.api.map(describeRequest)).toEqual(ALL_READ);
          expect(stage.images()).toEqual(ON_TAG);
        },
        STORY_MS,
      );

      it('RECONCILE_LIVE unset (0, the default) on the same steady release: one request, the GET of jobs-manager — requests-proxy and the DaemonSet are not read', async () => {
        const run = await stage.tick();
        expect(run.exitCode).toBe(0);
        expect(run.api.map(describeRequest)).toEqual(ONLY_JOBS_MANAGER_READ);
      });

      it(
        'a new jobs-manager build with RECONCILE_LIVE=1: both Deployments pinned to it, and the pin marker recorded with the digest',
        async () => {
          jm2 = await world.push(JM);
          const run = await stage.tick(live('1'));
          expect(run.exitCode).toBe(0);
          expect(run.stderr.at(-1)).toBe(REIMAGE_SUMMARY);
          expect(stage.bookkeeping()).toEqual(pinnedOnJm2());
        },
        STORY_MS,
      );

      it(
        '`helm upgrade` re-renders repo:tag over the pin; RECONCILE_LIVE unset: no line, no write, nothing repaired, and only jobs-manager is read',
        async () => {
          helmRerender(stage.cluster, JM_REF, 'stg');
          helmRerender(stage.cluster, RP_REF, 'stg');
          const run = await stage.tick();
          expect(run.exitCode).toBe(0);
          expect(WARNINGS(run)).toEqual([]);
          expect(patchesOf(run)).toEqual([]);
          expect(run.api.map(describeRequest)).toEqual(ONLY_JOBS_MANAGER_READ);
          expect(stage.images()).toEqual(ON_TAG);
        },
        STORY_MS,
      );

      it(
        'RECONCILE_LIVE=report: one line per reverted container naming (set by helm) — none for the containers never pinned — exit 0, and not one PATCH',
        async () => {
          const templates = stage.templates();
          const run = await stage.tick(live('report'));
          expect(run.exitCode).toBe(0);
          expect(WARNINGS(run)).toEqual([
            revertedLine('deployment/stg-jobs-manager', 'api', 'report'),
            revertedLine('deployment/stg-requests-proxy', 'proxy', 'report'),
          ]);
          expect(patchesOf(run)).toEqual([]);
          expect(run.stderr.at(-1)).toBe(STEADY_SUMMARY);
          expect(stage.images()).toEqual(ON_TAG);
          expect(stage.templates()).toEqual(templates);
        },
        STORY_MS,
      );

      it(
        'RECONCILE_LIVE=1: the same two lines, then re-pinned through the guarded path — refresh-attempt=1 written before the first image patch, cleared after the last rollout, then the pin recorded',
        async () => {
          const run = await stage.tick(live('1'));
          expect(run.exitCode).toBe(0);
          expect(WARNINGS(run)).toEqual([
            revertedLine('deployment/stg-jobs-manager', 'api', 'repair'),
            revertedLine('deployment/stg-requests-proxy', 'proxy', 'repair'),
          ]);
          expect(theLine(run.stderr, 're-imaging control-plane workloads')).toContain('(attempt 1/3)');
          expect(patchesOf(run)).toEqual([
            annotationPatch({ [ATTEMPT]: '1' }),
            containerPatch('Deployment/stg-jobs-manager', 'api', pinned(JM, jm2)),
            containerPatch('Deployment/stg-requests-proxy', 'proxy', pinned(JM, jm2)),
            annotationPatch({ [ATTEMPT]: null, [FLAP]: null }),
            annotationPatch({ [PIN_JM]: jm2 }),
          ]);
          expect(run.stderr.at(-1)).toBe(REIMAGE_SUMMARY);
          expect(stage.images()).toEqual({
            ...ON_TAG,
            'stg-jobs-manager': { ...ON_TAG['stg-jobs-manager'], api: pinned(JM, jm2) },
            'stg-requests-proxy': { proxy: pinned(JM, jm2) },
          });
          expect(stage.bookkeeping()).toEqual(pinnedOnJm2());
        },
        STORY_MS,
      );

      it(
        'requests-proxy hand-set to another digest (kubectl set image): RECONCILE_LIVE=report names the skew and who did it, and writes nothing',
        async () => {
          kubectlSetImage(stage.cluster, RP_REF, 'proxy', pinned(JM, first.jm));
          const run = await stage.tick(live('report'));
          expect(run.exitCode).toBe(0);
          expect(WARNINGS(run)).toEqual([skewLine('report')]);
          expect(patchesOf(run)).toEqual([]);
          expect(stage.images()['stg-requests-proxy']).toEqual({ proxy: pinned(JM, first.jm) });
        },
        STORY_MS,
      );

      it(
        'RECONCILE_LIVE=1 converges requests-proxy alone, through the attempt counter; jobs-manager is not patched',
        async () => {
          const templates = stage.templates();
          const run = await stage.tick(live('1'));
          expect(run.exitCode).toBe(0);
          expect(WARNINGS(run)).toEqual([skewLine('repair')]);
          expect(patchesOf(run)).toEqual([
            annotationPatch({ [ATTEMPT]: '1' }),
            containerPatch('Deployment/stg-requests-proxy', 'proxy', pinned(JM, jm2)),
            annotationPatch({ [ATTEMPT]: null, [FLAP]: null }),
            annotationPatch({ [PIN_JM]: jm2 }),
          ]);
          expect(run.stderr.at(-1)).toBe(
            '[image-refresh] summary: outcome=complete exit=0 findings=0 writes=3 (writeRefreshAttempt, clearFlapState, recordDigests) re-images=1 (deployment/stg-requests-proxy) unresolved=0',
          );
          expect(stage.images()['stg-requests-proxy']).toEqual({ proxy: pinned(JM, jm2) });
          expect(stage.templates()['stg-jobs-manager']).toEqual(templates['stg-jobs-manager']);
          expect(stage.cluster.server.unexpected).toEqual([]);
        },
        STORY_MS,
      );
    });

    describe('DECOUPLED_REFRESH (MAX_SKIP_TICKS=8 as shipped): jobs-manager never Ready while new resource-monitor and pods-monitor builds are published', () => {
      let stage: Stage;
      let first: Builds;
      let rm2 = '';

      beforeAll(async () => {
        stage = await startStage(world.endpoint);
        first = await world.pushAll();
      });
      afterAll(async () => {
        await stage?.close();
      });

      it(
        'DECOUPLED_REFRESH unset (0, the default): skip 1/8 with exit 0, the registry not even asked, nothing re-imaged',
        async () => {
          expect((await stage.tick()).exitCode).toBe(0);
          stage.cluster.server.store.setBehaviour('Deployment', NS, JOBS_MANAGER, 'neverReady');
          restAs(stage.cluster, JM_REF, 'neverReady');
          rm2 = await world.push(RM);
          await world.push(PM);
          const run = await stage.tick();
          expect(run.exitCode).toBe(0);
          expect(theLine(run.stderr, 'skipping this refresh tick')).toContain('skipping this refresh tick 1/8;');
          expect(linesWith(run.stderr, 'DECOUPLED_REFRESH')).toEqual([]);
          expect(run.registry).toEqual([]);
          expect(run.stderr.at(-1)).toBe(
            '[image-refresh] summary: outcome=skipped exit=0 findings=0 writes=1 (writeSkipStreak) re-images=0 unresolved=0',
          );
          expect(stage.images()).toEqual(ON_TAG);
          expect(stage.bookkeeping()).toEqual({
            [RECORD.jm]: first.jm,
            [RECORD.pm]: first.pm,
            [RECORD.rm]: first.rm,
            [STREAK]: '1',
          });
        },
        STORY_MS,
      );

      it(
        "DECOUPLED_REFRESH=1: skip 2/8 counted as always, exit 0; the settled DaemonSet is re-imaged to the new build and its digest recorded; jobs-manager's containers, pods-monitor's included, untouched",
        async () => {
          const templates = stage.templates();
          const run = await stage.tick({ DECOUPLED_REFRESH: '1' });
          expect(run.exitCode).toBe(0);
          expect(theLine(run.stderr, 'skipping this refresh tick')).toContain('skipping this refresh tick 2/8;');
          expect(theLine(run.stderr, 'set image')).toBe(
            `[image-refresh] set image daemonset/stg-resource-monitor in tracebloc-node-agents: tracebloc-resource-monitor=${pinned(RM, rm2)}`,
          );
          expect(run.stderr.at(-1)).toBe(
            '[image-refresh] summary: outcome=skipped exit=0 findings=0 writes=4 (writeSkipStreak, writeRefreshAttempt, clearFlapState, recordDigests) re-images=1 (daemonset/stg-resource-monitor) unresolved=0',
          );
          expect(stage.images()).toEqual({
            ...ON_TAG,
            'stg-resource-monitor': { 'tracebloc-resource-monitor': pinned(RM, rm2) },
          });
          expect(stage.templates()['stg-jobs-manager']).toEqual(templates['stg-jobs-manager']);
          // pods-monitor is a sidecar of the unsettled jobs-manager: not even resolved.
          expect(run.registry.filter((r) => r.url.includes(PM))).toEqual([]);
          expect(stage.bookkeeping()).toEqual({
            [RECORD.jm]: first.jm,
            [RECORD.pm]: first.pm,
            [RECORD.rm]: rm2,
            [STREAK]: '2',
          });
          expect(stage.cluster.server.unexpected).toEqual([]);
        },
        STORY_MS,
      );
    });
  },
);
