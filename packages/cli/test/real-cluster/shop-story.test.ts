import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, posix } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { controlPlaneMissing, eventually } from '../../../k8s-adapter/test/support/real-cluster/admin.js';
import { pinned, withoutPrefix } from '../e2e/support/chart-facts.js';
import { linesWith, theLine } from '../e2e/support/run-bundle.js';
import { describeOnStoryRegistry } from '../e2e/support/story-registry.js';
import type { RealStageRun } from './support/real-stage.js';
import {
  PREFIX,
  REPO,
  recordedSince,
  SHOP,
  SHOP_NODES,
  type ShopObjects,
  type ShopStage,
  type StoredEvent,
  startShopStage,
} from './support/shop-stage.js';

// A topology of one's own, told to what ships and to a real control plane:
// the shop of packages/cli/examples/shop.yaml (docs/profiles.md) — a
// two-container web Deployment that gates the tick and keeps the bookkeeping,
// a worker on the web image, an agent DaemonSet in another namespace — and
// the bundled CLI as the ServiceAccount of examples/shop-rbac.yaml, whose
// Roles are its only rights. One shop, chapter after chapter: the overlay of
// examples/shop-kustomize that makes it a CronJob, dry-run on the apiserver,
// and a tick dry-run with that CronJob's environment → first observation → a
// new web build, set in web and worker → an agent build that is never Ready,
// rolled back by the real DaemonSet controller and quarantined
// (docs/behaviour.md §3.6) → a container someone set to another image: a
// finding, nothing written (§3.4c) → what the apiserver says the token may do.
// Assertions: exit codes, what the apiserver holds, what the pods run, the
// Events it recorded, the requests the tick sent (through the API proxy),
// and the one line that matters.

const CHAPTER_MS = 90_000;
/** The tag the shop's deploy runs and the profile follows (IMAGE_TAG). */
const TAG = 'stable';
const RECORD = {
  web: `${PREFIX}/last-refreshed-web-digest`,
  log: `${PREFIX}/last-refreshed-log-digest`,
  agent: `${PREFIX}/last-refreshed-agent-digest`,
} as const;
const ATTEMPT = `${PREFIX}/refresh-attempt`;
const QUARANTINE_AGENT = `${PREFIX}/quarantined-agent-digest`;
const NGINX = 'docker.io/library/nginx:1.27';
/** Every container as the shop's deploy renders it: repo:tag. */
const ON_TAG = {
  web: { web: `docker.io/${REPO.web}:${TAG}`, log: `docker.io/${REPO.log}:${TAG}` },
  worker: { worker: `docker.io/${REPO.web}:${TAG}` },
  agent: { agent: `docker.io/${REPO.agent}:${TAG}` },
};

/** The overlay docs/profiles.md walks through ("From a profile to a running CronJob"). */
const OVERLAY = new URL('../../examples/shop-kustomize', import.meta.url).pathname;

/** What this file reads of the overlay's rendering. */
interface Rendered {
  kind: string;
  metadata: { name: string; namespace?: string };
  data?: Record<string, string>;
  spec?: {
    jobTemplate: {
      spec: {
        template: {
          spec: {
            containers: { env?: { name: string; value?: string }[]; volumeMounts?: { mountPath: string }[] }[];
          };
        };
      };
    };
  };
}

const missing = controlPlaneMissing();

/** The container-setting PATCHes of a run, in order: `kind/name` and the containers each set. */
const imagePatches = (run: RealStageRun): [string, unknown][] =>
  run.api
    .filter((r) => r.route === 'patch' && r.body.includes('"containers"'))
    .map((r) => [`${r.kind}/${r.name}`, JSON.parse(r.body).spec.template.spec.containers]);

const reasons = (events: readonly StoredEvent[]): string[] => events.map((e) => `${e.type} ${e.reason}`);

