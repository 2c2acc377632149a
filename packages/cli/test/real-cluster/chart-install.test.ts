import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, posix } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { controlPlane, controlPlaneMissing } from '../../../k8s-adapter/test/support/real-cluster/admin.js';
import { HELM, helm, IMAGE_VALUES, type Rendered, template } from '../chart/helm.js';
import { CHART_DIR } from '../chart/values-schema.js';
import { linesWith } from '../e2e/support/run-bundle.js';
import { describeOnStoryRegistry } from '../e2e/support/story-registry.js';
import type { RealStageRun } from './support/real-stage.js';
import { PREFIX, REPO, type ShopStage, startShopStage } from './support/shop-stage.js';

// docs/helm.md, told to a real control plane: the shop profile
// (charts/image-refresh/ci/shop-values.yaml) installed with `helm install`
// into namespaces of its own — every rendered object first validated by the
// apiserver (apply --dry-run=server), then the release; the ServiceAccount's
// token minted with `kubectl create token`; and a tick run as the CronJob
// would run it (the test control plane runs no Job controller and kwok's pods
// execute nothing): the installed CronJob's environment, the installed
// ConfigMap's profile at the path it names, that token and nothing else. It
// records a first observation, then re-images a new web build in web and
// worker. What the apiserver says the token may do is what the profile needs.

const CHAPTER_MS = 120_000;
const TAG = 'stable';
const RELEASE = 'image-refresh';
const PLACE = { shop: 'chart-shop', nodes: 'chart-shop-nodes' } as const;
const SHOP_VALUES = `${CHART_DIR}ci/shop-values.yaml`;
const SIX_VALUES = `${CHART_DIR}ci/six-workloads-values.yaml`;
const VENDOR_VALUES = `${CHART_DIR}values-tracebloc.yaml`;

const missing = controlPlaneMissing() ?? HELM.missing;

/** The shop's values, its profile moved into this story's namespaces. */
const valuesHere = (): Record<string, unknown> => {
  const values = parse(readFileSync(SHOP_VALUES, 'utf8')) as {
    profile: { workloads: { namespace: string }[] };
  };
  for (const workload of values.profile.workloads) {
    workload.namespace = workload.namespace === 'shop' ? PLACE.shop : PLACE.nodes;
  }
  return { ...values, ...IMAGE_VALUES };
};

const kubectlAs = (kubeconfig: string, home: string, args: readonly string[], input?: string): string =>
  execFileSync('kubectl', [...args], {
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', KUBECONFIG: kubeconfig, HOME: home },
    encoding: 'utf8',
    input,
    stdio: ['pipe', 'pipe', 'pipe'],
    timeout: 60_000,
  });

