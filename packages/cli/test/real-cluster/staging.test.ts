import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SLOW_PULL_PREFIX } from '../../../k8s-adapter/test/support/never-ready-build.js';
import { asAdmin, controlPlaneMissing, eventually } from '../../../k8s-adapter/test/support/real-cluster/admin.js';
import { pushImage } from '../../../k8s-adapter/test/support/registry-push.js';
import { ATTEMPT, JM, pinned, RECORD, RM } from '../e2e/support/chart-facts.js';
import { linesWith, theLine } from '../e2e/support/run-bundle.js';
import { type Builds, describeOnStoryRegistry } from '../e2e/support/story-registry.js';
import { type RealStage, type RealStageRun, requestsOf, startRealStage } from './support/real-stage.js';

// Stage, then switch (docs/behaviour.md §3.5a) on a real control plane: the
// bundled CLI as the shipped ServiceAccount with the shipped RBAC plus the
// optional component deploy/components/staging, against kube-apiserver whose
// controllers roll every set image onto kwok's two nodes. A new jobs-manager
// build that takes 3 s to pull (kwok's slow-pull stage) and a new
// resource-monitor build: the tick finds each workload's nodes, starts a
// staging pod on each, waits for it to leave the pull, deletes it — and only
// then writes the attempt and sets the images. Its requests are counted on the
// API proxy's record. Without the component the same tick is refused by RBAC:
// nothing is switched and no attempt spent. Releases in namespaces of their
// own: the file runs alone as well as with the others.

const CHAPTER_MS = 120_000;
const JOBS_MANAGER = 'stg-jobs-manager';
const STAGING_ON = { PREPULL: 'on', PREPULL_TIMEOUT: '40s', PLATFORM_CHECK: 'on' };

/** Staging pods left in a namespace (the label every one carries). */
const stagingPodsIn = async (namespace: string): Promise<string[]> =>
  (
    await asAdmin().core.listNamespacedPod({ namespace, labelSelector: 'app.kubernetes.io/managed-by=image-refresh' })
  ).items.map((p) => p.metadata?.name ?? '');

/** A request of the run as the story reads it, the release's generated namespaces spelled `<release>`/`<agents>`. */
const readable = (stage: RealStage, run: RealStageRun): string[] =>
  requestsOf(run).map((r) =>
    r
      .replaceAll(stage.release.namespaces.release, '<release>')
      .replaceAll(stage.release.namespaces.agents, '<agents>')
      .replace(/\?.*$/, '')
      .replace(/-staging-[0-9a-f]{12}$/, '-staging-<hash>'),
  );

const missing = controlPlaneMissing();

