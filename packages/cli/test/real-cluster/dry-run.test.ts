import {
  AdmissionregistrationV1Api,
  ApiException,
  AppsV1Api,
  PatchStrategy,
  RbacAuthorizationV1Api,
  setHeaderOptions,
} from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asAdmin, controlPlaneMissing, eventually } from '../../../k8s-adapter/test/support/real-cluster/admin.js';
import {
  type ServiceAccountAccess,
  startServiceAccountAccess,
} from '../../../k8s-adapter/test/support/real-cluster/service-account-access.js';
import { ATTEMPT, FLAP, JM, ON_TAG, pinned, RECORD } from '../e2e/support/chart-facts.js';
import { linesWith, runBundle, theLine } from '../e2e/support/run-bundle.js';
import { describeOnStoryRegistry } from '../e2e/support/story-registry.js';
import { type RealStage, type RealStageRun, STAGE_RUN_BOUND_MS, startRealStage } from './support/real-stage.js';

// `tick --dry-run` (docs/behaviour.md §3, "Dry run") on a real control plane:
// every write the tick would make goes to kube-apiserver with dryRun=All, so
// admission (a ValidatingAdmissionPolicy), authorization (the Roles) and the
// namespace are judged as they would judge the real write, and nothing is
// stored. One release of the chart (real-stage.ts), three stories told to it
// in turn, each a dry run next to the real tick it predicts: the same exit
// code, the same line (with its `dry-run: ` prefix), and after the dry run the
// objects exactly as they were — images, annotations, resourceVersions.

const STORY_MS = 90_000;
const JOBS_MANAGER = 'stg-jobs-manager';
const REQUESTS_PROXY = 'stg-requests-proxy';
/** The shipped Roles (deploy/role-release.yaml, deploy/role-node-agents.yaml), as real-release.ts applies them. */
const SHIPPED_ROLE = { release: 'stg-image-refresh', agents: 'stg-image-refresh-node-agents' } as const;
/** A second ServiceAccount of the release: the shipped Roles, but no `patch` on deployments (story 2). */
const NO_PATCH = 'stg-image-refresh-no-patch';
/** The server-side dry run's word for a write the API server accepted (core's dry-run.ts). */
const ACCEPTED = '(the API server accepted it as a dry run)';
/** Cluster-scoped, so named per run; it matches only this file's release namespace. */
const POLICY = `image-refresh-dry-run-freeze-${process.pid}`;
const FROZEN = 'the images of jobs-manager are frozen for a change window';

const missing = controlPlaneMissing();

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A real line as the dry run says it: every line of a dry run says it is one (docs/behaviour.md §3, Dry run). */
const asDryRun = (line: string): string => line.replace(/^\[image-refresh\] /, '[image-refresh] dry-run: ');

/** The writes a run sent (every request but a GET), as `METHOD Kind/name` and the dryRun it carried. */
const writesOf = (run: RealStageRun): [string, string | undefined][] =>
  run.api.filter((r) => r.method !== 'GET').map((r) => [`${r.method} ${r.kind}/${r.name}`, r.query.dryRun]);

/**
 * What the API server holds of the release: every workload's images,
 * jobs-manager's annotations, the three resourceVersions, and the Events
 * image-refresh recorded in the release namespace (`<type> <reason> ×<count>`).
 */
interface Held {
  readonly images: Record<string, Record<string, string>>;
  readonly annotations: Record<string, string>;
  readonly versions: string[];
  readonly events: string[];
}