const versions = (o: ShopObjects): string[] => [o.web, o.worker, o.agent].map((w) => w.metadata?.resourceVersion ?? '');

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.skipIf(missing !== undefined)(
  `on a real control plane${missing === undefined ? '' : ` (skipped: ${missing})`}`,
  () => {
    describeOnStoryRegistry(
      import.meta.url,
      'the shop profile: the bundled CLI follows a topology of its own, as the ServiceAccount of shop-rbac.yaml',
      (world) => {
        let stage: ShopStage;
        let started = 0;
        const first = { web: '', log: '', agent: '' };
        let secondWeb = '';
        let neverReady = '';
        /** Every run of the story: each is checked for a refusal by the Roles. */
        const runs: RealStageRun[] = [];
        const tick = async () => {
          const run = await stage.tick();
          runs.push(run);
          return run;
        };
        const push = (repo: string) => world.registry.push(repo, TAG);
        /** The three objects once the controllers have stopped writing them: two reads a second apart agree. */
        const atRest = () =>
          eventually('the shop at rest', async () => {
            const before = versions(await stage.objects());
            await sleep(1_000);
            const now = await stage.objects();
            return JSON.stringify(versions(now)) === JSON.stringify(before) ? now : undefined;
          });

        beforeAll(async () => {
          started = Date.now();
          stage = await startShopStage(world.endpoint, TAG);
          first.web = await push(REPO.web);
          first.log = await push(REPO.log);
          first.agent = await push(REPO.agent);
        }, CHAPTER_MS);
        afterAll(async () => {
          await stage?.close();
          // The story's wall time, its setup (namespaces, RBAC, three rollouts) and teardown included.
          console.warn(`shop story: ${Date.now() - started} ms`);
        });

        it("examples/shop-kustomize: the apiserver accepts all it renders (apply -k --dry-run=server); with its CronJob's environment and profile, tick --dry-run warns of nothing and status finds the shop settled", async () => {
          const rendered = await stage.kubectl('admin', ['kustomize', OVERLAY]);
          expect(rendered.code, rendered.stderr).toBe(0);
          const objects = parseAllDocuments(rendered.stdout).map((document) => document.toJS() as Rendered);
          const configMap = objects.find((o) => o.kind === 'ConfigMap');
          const applied = await stage.kubectl('admin', [
            'apply',
            '-k',
            OVERLAY,
            '--dry-run=server',
            '--validate=strict',
          ]);
          expect(applied.code, applied.stderr).toBe(0);
          // One line per object, each validated by the apiserver and admitted, none persisted. The shop's
          // ServiceAccount and Roles are already there, as shop-rbac.yaml made them: the overlay's are the same.
          expect(applied.stdout.trim().split('\n').sort()).toEqual([
            `configmap/${configMap?.metadata.name} created (server dry run)`,
            'cronjob.batch/image-refresh created (server dry run)',
            'role.rbac.authorization.k8s.io/image-refresh unchanged (server dry run)',
            'role.rbac.authorization.k8s.io/image-refresh unchanged (server dry run)',
            'rolebinding.rbac.authorization.k8s.io/image-refresh unchanged (server dry run)',
            'rolebinding.rbac.authorization.k8s.io/image-refresh unchanged (server dry run)',
            'serviceaccount/image-refresh unchanged (server dry run)',
          ]);
          const left = await stage.kubectl('admin', ['get', 'cronjobs,configmaps', '-n', SHOP, '-o', 'name']);
          expect(left.stdout.trim().split('\n')).toEqual(['configmap/kube-root-ca.crt']);

          // The tick the CronJob would run: its environment, and the ConfigMap's profile at the path it names.
          const container = objects.find((o) => o.kind === 'CronJob')?.spec?.jobTemplate.spec.template.spec
            .containers[0];
          const env = Object.fromEntries((container?.env ?? []).map((e) => [e.name, e.value ?? '']));
          const path = env.IMAGE_REFRESH_PROFILE ?? '';
          const mount = container?.volumeMounts?.find((m) => path.startsWith(`${m.mountPath}/`));
          expect(mount, `IMAGE_REFRESH_PROFILE=${path} is in no volume the container mounts`).toBeDefined();
          const file = posix.relative(mount?.mountPath ?? '', path);
          const dir = mkdtempSync(join(tmpdir(), 'image-refresh-shop-kustomize-'));
          try {
            const profile = join(dir, file);
            writeFileSync(profile, configMap?.data?.[file] ?? '');
            const run = await stage.run(['tick', '--dry-run'], { ...env, IMAGE_REFRESH_PROFILE: profile });
            expect(run.exitCode).toBe(0);
            // No chart variable left to ignore (VARIABLES_IGNORED), no misspelling, no refusal.
            expect(linesWith(run.stderr, 'WARN')).toEqual([]);
            expect(theLine(run.stderr, 'dry-run: profile')).toBe(
              `[image-refresh] dry-run: profile ${profile}: bookkeeping under ${PREFIX}/ on deployment/web in ${SHOP}`,
            );
            expect(
              run.api.filter((r) => r.method !== 'GET' && r.query.dryRun !== 'All').map((r) => `${r.method} ${r.path}`),
            ).toEqual([]);
            expect(await stage.bookkeeping()).toEqual({});
            // And what docs/profiles.md says to watch it with: status, as the ServiceAccount, from the same two.
            const status = await stage.run(['status'], { ...env, IMAGE_REFRESH_PROFILE: profile });
            expect(status.exitCode).toBe(0);
            expect(status.stdout[0]).toMatch(new RegExp(`^image-refresh status: deployment/web in ${SHOP} `));
            for (const workload of ['deployment/web', 'deployment/worker', 'daemonset/agent']) {
              expect(theLine(status.stdout, `${workload}: `)).toContain(`${workload}: settled: `);
            }
            expect(linesWith([...status.stdout, ...status.stderr], 'forbidden')).toEqual([]);
          } finally {
            rmSync(dir, { recursive: true, force: true });
          }
        });

        it('first observation: the three digests recorded on the web Deployment, no container changed', async () => {
          const events = await stage.events();
          const run = await tick();
          expect(run.exitCode).toBe(0);
          expect(linesWith(run.stderr, 'first observation; recording without re-imaging')).toHaveLength(3);
          expect(run.stderr.at(-1)).toBe(
            '[image-refresh] summary: outcome=complete exit=0 findings=0 writes=2 (recordTopologyFingerprint, recordDigests) re-images=0 unresolved=0',
          );
          // The profile alone names the topology: no chart variable to ignore, nothing to warn about.
          expect(linesWith(run.stderr, 'WARN')).toEqual([]);
          expect(await stage.bookkeeping()).toEqual({
            [RECORD.web]: first.web,
            [RECORD.log]: first.log,
            [RECORD.agent]: first.agent,
          });
          expect(await stage.images()).toEqual(ON_TAG);
          expect(imagePatches(run)).toEqual([]);
          expect(recordedSince(events, await stage.events())).toEqual([]);
        });

        it(
          'a new web build: set by digest in web and worker, the log container untouched, the record moved; the pods run it',
          async () => {
            const events = await stage.events();
            secondWeb = await push(REPO.web);
            const began = Date.now();
            const run = await tick();
            // Beside the chart's ServiceAccount doing the same (chart-install.test.ts; README, Benchmarks).
            console.warn(
              `shop story: re-imaging tick as shop-rbac.yaml's ServiceAccount ${Date.now() - began} ms, ${run.api.length} API requests, ${run.registry.length} registry requests`,
            );
            expect(run.exitCode).toBe(0);
            const web = pinned(REPO.web, secondWeb);
            expect(theLine(run.stderr, 'set image deployment/web:')).toBe(
              `[image-refresh] set image deployment/web: web=${web}`,
            );
            expect(run.stderr.at(-1)).toBe(
              '[image-refresh] summary: outcome=complete exit=0 findings=0 writes=3 (writeRefreshAttempt, clearFlapState, recordDigests) re-images=2 (deployment/web, deployment/worker) unresolved=0',
            );
            // One patch per workload, naming only the containers that run the web image.
            expect(imagePatches(run)).toEqual([
              ['Deployment/web', [{ name: 'web', image: web }]],
              ['Deployment/worker', [{ name: 'worker', image: web }]],
            ]);
            expect(await stage.images()).toEqual({
              web: { web, log: ON_TAG.web.log },
              worker: { worker: web },
              agent: ON_TAG.agent,
            });
            expect(await stage.bookkeeping()).toEqual({
              [RECORD.web]: secondWeb,
              [RECORD.log]: first.log,
              [RECORD.agent]: first.agent,
            });
            expect(reasons(recordedSince(events, await stage.events()))).toEqual(['Normal RefreshReimaged']);
            await eventually('the web and worker pods on the new build', async () => {
              const pods = {
                web: Object.values(await stage.podImages('web')),
                worker: Object.values(await stage.podImages('worker')),
              };
              const on =
                JSON.stringify(pods.web) === JSON.stringify([{ web, log: ON_TAG.web.log }]) &&
                JSON.stringify(pods.worker) === JSON.stringify([{ worker: web }]);
              return on ? true : undefined;
            });
          },
          CHAPTER_MS,
        );

        it(
          'an agent build that is never Ready: ROLLED BACK to the recorded digest by the real DaemonSet controller (exit 1), quarantined',
          async () => {
            const events = await stage.events();
            neverReady = await world.registry.pushNeverReady(REPO.agent, TAG);
            expect(neverReady).toMatch(/^sha256:dead/);
            const run = await tick();
            expect(run.exitCode).toBe(1);
            expect(theLine(run.stderr, 'ROLLED BACK')).toMatch(
              new RegExp(
                `^\\[image-refresh\\] ROLLED BACK daemonset/agent from ${neverReady} to ${first.agent}: its rollout did not complete within ROLLOUT_TIMEOUT=`,
              ),
            );
            const recorded = pinned(REPO.agent, first.agent);
            // There and back: the never-ready build, then the recorded digest (§3.6).
            expect(imagePatches(run)).toEqual([
              ['DaemonSet/agent', [{ name: 'agent', image: pinned(REPO.agent, neverReady) }]],
              ['DaemonSet/agent', [{ name: 'agent', image: recorded }]],
            ]);
            expect(await stage.images()).toEqual({
              web: { web: pinned(REPO.web, secondWeb), log: ON_TAG.web.log },
              worker: { worker: pinned(REPO.web, secondWeb) },
              agent: { agent: recorded },
            });
            expect(await stage.bookkeeping()).toEqual({
              [RECORD.web]: secondWeb,
              [RECORD.log]: first.log,
              [RECORD.agent]: first.agent,
              [QUARANTINE_AGENT]: neverReady,
              [ATTEMPT]: '1',
            });
            expect(reasons(recordedSince(events, await stage.events()))).toEqual([
              'Normal RefreshQuarantined',
              'Warning RefreshRolledBack',
              'Warning RefreshRolloutFailed',
            ]);
            await eventually('both agent pods back on the recorded build, the never-ready one gone', async () => {
              const pods = Object.values(await stage.podImages('agent'));
              return pods.length === 2 && pods.every((p) => p.agent === recorded) ? true : undefined;
            });
          },
          CHAPTER_MS,
        );

        it(
          'the log container set to nginx by hand, then a new log build: FOREIGN (exit 1), nothing patched or recorded, a Warning RefreshForeignImage',
          async () => {
            await stage.humanSetsImage('web', 'log', NGINX);
            await stage.settled();
            await push(REPO.log);
            const before = await atRest();
            const events = await stage.events();
            const run = await tick();
            expect(run.exitCode).toBe(1);
            const line = theLine(run.stderr, `runs ${NGINX}`);
            expect(line).toBe(
              `[image-refresh] ERROR: deployment/web in ${SHOP} container log runs ${NGINX}, not docker.io/${REPO.log} (at ${TAG} or a digest), which the profile says it follows (image "log"); nothing is re-imaged or recorded this tick`,
            );
            expect(run.stderr.at(-1)).toBe(
              '[image-refresh] summary: outcome=foreignImage exit=1 findings=1 writes=0 re-images=0 unresolved=0',
            );
            // On the wire: reads, and the Event; no write to any workload.
            expect(run.api.filter((r) => r.method !== 'GET' && r.route !== 'event')).toEqual([]);
            const after = await stage.objects();
            expect(versions(after)).toEqual(versions(before));
            expect(after.web.metadata?.annotations).toEqual(before.web.metadata?.annotations);
            expect(await stage.images()).toEqual({
              web: { web: pinned(REPO.web, secondWeb), log: NGINX },
              worker: { worker: pinned(REPO.web, secondWeb) },
              agent: { agent: pinned(REPO.agent, first.agent) },
            });
            const recorded = recordedSince(events, await stage.events());
            expect(recorded.map((e) => [e.type, e.reason, e.note])).toEqual([
              ['Warning', 'RefreshForeignImage', withoutPrefix(line)],
            ]);
          },
          CHAPTER_MS,
        );

        it("the token may do exactly what the profile needs, in the profile's two namespaces, and nothing elsewhere", async () => {
          expect(await stage.grants(SHOP)).toEqual([
            // kubectl prints one row per resource name.
            'deployments.apps [] [web] [get patch]',
            'deployments.apps [] [worker] [get patch]',
            'events.events.k8s.io [] [] [create patch]',
          ]);
          expect(await stage.grants(SHOP_NODES)).toEqual(['daemonsets.apps [] [agent] [get patch]']);
          expect(await stage.grants('default')).toEqual([]);
          const answers: Record<string, string> = {};
          for (const question of [
            ['get', 'deployments', '-n', 'default'],
            ['get', 'deployments/web', '-n', SHOP],
            ['list', 'deployments', '-n', SHOP],
            ['get', 'pods', '-n', SHOP],
            ['patch', 'daemonsets/agent', '-n', SHOP_NODES],
            ['create', 'events.events.k8s.io', '-n', SHOP_NODES],
            ['get', 'deployments', '--all-namespaces'],
          ]) {
            answers[question.join(' ')] = (
              await stage.kubectl('serviceAccount', ['auth', 'can-i', ...question])
            ).stdout.trim();
          }
          expect(answers).toEqual({
            'get deployments -n default': 'no',
            'get deployments/web -n shop': 'yes',
            'list deployments -n shop': 'no',
            'get pods -n shop': 'no',
            'patch daemonsets/agent -n shop-nodes': 'yes',
            'create events.events.k8s.io -n shop-nodes': 'no',
            'get deployments --all-namespaces': 'no',
          });
          // And it was enough: no run of the story met a refusal, no Event was lost.
          expect(runs).toHaveLength(4);
          for (const run of runs) {
            expect(linesWith(run.stderr, 'forbidden')).toEqual([]);
            expect(linesWith(run.stderr, 'could not record the Kubernetes Event')).toEqual([]);
          }
        });
      },
    );
  },
);