describe.skipIf(missing !== undefined)(
  `on a real control plane${missing === undefined ? '' : ` (skipped: ${missing})`}`,
  () => {
    describeOnStoryRegistry(import.meta.url, 'PREPULL: stage, then switch, as the shipped ServiceAccount', (world) => {
      let stage: RealStage;
      let first: Builds;
      beforeAll(async () => {
        stage = await startRealStage(world.endpoint, { components: ['staging'] });
        first = await world.pushAll();
        const run = await stage.tick(STAGING_ON);
        expect(run.exitCode).toBe(0);
        expect(await stage.bookkeeping()).toEqual({
          [RECORD.jm]: first.jm,
          [RECORD.pm]: first.pm,
          [RECORD.rm]: first.rm,
        });
      }, CHAPTER_MS);
      afterAll(async () => {
        await stage?.close();
      });

      it('a steady tick with both switches on still costs one API request: no manifest read, no pod', async () => {
        const run = await stage.tick(STAGING_ON);
        expect(run.exitCode).toBe(0);
        expect(readable(stage, run)).toEqual([`GET Deployment/${JOBS_MANAGER}`]);
        expect(run.registry.filter((r) => r.method === 'GET')).toEqual([]);
      });

      it(
        'a slow-pulling jobs-manager build and a new resource-monitor build: staged on every node of each workload, the pods deleted, then the attempt and the set images',
        async () => {
          const token = world.registry.tokens.mint([`repository:${JM}:pull,push`]);
          const jm = (await pushImage(world.registry.direct, JM, 'stg', { token, digestPrefix: SLOW_PULL_PREFIX }))
            .digest;
          const rm = await world.push(RM);
          const nodesOf = async (name: string) =>
            [...new Set((await stage.release.podsOf(name)).map((p) => p.spec?.nodeName ?? ''))].sort();
          const nodes = {
            jm: await nodesOf(JOBS_MANAGER),
            rp: await nodesOf('stg-requests-proxy'),
            rm: await nodesOf('stg-resource-monitor'),
          };
          const run = await stage.tick(STAGING_ON);
          expect(run.exitCode).toBe(0);
          expect(run.stderr.at(-1)).toMatch(
            /^\[image-refresh\] summary: outcome=complete exit=0 findings=0 .* re-images=3 /,
          );

          // Each staging pod on a node the workload runs on, as docs/behaviour.md §3.5a describes it.
          const created = run.api
            .filter((r) => r.method === 'POST' && r.path.endsWith('/pods'))
            .map((r) => JSON.parse(r.body));
          expect(
            created
              .map((p) => `${p.metadata.labels['image-refresh.tracebloc.io/staging-for']} ${p.spec.nodeName}`)
              .sort(),
          ).toEqual(
            [
              ...nodes.jm.map((n) => `deployment.${JOBS_MANAGER} ${n}`),
              ...nodes.rp.map((n) => `deployment.stg-requests-proxy ${n}`),
              ...nodes.rm.map((n) => `daemonset.stg-resource-monitor ${n}`),
            ].sort(),
          );
          expect(nodes.rm).toHaveLength(2);
          for (const pod of created) {
            expect(pod.metadata.labels['app.kubernetes.io/managed-by']).toBe('image-refresh');
            expect(pod.spec).toMatchObject({ restartPolicy: 'Never', automountServiceAccountToken: false });
            expect(pod.spec.containers[0]).toMatchObject({
              imagePullPolicy: 'IfNotPresent',
              resources: { requests: { cpu: '1m', memory: '1Mi' } },
            });
          }
          expect(created.map((p) => p.spec.containers[0].image)).toContain(pinned(JM, jm));
          // The jobs-manager build pulled for 3 s: its pods were read more than once before they were staged.
          const podReads = readable(stage, run).filter((r) => /^GET \/api\/v1\/namespaces\/<release>\/pods\//.test(r));
          expect(podReads.length).toBeGreaterThan(2);

          // Staging, then the attempt, then the set images; every staging pod deleted before the attempt.
          const requests = readable(stage, run);
          const lastDelete = requests.map((r) => r.startsWith('DELETE ')).lastIndexOf(true);
          const attempt = run.api.findIndex((r) => r.route === 'patch' && r.body.includes(ATTEMPT));
          const firstSet = run.api.findIndex((r) => r.route === 'patch' && r.body.includes('"containers"'));
          expect(lastDelete).toBeGreaterThan(0);
          expect(lastDelete).toBeLessThan(attempt);
          expect(attempt).toBeLessThan(firstSet);
          expect(requests.filter((r) => r.startsWith('DELETE '))).toHaveLength(created.length);
          expect(await stagingPodsIn(stage.release.namespaces.release)).toEqual([]);
          expect(await stagingPodsIn(stage.release.namespaces.agents)).toEqual([]);
          expect(theLine(run.stderr, 'staged docker.io/tracebloc/resource-monitor@')).toContain(nodes.rm.join(', '));
          // The platform check read both manifests of each changed digest (and their configs): single images, amd64.
          expect(linesWith(run.stderr, 'platforms of ')).toHaveLength(2);
          expect(await stage.bookkeeping()).toEqual({ [RECORD.jm]: jm, [RECORD.pm]: first.pm, [RECORD.rm]: rm });

          const count = (pattern: RegExp) => requests.filter((r) => pattern.test(r)).length;
          console.log(
            [
              'a staged re-image of three workloads on the real control plane (2 nodes):',
              `  API requests: ${requests.length} (pods: ${count(/ \/api\/v1\/namespaces\/[^/]+\/pods/)} — list ${count(/^GET \/api\/v1\/namespaces\/[^/]+\/pods$/)}, create ${count(/^POST .*\/pods$/)}, get ${count(/^GET .*\/pods\//)}, delete ${count(/^DELETE /)}; events: ${count(/ events$/)})`,
              `  registry requests: ${run.registry.length} (manifest GETs: ${run.registry.filter((r) => r.method === 'GET' && r.url.includes('/manifests/')).length})`,
            ].join('\n'),
          );
          // kubectl describe shows the staging's Event among the tick's.
          const described = stage.kubectl([
            'describe',
            'deployment',
            '-n',
            stage.release.namespaces.release,
            JOBS_MANAGER,
          ]);
          expect(described).toMatch(/Normal\s+RefreshStaging\s+/);
          await eventually('the jobs-manager pod on the staged build', async () => {
            const pods = Object.values(await stage.podImages(JOBS_MANAGER));
            return pods.length === 1 && pods[0]?.api === pinned(JM, jm) ? true : undefined;
          });
        },
        CHAPTER_MS,
      );
    });

    describeOnStoryRegistry(import.meta.url, 'the same re-image without the switches, for comparison', (world) => {
      let stage: RealStage;
      beforeAll(async () => {
        stage = await startRealStage(world.endpoint, { components: ['staging'] });
        await world.pushAll();
        expect((await stage.tick()).exitCode).toBe(0);
      }, CHAPTER_MS);
      afterAll(async () => {
        await stage?.close();
      });

      it(
        'switches at once: no pod request, no manifest GET',
        async () => {
          const token = world.registry.tokens.mint([`repository:${JM}:pull,push`]);
          await pushImage(world.registry.direct, JM, 'stg', { token, digestPrefix: SLOW_PULL_PREFIX });
          await world.push(RM);
          const run = await stage.tick();
          expect(run.exitCode).toBe(0);
          const requests = readable(stage, run);
          expect(requests.filter((r) => r.includes('/pods'))).toEqual([]);
          expect(run.registry.filter((r) => r.method === 'GET')).toEqual([]);
          console.log(
            `the same re-image without PREPULL and PLATFORM_CHECK: API requests: ${requests.length} (events: ${requests.filter((r) => r.endsWith(' events')).length}); registry requests: ${run.registry.length}`,
          );
        },
        CHAPTER_MS,
      );
    });

    describeOnStoryRegistry(import.meta.url, 'PREPULL with the shipped base alone (no staging component)', (world) => {
      let stage: RealStage;
      beforeAll(async () => {
        stage = await startRealStage(world.endpoint);
        await world.pushAll();
        expect((await stage.tick(STAGING_ON)).exitCode).toBe(0);
      }, CHAPTER_MS);
      afterAll(async () => {
        await stage?.close();
      });

      it(
        'is refused by RBAC: a WARN per workload naming the refusal, exit 0, nothing switched, no attempt spent',
        async () => {
          await world.push(JM);
          const before = await stage.bookkeeping();
          const images = await stage.images();
          const run = await stage.tick(STAGING_ON);
          expect(run.exitCode).toBe(0);
          expect(linesWith(run.stderr, 'WARN: could not stage docker.io/tracebloc/jobs-manager@')).toHaveLength(2);
          expect(theLine(run.stderr, 'for deployment/stg-jobs-manager')).toMatch(/Forbidden \(HTTP 403\)/);
          expect(await stage.bookkeeping()).toEqual(before);
          expect(await stage.images()).toEqual(images);
          expect(run.api.filter((r) => r.route === 'patch')).toEqual([]);
        },
        CHAPTER_MS,
      );
    });
  },
);
