import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asAdmin, controlPlane, controlPlaneMissing } from '../../../k8s-adapter/test/support/real-cluster/admin.js';
import { HELM, helm, IMAGE_VALUES } from '../chart/helm.js';
import { CHART_DIR } from '../chart/values-schema.js';

// docs/helm.md, "Moving from the kustomize base": an install of the shipped
// base (packages/cli/deploy, applied as it ships, in its own namespaces)
// handed to a Helm release without deleting anything — the objects marked as
// the release's, `helm install` with values-tracebloc.yaml over them, the one
// Role whose name differs removed. The same objects (their uids) carry on:
// the ServiceAccount, so the tokens of Jobs already running stay valid, and
// the CronJob, so its schedule's history is kept.

const RELEASE = 'stg';
const NAMESPACE = 'tracebloc';
const AGENTS = 'tracebloc-node-agents';
const DEPLOY = new URL('../../deploy', import.meta.url).pathname;
const VENDOR = `${CHART_DIR}values-tracebloc.yaml`;
/** The base's objects in the release namespace that the chart renders under the same names. */
const ADOPTED = [
  'cronjob/stg-image-refresh',
  'serviceaccount/stg-image-refresh',
  'role/stg-image-refresh',
  'rolebinding/stg-image-refresh',
];

const missing = controlPlaneMissing() ?? HELM.missing;

describe.skipIf(missing !== undefined)(
  `on a real control plane${missing === undefined ? '' : ` (skipped: ${missing})`}`,
  () => {
    describe('moving an install from the kustomize base to the chart, in place', () => {
      const home = mkdtempSync(join(tmpdir(), 'image-refresh-chart-migration-'));
      const kubectl = (args: readonly string[]) => {
        const run = spawnSync('kubectl', [...args], {
          env: { PATH: process.env.PATH ?? '', KUBECONFIG: controlPlane().kubeconfig, HOME: home },
          encoding: 'utf8',
          timeout: 60_000,
        });
        return { code: run.status ?? -1, stdout: run.stdout, stderr: run.stderr };
      };
      const uidOf = (object: string, namespace = NAMESPACE) =>
        kubectl(['get', object, '-n', namespace, '-o', 'jsonpath={.metadata.uid}']).stdout;
      const envOf = () =>
        JSON.parse(
          kubectl([
            'get',
            'cronjob/stg-image-refresh',
            '-n',
            NAMESPACE,
            '-o',
            'jsonpath={.spec.jobTemplate.spec.template.spec.containers[0].env}',
          ]).stdout,
        ) as { name: string; value: string }[];
      const before: Record<string, string> = {};
      let baseEnv: { name: string; value: string }[] = [];

      beforeAll(async () => {
        for (const name of [NAMESPACE, AGENTS]) {
          await asAdmin().core.createNamespace({
            body: { metadata: { name, labels: { 'image-refresh.test/real-cluster': 'true' } } },
          });
        }
        const applied = kubectl(['apply', '-k', DEPLOY]);
        expect(applied.code, applied.stderr).toBe(0);
        for (const object of ADOPTED) before[object] = uidOf(object);
        baseEnv = envOf();
      }, 60_000);
      afterAll(async () => {
        helm(['uninstall', RELEASE, '--namespace', NAMESPACE], { KUBECONFIG: controlPlane().kubeconfig });
        for (const name of [NAMESPACE, AGENTS]) await asAdmin().core.deleteNamespace({ name });
        rmSync(home, { recursive: true, force: true });
      });

      it("the documented steps: mark the base's objects as the release's, helm install over them, remove the Role the chart names otherwise; the same objects carry on", () => {
        // 1. Helm adopts an object that carries its release's marks.
        expect(kubectl(['-n', NAMESPACE, 'label', ...ADOPTED, 'app.kubernetes.io/managed-by=Helm']).code).toBe(0);
        const marks = [`meta.helm.sh/release-name=${RELEASE}`, `meta.helm.sh/release-namespace=${NAMESPACE}`];
        expect(kubectl(['-n', NAMESPACE, 'annotate', ...ADOPTED, ...marks]).code).toBe(0);
        // 2. The release, with the vendor's values. Helm 4 applies server-side, and kubectl's apply owns
        // the fields both set (the image, now by digest): --force-conflicts hands them to the release.
        const install = helm(
          [
            'install',
            '--force-conflicts',
            RELEASE,
            CHART_DIR,
            '--namespace',
            NAMESPACE,
            '-f',
            VENDOR,
            '--set',
            `image.repository=${IMAGE_VALUES.image.repository}`,
            '--set',
            `image.digest=${IMAGE_VALUES.image.digest}`,
          ],
          { KUBECONFIG: controlPlane().kubeconfig },
        );
        expect(install.code, install.stderr).toBe(0);
        // 3. The base's node-agents Role and binding have another name in the chart.
        const removed = kubectl([
          '-n',
          AGENTS,
          'delete',
          'role/stg-image-refresh-node-agents',
          'rolebinding/stg-image-refresh-node-agents',
        ]);
        expect(removed.code, removed.stderr).toBe(0);

        for (const object of ADOPTED) expect(uidOf(object), object).toBe(before[object]);
        expect(envOf()).toEqual(expect.arrayContaining(baseEnv));
        expect(envOf()).toHaveLength(baseEnv.length);
        // What helm itself wrote on the adopted objects, not the marks of step 1: its chart label, and the image by digest.
        const charted = kubectl([
          'get',
          'cronjobs,serviceaccounts,roles,rolebindings',
          '-n',
          NAMESPACE,
          '-l',
          'helm.sh/chart=image-refresh-0.1.0',
          '-o',
          'name',
        ]);
        expect(charted.stdout.trim().split('\n').sort()).toEqual([
          'cronjob.batch/stg-image-refresh',
          'role.rbac.authorization.k8s.io/stg-image-refresh',
          'rolebinding.rbac.authorization.k8s.io/stg-image-refresh',
          'serviceaccount/stg-image-refresh',
        ]);
        const image = kubectl([
          'get',
          'cronjob/stg-image-refresh',
          '-n',
          NAMESPACE,
          '-o',
          'jsonpath={.spec.jobTemplate.spec.template.spec.containers[0].image}',
        ]);
        expect(image.stdout).toBe(`${IMAGE_VALUES.image.repository}@${IMAGE_VALUES.image.digest}`);
        // The ServiceAccount keeps its rights in the agents' namespace, now from the chart's Role.
        const canPatch = kubectl([
          'auth',
          'can-i',
          'patch',
          'daemonsets/stg-resource-monitor',
          '-n',
          AGENTS,
          '--as',
          `system:serviceaccount:${NAMESPACE}:stg-image-refresh`,
        ]);
        expect(canPatch.stdout.trim()).toBe('yes');
        // Outside the release's namespace the chart's Role carries it in its name (two releases never share one).
        expect(kubectl(['get', 'roles', '-n', AGENTS, '-o', 'name']).stdout.trim()).toBe(
          `role.rbac.authorization.k8s.io/${NAMESPACE}-stg-image-refresh`,
        );
      });
    });
  },
);