describe.skipIf(missing !== undefined)(
  `on a real control plane${missing === undefined ? '' : ` (skipped: ${missing})`}`,
  () => {
    describeOnStoryRegistry(
      import.meta.url,
      'tick --dry-run sends every write as dryRun=All: it meets what the real tick would meet, and persists nothing',
      (world) => {
        let stage: RealStage;
        let noPatch: ServiceAccountAccess;
        let started = 0;
        const admission = () => asAdmin().kubeConfig.makeApiClient(AdmissionregistrationV1Api);
        const rbac = () => asAdmin().kubeConfig.makeApiClient(RbacAuthorizationV1Api);

        const held = async (): Promise<Held> => {
          const [jm, rp, rm, events] = await Promise.all([
            stage.release.jobsManager(),
            stage.release.requestsProxy(),
            stage.release.resourceMonitor(),
            asAdmin().events.listNamespacedEvent({ namespace: stage.release.namespaces.release }),
          ]);
          return {
            images: await stage.images(),
            annotations: jm.metadata?.annotations ?? {},
            versions: [jm, rp, rm].map((w) => w.metadata?.resourceVersion ?? ''),
            events: events.items
              .filter((e) => e.reportingController?.endsWith('/image-refresh'))
              .map((e) => `${e.type} ${e.reason} ×${e.series?.count ?? 1}`)
              .sort(),
          };
        };
        /** The release once the controllers have stopped writing it: two reads a second apart agree. */
        const atRest = () =>
          eventually('the release at rest', async () => {
            const before = await held();
            await sleep(1_000);
            const now = await held();
            return JSON.stringify(now) === JSON.stringify(before) ? now : undefined;
          });

        /** `tick --dry-run…` as the release's ServiceAccount, or as `access`'s; the last line is the dry run's summary. */
        const dryRun = async (
          mode: '--dry-run' | '--dry-run=client',
          overrides: Readonly<Record<string, string>> = {},
          access?: ServiceAccountAccess,
        ): Promise<RealStageRun> => {
          const run = await (access === undefined ? stage.run(['tick', mode], overrides) : runAs(access, [mode]));
          expect(run.stderr.at(-1)).toMatch(
            new RegExp(`^\\[image-refresh\\] dry-run summary: outcome=\\w+ exit=${run.exitCode} `),
          );
          return run;
        };
        /** The bundle as another ServiceAccount of the release (its token, through its own API proxy). */
        const runAs = async (access: ServiceAccountAccess, args: readonly string[]): Promise<RealStageRun> => {
          const from = access.proxy.requests.length;
          const run = await runBundle(
            ['tick', ...args],
            stage.env({ KUBECONFIG: access.kubeconfig.path }),
            STAGE_RUN_BOUND_MS,
          );
          return { ...run, api: access.proxy.requests.slice(from), registry: [] };
        };
        /** The real tick the dry run predicts: its summary is the dry run's, without the `dry-run ` word. */
        const realTickAfter = async (dry: RealStageRun, run: Promise<RealStageRun>): Promise<RealStageRun> => {
          const real = await run;
          expect(real.exitCode).toBe(dry.exitCode);
          expect(dry.stderr.at(-1)).toBe(real.stderr.at(-1)?.replace('] summary: ', '] dry-run summary: '));
          return real;
        };

        /** A set image of jobs-manager as the admin, sent as a dry run: refused while the policy is bound. */
        const policyRefuses = async (): Promise<boolean> => {
          try {
            await asAdmin().apps.patchNamespacedDeployment(
              {
                name: JOBS_MANAGER,
                namespace: stage.release.namespaces.release,
                body: { spec: { template: { spec: { containers: [{ name: 'api', image: 'docker.io/probe:1' }] } } } },
                dryRun: 'All',
              },
              setHeaderOptions('Content-Type', PatchStrategy.StrategicMergePatch),
            );
            return false;
          } catch (error) {
            if (error instanceof ApiException && String(error.body).includes(POLICY)) return true;
            throw error;
          }
        };

        beforeAll(async () => {
          started = Date.now();
          stage = await startRealStage(world.endpoint);
          await world.pushAll();
          const { release, agents } = stage.release.namespaces;
          // The policy (admission v1, CEL): jobs-manager's Deployment, in this release's namespace only, keeps every container's image.
          // Bound in the first story; cluster-scoped, so removed in afterAll whatever happens.
          await admission().createValidatingAdmissionPolicy({
            body: {
              metadata: { name: POLICY },
              spec: {
                failurePolicy: 'Fail',
                matchConstraints: {
                  namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': release } },
                  objectSelector: { matchLabels: { app: JOBS_MANAGER } },
                  resourceRules: [
                    { apiGroups: ['apps'], apiVersions: ['v1'], operations: ['UPDATE'], resources: ['deployments'] },
                  ],
                },
                validations: [
                  {
                    expression:
                      'object.spec.template.spec.containers.all(c, oldObject.spec.template.spec.containers.exists(o, o.name == c.name && o.image == c.image))',
                    message: FROZEN,
                  },
                ],
              },
            },
          });
          // The second ServiceAccount: the shipped release Role without `patch` on deployments, the agents' Role as shipped.
          await asAdmin().core.createNamespacedServiceAccount({
            namespace: release,
            body: { metadata: { name: NO_PATCH } },
          });
          const shipped = await rbac().readNamespacedRole({ name: SHIPPED_ROLE.release, namespace: release });
          await rbac().createNamespacedRole({
            namespace: release,
            body: {
              metadata: { name: NO_PATCH },
              rules: (shipped.rules ?? []).map((rule) =>
                rule.resources?.includes('deployments')
                  ? { ...rule, verbs: rule.verbs.filter((verb) => verb !== 'patch') }
                  : rule,
              ),
            },
          });
          for (const [namespace, role] of [
            [release, NO_PATCH],
            [agents, SHIPPED_ROLE.agents],
          ] as const) {
            await rbac().createNamespacedRoleBinding({
              namespace,
              body: {
                metadata: { name: NO_PATCH },
                roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: role },
                subjects: [{ kind: 'ServiceAccount', name: NO_PATCH, namespace: release }],
              },
            });
          }
          noPatch = await startServiceAccountAccess(release, NO_PATCH);
        }, STORY_MS);
        afterAll(async () => {
          await noPatch?.close();
          for (const remove of [
            () => admission().deleteValidatingAdmissionPolicyBinding({ name: POLICY }),
            () => admission().deleteValidatingAdmissionPolicy({ name: POLICY }),
          ]) {
            await remove().catch((error: unknown) => {
              if (!(error instanceof ApiException && error.code === 404)) throw error;
            });
          }
          await stage?.close();
          // The file's wall time, its setup (registry, namespaces, RBAC, three rollouts) and teardown included.
          console.warn(`dry-run on a real control plane: ${Date.now() - started} ms`);
        });

        it(
          "a ValidatingAdmissionPolicy that freezes jobs-manager's images: the dry run is refused by it (exit 1) and stores nothing, as the real tick is refused; unbound, the dry run is accepted and stores nothing, and the real tick re-images",
          async () => {
            const install = await stage.tick();
            expect(install.exitCode).toBe(0);
            await admission().createValidatingAdmissionPolicyBinding({
              body: { metadata: { name: POLICY }, spec: { policyName: POLICY, validationActions: ['Deny'] } },
            });
            await eventually('the policy in force', async () => ((await policyRefuses()) ? true : undefined));
            const second = await world.push(JM);
            const before = await atRest();

            const dry = await dryRun('--dry-run');
            expect(dry.exitCode).toBe(1);
            const refusal = theLine(dry.stderr, `dry-run: ERROR: set image on deployment/${JOBS_MANAGER} failed`);
            expect(refusal).toMatch(
              /^\[image-refresh\] dry-run: ERROR: set image on deployment\/stg-jobs-manager failed \(/,
            );
            expect(refusal).toContain(
              `ValidatingAdmissionPolicy '${POLICY}' with binding '${POLICY}' denied request: ${FROZEN}`,
            );
            // Both writes went to the API server, each as a dry run: the attempt's annotation (accepted) and the set image (refused).
            expect(writesOf(dry)).toEqual([
              [`PATCH Deployment/${JOBS_MANAGER}`, 'All'],
              [`PATCH Deployment/${JOBS_MANAGER}`, 'All'],
            ]);
            expect(linesWith(dry.stderr, ACCEPTED)).toEqual([
              `[image-refresh]   dry-run: would annotate deployment/${JOBS_MANAGER} -n ${stage.release.namespaces.release} ${ATTEMPT}=1 ${ACCEPTED}`,
            ]);
            expect(await atRest()).toEqual(before);

            const refused = await realTickAfter(dry, stage.tick());
            expect(asDryRun(theLine(refused.stderr, `] ERROR: set image on deployment/${JOBS_MANAGER} failed`))).toBe(
              refusal,
            );
            // The real tick spent its attempt before the refusal (docs/behaviour.md §3.6) and recorded the
            // Event the dry run only said: what the dry run spared.
            expect(theLine(dry.stderr, 'would record the Warning Event')).toContain('RefreshRolloutFailed');
            const after = await held();
            expect(after.annotations).toEqual({ ...before.annotations, [ATTEMPT]: '1' });
            expect(after.images).toEqual(ON_TAG);
            expect(after.events).toEqual([...before.events, 'Warning RefreshRolloutFailed ×1'].sort());

            await admission().deleteValidatingAdmissionPolicyBinding({ name: POLICY });
            await eventually('the policy unbound', async () => ((await policyRefuses()) ? undefined : true));
            const unbound = await atRest();
            const accepted = await dryRun('--dry-run');
            expect(accepted.exitCode).toBe(0);
            const jm = pinned(JM, second);
            const { release } = stage.release.namespaces;
            expect(linesWith(accepted.stderr, ACCEPTED)).toEqual([
              `[image-refresh]   dry-run: would annotate deployment/${JOBS_MANAGER} -n ${release} ${ATTEMPT}=2 ${ACCEPTED}`,
              `[image-refresh]   dry-run: would set image deployment/${JOBS_MANAGER} -n ${release} api=${jm} ${ACCEPTED}`,
              `[image-refresh]   dry-run: would set image deployment/${REQUESTS_PROXY} -n ${release} proxy=${jm} ${ACCEPTED}`,
              `[image-refresh]   dry-run: would annotate deployment/${JOBS_MANAGER} -n ${release} ${ATTEMPT}- ${FLAP}- ${ACCEPTED}`,
              `[image-refresh]   dry-run: would annotate deployment/${JOBS_MANAGER} -n ${release} ${RECORD.jm}=${second} ${ACCEPTED}`,
            ]);
            expect(writesOf(accepted)).toEqual([
              [`PATCH Deployment/${JOBS_MANAGER}`, 'All'],
              [`PATCH Deployment/${JOBS_MANAGER}`, 'All'],
              [`PATCH Deployment/${REQUESTS_PROXY}`, 'All'],
              [`PATCH Deployment/${JOBS_MANAGER}`, 'All'],
              [`PATCH Deployment/${JOBS_MANAGER}`, 'All'],
            ]);
            expect(await atRest()).toEqual(unbound);

            const reimaged = await realTickAfter(accepted, stage.tick());
            expect(reimaged.exitCode).toBe(0);
            expect(await stage.images()).toEqual({
              ...ON_TAG,
              [JOBS_MANAGER]: { ...ON_TAG[JOBS_MANAGER], api: jm },
              [REQUESTS_PROXY]: { proxy: jm },
            });
            expect(await stage.bookkeeping()).toMatchObject({ [RECORD.jm]: second });
            expect(await stage.bookkeeping()).not.toHaveProperty(ATTEMPT);
          },
          STORY_MS,
        );

        it(
          'a ServiceAccount whose Role lacks patch on deployments: on a drift the dry run is Forbidden naming the verb (exit 1), as the real tick is; --dry-run=client sends no write and passes',
          async () => {
            await eventually('the second ServiceAccount may read jobs-manager', async () =>
              (await noPatch
                .kubeConfig()
                .makeApiClient(AppsV1Api)
                .readNamespacedDeployment({ name: JOBS_MANAGER, namespace: stage.release.namespaces.release }))
                ? true
                : undefined,
            );
            const third = await world.push(JM);
            const before = await atRest();

            const dry = await dryRun('--dry-run', {}, noPatch);
            expect(dry.exitCode).toBe(1);
            const refusal = theLine(dry.stderr, `dry-run: ERROR: could not persist ${ATTEMPT}=`);
            expect(refusal).toMatch(/^\[image-refresh\] dry-run: ERROR: could not persist /);
            expect(refusal).toContain(
              `Forbidden (HTTP 403): PATCH (annotations) deployment/${JOBS_MANAGER} in ${stage.release.namespaces.release}:`,
            );
            expect(refusal).toContain(
              `User "system:serviceaccount:${stage.release.namespaces.release}:${NO_PATCH}" cannot patch resource "deployments" in API group "apps"`,
            );
            expect(writesOf(dry)).toEqual([[`PATCH Deployment/${JOBS_MANAGER}`, 'All']]);
            expect(await atRest()).toEqual(before);

            const client = await dryRun('--dry-run=client', {}, noPatch);
            expect(client.exitCode).toBe(0);
            expect(writesOf(client)).toEqual([]);
            expect(theLine(client.stderr, `would set image deployment/${JOBS_MANAGER}`)).toBe(
              `[image-refresh]   dry-run: would set image deployment/${JOBS_MANAGER} -n ${stage.release.namespaces.release} api=${pinned(JM, third)}`,
            );
            expect(linesWith(client.stderr, 'forbidden')).toEqual([]);
            expect(await atRest()).toEqual(before);

            const real = await realTickAfter(dry, runAs(noPatch, []));
            expect(asDryRun(theLine(real.stderr, `] ERROR: could not persist ${ATTEMPT}=`))).toBe(refusal);
            // Refused as well, the real tick changed no workload; it recorded the Event the dry run only said.
            expect(theLine(dry.stderr, 'would record the Warning Event')).toContain('RefreshBookkeepingWriteFailed');
            expect(await atRest()).toEqual({
              ...before,
              events: [...before.events, 'Warning RefreshBookkeepingWriteFailed ×1'].sort(),
            });
          },
          STORY_MS,
        );

        it(
          'RELEASE_NAMESPACE names a namespace that does not exist: the dry run cannot read the Deployment (exit 1) and its hint names both causes, as the real tick does',
          async () => {
            const typo = `${stage.release.namespaces.release}x`;
            await expect(asAdmin().core.readNamespace({ name: typo })).rejects.toMatchObject({ code: 404 });
            const before = await atRest();

            const dry = await dryRun('--dry-run', { RELEASE_NAMESPACE: typo });
            expect(dry.exitCode).toBe(1);
            const unreadable = theLine(dry.stderr, 'dry-run: ERROR: cannot read deployment/');
            expect(unreadable).toMatch(
              new RegExp(
                `^\\[image-refresh\\] dry-run: ERROR: cannot read deployment/${JOBS_MANAGER} \\(Forbidden \\(HTTP 403\\): GET deployment/${JOBS_MANAGER} in ${typo}: .*\\) -- not a benign skip; failing the tick so it is visible$`,
              ),
            );
            expect(unreadable).toContain(
              `cannot get resource "deployments" in API group "apps" in the namespace "${typo}"`,
            );
            expect(theLine(dry.stderr, 'is not the namespace')).toBe(
              `[image-refresh]   dry-run: either ${typo} is not the namespace deployment/${JOBS_MANAGER} runs in (a typo: RELEASE_NAMESPACE, or the profile's namespace), or the ServiceAccount may not get deployments.apps there`,
            );
            expect(writesOf(dry)).toEqual([]);

            const real = await realTickAfter(dry, stage.tick({ RELEASE_NAMESPACE: typo }));
            expect(asDryRun(theLine(real.stderr, '] ERROR: cannot read deployment/'))).toBe(unreadable);
            expect(await atRest()).toEqual(before);
          },
          STORY_MS,
        );
      },
    );
  },
);
