import { AuthorizationV1Api, type V1ResourceRule } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asAdmin, controlPlaneMissing } from '../../../k8s-adapter/test/support/real-cluster/admin.js';
import { ATTEMPT, RECORD, RM } from '../e2e/support/chart-facts.js';
import { linesWith, theLine } from '../e2e/support/run-bundle.js';
import { type Builds, describeOnStoryRegistry } from '../e2e/support/story-registry.js';
import { type RealStage, startRealStage } from './support/real-stage.js';

// The shipped RBAC (packages/cli/deploy/) on a real apiserver: applied with
// `kubectl apply -k`, the ServiceAccount's token from the TokenRequest API,
// every command run with that token and nothing else. Enough: tick, status,
// rearm and --dry-run all pass. No more than enough: the apiserver's own
// account of what the token may do is exactly the two Roles. And each verb
// is needed: a Role without it fails the tick with a line naming the verb and
// the resource.

const STORY_MS = 90_000;
const JOBS_MANAGER = 'stg-jobs-manager';
const REQUESTS_PROXY = 'stg-requests-proxy';
const RESOURCE_MONITOR = 'stg-resource-monitor';
/** The API groups the Roles grant in; the rest of a rules review is the cluster's defaults for any authenticated user. */
const GRANTED_GROUPS = new Set(['', 'apps', 'events.k8s.io', 'batch']);

const missing = controlPlaneMissing();

/** What the token may do in `namespace`, as the apiserver says (SelfSubjectRulesReview), in the Roles' groups. */
const rulesOf = async (stage: RealStage, namespace: string): Promise<string[]> => {
  const review = await stage.release
    .kubeConfig()
    .makeApiClient(AuthorizationV1Api)
    .createSelfSubjectRulesReview({ body: { spec: { namespace } } });
  return (review.status?.resourceRules ?? [])
    .filter((rule: V1ResourceRule) => (rule.apiGroups ?? []).some((g) => GRANTED_GROUPS.has(g)))
    .map(
      (rule) =>
        `${(rule.apiGroups ?? []).join(',')} ${(rule.resources ?? []).join(',')} [${[...(rule.resourceNames ?? [])].sort().join(',')}] ${[...rule.verbs].sort().join(',')}`,
    )
    .sort();
};

describe.skipIf(missing !== undefined)(
  `on a real control plane${missing === undefined ? '' : ` (skipped: ${missing})`}`,
  () => {
    describeOnStoryRegistry(import.meta.url, "the shipped Roles are the tick's only rights", (world) => {
      describe('enough, and no more', () => {
        let stage: RealStage;
        let first: Builds;
        beforeAll(async () => {
          stage = await startRealStage(world.endpoint);
          first = await world.pushAll();
        }, STORY_MS);
        afterAll(async () => {
          await stage?.close();
        });

        it('the apiserver grants the token exactly the two Roles: get/patch on the three workloads by name, create/patch on events', async () => {
          const { release, agents } = stage.release.namespaces;
          expect(await rulesOf(stage, release)).toEqual([
            `apps deployments [${JOBS_MANAGER},${REQUESTS_PROXY}] get,patch`,
            'events.k8s.io events [] create,patch',
          ]);
          expect(await rulesOf(stage, agents)).toEqual([`apps daemonsets [${RESOURCE_MONITOR}] get,patch`]);
        });

        it(
          'tick (first install, then a drift of every image), --dry-run, status and rearm all pass as the ServiceAccount',
          async () => {
            const install = await stage.tick();
            expect(install.exitCode).toBe(0);
            const next = await world.pushAll();
            const dryRun = await stage.run(['tick', '--dry-run']);
            expect(dryRun.exitCode).toBe(0);
            // Reads and decides, persists nothing: every request it sent was a GET or a server-side dry run.
            expect(
              dryRun.api
                .filter((r) => r.method !== 'GET' && r.query.dryRun !== 'All')
                .map((r) => `${r.method} ${r.path}`),
            ).toEqual([]);
            expect(await stage.bookkeeping()).toMatchObject({ [RECORD.jm]: first.jm, [RECORD.rm]: first.rm });
            const drift = await stage.tick();
            expect(drift.exitCode).toBe(0);
            expect(await stage.bookkeeping()).toMatchObject({ [RECORD.jm]: next.jm, [RECORD.rm]: next.rm });
            const status = await stage.run(['status']);
            expect(status.exitCode).toBe(0);
            expect(theLine(status.stdout, `jobs-manager     deployment/${JOBS_MANAGER}`)).toContain(': settled');
            expect(theLine(status.stdout, `resource-monitor daemonset/${RESOURCE_MONITOR}`)).toContain(': settled');
            // A counted attempt for rearm to clear (a JSON patch, client-node's default).
            const attempt = { op: 'add', path: `/metadata/annotations/${ATTEMPT.replace('/', '~1')}`, value: '2' };
            await asAdmin().apps.patchNamespacedDeployment({
              name: JOBS_MANAGER,
              namespace: stage.release.namespaces.release,
              body: [attempt],
            });
            const rearm = await stage.run(['rearm']);
            expect(rearm.exitCode).toBe(0);
            expect(await stage.bookkeeping()).not.toHaveProperty(ATTEMPT);
            for (const run of [install, dryRun, drift, status, rearm]) {
              expect(linesWith([...run.stderr, ...run.stdout], 'forbidden')).toEqual([]);
            }
          },
          STORY_MS,
        );
      });

      describe('each verb is needed: a Role without it fails the tick, naming the verb and the resource', () => {
        const cases = [
          {
            removed: { resource: 'deployments', role: 'stg-image-refresh', rule: 0, verb: 'get' },
            when: 'the settled guard cannot read jobs-manager (not a benign skip, #571)',
            drift: false,
            line: 'not a benign skip',
          },
          {
            removed: { resource: 'deployments', role: 'stg-image-refresh', rule: 0, verb: 'patch' },
            when: 'a first install cannot record its digests',
            drift: false,
            line: 'could not record the new digests',
          },
          {
            removed: { resource: 'daemonsets', role: 'stg-image-refresh-node-agents', rule: 0, verb: 'patch' },
            when: 'a new resource-monitor build cannot be set on the DaemonSet',
            drift: true,
            line: 'daemonset/stg-resource-monitor',
          },
        ] as const;

        for (const c of cases) {
          it(
            `without ${c.removed.verb} on ${c.removed.resource}: ${c.when}`,
            async () => {
              const { resource, ...removed } = c.removed;
              const stage = await startRealStage(world.endpoint, { removeVerbs: [removed] });
              try {
                await world.pushAll();
                if (c.drift) {
                  expect((await stage.tick()).exitCode).toBe(0);
                  await world.push(RM);
                }
                const run = await stage.tick();
                expect(run.exitCode).toBe(1);
                // The line that says what the tick could not do names the refused verb and resource (a first
                // install's topology fingerprint, refused the same way, is a WARN of its own, §3.4c).
                expect(
                  theLine(linesWith(run.stderr, c.line), `cannot ${removed.verb} resource "${resource}"`),
                ).toContain(c.line);
                if (!c.drift) expect(await stage.bookkeeping()).not.toHaveProperty(RECORD.jm);
              } finally {
                await stage.close();
              }
            },
            STORY_MS,
          );
        }
      });
    });
  },
);