describe.skipIf(missing !== undefined)(
  `on a real control plane${missing === undefined ? '' : ` (skipped: ${missing})`}`,
  () => {
    describeOnStoryRegistry(
      import.meta.url,
      'the chart installs a profile of its own, and its tick re-images it',
      (world) => {
        let stage: ShopStage;
        const dir = mkdtempSync(join(tmpdir(), 'image-refresh-chart-install-'));
        const valuesFile = join(dir, 'values.yaml');
        let rendered: Rendered[] = [];
        let dryRun = '';
        let install = { code: -1, stdout: '', stderr: '', ms: 0 };
        const runs: RealStageRun[] = [];

        beforeAll(async () => {
          writeFileSync(valuesFile, JSON.stringify(valuesHere()));
          stage = await startShopStage(world.endpoint, TAG, {
            ...PLACE,
            serviceAccount: RELEASE,
            grant: (kubeconfig, home) => {
              const { objects, run } = template(RELEASE, PLACE.shop, [valuesFile]);
              expect(run.code, run.stderr).toBe(0);
              rendered = objects;
              // Every object the chart renders, judged by the apiserver's own validation and admission; none persisted.
              dryRun = kubectlAs(
                kubeconfig,
                home,
                ['apply', '--dry-run=server', '--validate=strict', '-f', '-'],
                run.stdout,
              );
              const began = Date.now();
              const installed = helm(['install', RELEASE, CHART_DIR, '--namespace', PLACE.shop, '-f', valuesFile], {
                KUBECONFIG: kubeconfig,
              });
              install = { ...installed, ms: Date.now() - began };
            },
            token: (kubeconfig, home) =>
              kubectlAs(kubeconfig, home, ['create', 'token', RELEASE, '-n', PLACE.shop, '--duration=1h']).trim(),
          });
          await world.registry.push(REPO.web, TAG);
          await world.registry.push(REPO.log, TAG);
          await world.registry.push(REPO.agent, TAG);
        }, CHAPTER_MS);
        afterAll(async () => {
          rmSync(dir, { recursive: true, force: true });
          if (stage !== undefined) {
            helm(['uninstall', RELEASE, '--namespace', PLACE.shop], { KUBECONFIG: controlPlane().kubeconfig });
          }
          await stage?.close();
        });

        /** The installed CronJob's environment and the installed ConfigMap's profile, written where the tick reads it. */
        const asTheCronJobRunsIt = async (): Promise<Record<string, string>> => {
          const read = async (what: string) => {
            const run = await stage.kubectl('admin', ['get', what, '-n', PLACE.shop, '-o', 'json']);
            expect(run.code, run.stderr).toBe(0);
            return JSON.parse(run.stdout);
          };
          const cronJob = await read(`cronjob/${RELEASE}`);
          const [container] = cronJob.spec.jobTemplate.spec.template.spec.containers as {
            env: { name: string; value: string }[];
            volumeMounts: { name: string; mountPath: string }[];
          }[];
          const env = Object.fromEntries((container?.env ?? []).map((e) => [e.name, e.value]));
          const path = env.IMAGE_REFRESH_PROFILE ?? '';
          const mount = container?.volumeMounts.find((m) => path.startsWith(`${m.mountPath}/`));
          const volume = cronJob.spec.jobTemplate.spec.template.spec.volumes.find(
            (v: { name: string }) => v.name === mount?.name,
          );
          const configMap = await read(`configmap/${volume.configMap.name}`);
          const file = join(dir, 'profile.yaml');
          writeFileSync(file, configMap.data[posix.relative(mount?.mountPath ?? '', path)]);
          return { ...env, IMAGE_REFRESH_PROFILE: file };
        };

        it('the apiserver admits every object the chart renders, and helm install creates exactly them', async () => {
          expect(install.code, install.stderr).toBe(0);
          expect(
            dryRun
              .trim()
              .split('\n')
              .map((line) => line.replace(/ created \(server dry run\)$/, ''))
              .sort(),
          ).toEqual(
            rendered
              .map(
                (o) =>
                  `${o.kind.toLowerCase()}${o.apiVersion.includes('/') ? `.${o.apiVersion.split('/')[0]}` : ''}/${o.metadata.name}`,
              )
              .sort(),
          );
          const inCluster = await stage.kubectl('admin', [
            'get',
            'cronjobs,configmaps,serviceaccounts,roles,rolebindings',
            '-n',
            PLACE.shop,
            '-l',
            `app.kubernetes.io/instance=${RELEASE}`,
            '-o',
            'name',
          ]);
          expect(inCluster.stdout.trim().split('\n').sort()).toEqual([
            `configmap/${RELEASE}-profile`,
            `cronjob.batch/${RELEASE}`,
            `role.rbac.authorization.k8s.io/${RELEASE}`,
            `rolebinding.rbac.authorization.k8s.io/${RELEASE}`,
            `serviceaccount/${RELEASE}`,
          ]);
          console.warn(`chart install: helm install ${install.ms} ms, ${rendered.length} objects`);
        });

        it(
          "a tick as the chart's ServiceAccount, with the installed CronJob's environment and profile: a first observation, then a new web build set in web and worker",
          async () => {
            const env = await asTheCronJobRunsIt();
            const first = await stage.tick(env);
            runs.push(first);
            expect(first.exitCode).toBe(0);
            expect(Object.keys(await stage.bookkeeping()).sort()).toEqual([
              `${PREFIX}/last-refreshed-agent-digest`,
              `${PREFIX}/last-refreshed-log-digest`,
              `${PREFIX}/last-refreshed-web-digest`,
            ]);
            const web = await world.registry.push(REPO.web, TAG);
            const began = Date.now();
            const drift = await stage.tick(env);
            const ms = Date.now() - began;
            runs.push(drift);
            expect(drift.exitCode).toBe(0);
            // The very tick the kustomize overlay's ServiceAccount makes (shop-story.test.ts): the same writes and re-images.
            expect(drift.stderr.at(-1)).toBe(
              '[image-refresh] summary: outcome=complete exit=0 findings=0 writes=3 (writeRefreshAttempt, clearFlapState, recordDigests) re-images=2 (deployment/web, deployment/worker) unresolved=0',
            );
            const images = await stage.images();
            expect(images.web.web).toBe(`docker.io/${REPO.web}@${web}`);
            expect(images.worker.worker).toBe(`docker.io/${REPO.web}@${web}`);
            expect((await stage.bookkeeping())[`${PREFIX}/last-refreshed-web-digest`]).toBe(web);
            console.warn(
              `chart install: re-imaging tick as the chart's ServiceAccount ${ms} ms, ${drift.api.length} API requests, ${drift.registry.length} registry requests`,
            );
          },
          CHAPTER_MS,
        );

        it('the default, the vendor values and six workloads in three namespaces: the apiserver admits every object each renders (apply --dry-run=server), none persisted', async () => {
          const six = parse(readFileSync(SIX_VALUES, 'utf8')) as { profile: { workloads: { namespace: string }[] } };
          const moved = new Map([
            ['apps', 'chart-apps'],
            ['data', 'chart-data'],
            ['nodes', 'chart-nodes'],
          ]);
          for (const workload of six.profile.workloads) workload.namespace = moved.get(workload.namespace) ?? '';
          const chartNamespaces = { RELEASE_NAMESPACE: PLACE.shop, NODE_AGENTS_NAMESPACE: PLACE.nodes };
          const renderings = {
            default: template('stg', PLACE.shop, [IMAGE_VALUES, { imageTag: 'prod', env: chartNamespaces }]),
            vendor: template('stg', PLACE.shop, [VENDOR_VALUES, IMAGE_VALUES, { env: chartNamespaces }]),
            six: template('ir', 'chart-apps', [{ ...six, ...IMAGE_VALUES }]),
          };
          for (const name of moved.values()) {
            expect((await stage.kubectl('admin', ['create', 'namespace', name])).code).toBe(0);
          }
          // Pod Security's restricted profile, as a warning on every namespace a CronJob lands in: the kustomize
          // base's security contexts, kept by the chart (a pod without them is warned about, so the check is live).
          for (const name of [PLACE.shop, 'chart-apps']) {
            const label = ['label', 'namespace', name, 'pod-security.kubernetes.io/warn=restricted', '--overwrite'];
            expect((await stage.kubectl('admin', label)).code).toBe(0);
          }
          const bare = await stage.kubectl('admin', [
            'run',
            'bare',
            '--image=registry.example/x',
            '-n',
            'chart-apps',
            '--dry-run=server',
          ]);
          expect(bare.stderr).toContain('would violate PodSecurity "restricted:latest"');
          try {
            for (const [name, { run, objects }] of Object.entries(renderings)) {
              expect(run.code, `${name}: ${run.stderr}`).toBe(0);
              const applied = await stage.kubectl(
                'admin',
                ['apply', '--dry-run=server', '--validate=strict', '-f', '-'],
                run.stdout,
              );
              expect(applied.code, `${name}: ${applied.stderr}`).toBe(0);
              const lines = applied.stdout.trim().split('\n');
              expect(lines, name).toHaveLength(objects.length);
              expect(
                lines.filter((line) => !line.endsWith(' created (server dry run)')),
                name,
              ).toEqual([]);
              expect(linesWith(applied.stderr.split('\n'), 'PodSecurity'), name).toEqual([]);
            }
            // In this story's namespaces (other files' releases share the cluster): only the installed one.
            const left = await stage.kubectl('admin', [
              'get',
              'cronjobs,configmaps,roles',
              '-A',
              '-o',
              'jsonpath={range .items[*]}{.kind}/{.metadata.namespace}/{.metadata.name}{"\\n"}{end}',
            ]);
            const ours = new Set<string>([PLACE.shop, PLACE.nodes, ...moved.values()]);
            expect(
              left.stdout
                .trim()
                .split('\n')
                .filter((line) => ours.has(line.split('/')[1] ?? '') && !line.endsWith('/kube-root-ca.crt'))
                .sort(),
            ).toEqual([
              `ConfigMap/${PLACE.shop}/${RELEASE}-profile`,
              `CronJob/${PLACE.shop}/${RELEASE}`,
              `Role/${PLACE.nodes}/${PLACE.shop}-${RELEASE}`,
              `Role/${PLACE.shop}/${RELEASE}`,
            ]);
          } finally {
            for (const name of moved.values())
              await stage.kubectl('admin', ['delete', 'namespace', name, '--wait=false']);
          }
        });

        it('kubectl auth can-i --list: the token may do what the profile needs, in each of its namespaces, and nothing more', async () => {
          expect(await stage.grants(PLACE.shop)).toEqual([
            'deployments.apps [] [web] [get patch]',
            'deployments.apps [] [worker] [get patch]',
            'events.events.k8s.io [] [] [create patch]',
          ]);
          expect(await stage.grants(PLACE.nodes)).toEqual(['daemonsets.apps [] [agent] [get patch]']);
          expect(await stage.grants('default')).toEqual([]);
          // And it was enough: no run met a refusal, no Event was lost.
          expect(runs).toHaveLength(2);
          for (const run of runs) {
            expect(linesWith(run.stderr, 'forbidden')).toEqual([]);
            expect(linesWith(run.stderr, 'could not record the Kubernetes Event')).toEqual([]);
          }
        });
      },
    );
  },
);
