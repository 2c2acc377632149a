import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { parseTickConfig, worstCaseTickMs } from '@image-refresh/core';
import { loadAllYaml } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { requireBinary } from './support/require-binary.js';

// PREPULL's rights (docs/behaviour.md §3.5a): the base in deploy/ grants no
// pod at all; the optional component deploy/components/staging adds exactly
// pods create/get/list/delete in the two namespaces, bound to the
// ServiceAccount — rendered by kubectl's own kustomize, base and base plus
// component, as an operator's overlay would use them.

const kubectl = requireBinary('kubectl', 'kubectl is on every machine of this kind; install kubectl 1.32');
const DEPLOY = new URL('../deploy', import.meta.url).pathname;
const COMPONENT = join(DEPLOY, 'components/staging');

interface Manifest {
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  rules?: { apiGroups: string[]; resources: string[]; resourceNames?: string[]; verbs: string[] }[];
  subjects?: { kind: string; name: string; namespace: string }[];
  roleRef?: { kind: string; name: string };
}

const kustomize = (dir: string): Manifest[] =>
  loadAllYaml(execFileSync(kubectl.path, ['kustomize', dir], { encoding: 'utf8' })) as Manifest[];

/** The base with the component, as an overlay in a temp dir names them (kustomize wants relative paths). */
const withComponent = (): Manifest[] => {
  const dir = mkdtempSync(join(tmpdir(), 'image-refresh-staging-overlay-'));
  try {
    writeFileSync(
      join(dir, 'kustomization.yaml'),
      JSON.stringify({
        apiVersion: 'kustomize.config.k8s.io/v1beta1',
        kind: 'Kustomization',
        resources: [relative(dir, DEPLOY)],
        components: [relative(dir, COMPONENT)],
      }),
    );
    return kustomize(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
};

const podRules = (manifests: readonly Manifest[]) =>
  manifests
    .filter((m) => m.kind === 'Role')
    .flatMap((r) =>
      (r.rules ?? [])
        .filter((rule) => rule.resources.includes('pods'))
        .map((rule) => ({ namespace: r.metadata.namespace, ...rule })),
    )
    .sort((a, b) => String(a.namespace).localeCompare(String(b.namespace)));

describe.skipIf(kubectl.skip)('deploy/components/staging (PREPULL=on)', () => {
  it('the base grants no pod at all', () => {
    expect(podRules(kustomize(DEPLOY))).toEqual([]);
  });

  it('the component adds pods create/get/list/delete in the release and the node-agents namespace, and nothing else', () => {
    const base = kustomize(DEPLOY);
    const overlay = withComponent();
    expect(podRules(overlay)).toEqual([
      { namespace: 'tracebloc', apiGroups: [''], resources: ['pods'], verbs: ['create', 'get', 'list', 'delete'] },
      {
        namespace: 'tracebloc-node-agents',
        apiGroups: [''],
        resources: ['pods'],
        verbs: ['create', 'get', 'list', 'delete'],
      },
    ]);
    // Everything of the base is there, unchanged; the component adds two Roles and their bindings only.
    const key = (m: Manifest) => `${m.kind} ${m.metadata.namespace}/${m.metadata.name}`;
    const added = overlay.filter((m) => !base.some((b) => key(b) === key(m)));
    expect(added.map(key).sort()).toEqual([
      'Role tracebloc-node-agents/stg-image-refresh-staging',
      'Role tracebloc/stg-image-refresh-staging',
      'RoleBinding tracebloc-node-agents/stg-image-refresh-staging',
      'RoleBinding tracebloc/stg-image-refresh-staging',
    ]);
    for (const b of base) expect(overlay.find((m) => key(m) === key(b))).toEqual(b);
    expect(overlay.filter((m) => m.kind.startsWith('Cluster'))).toEqual([]);
  });

  it('binds them to the CronJob’s ServiceAccount, labelled as the base is', () => {
    const bindings = withComponent().filter((m) => m.kind === 'RoleBinding' && m.metadata.name.endsWith('-staging'));
    for (const binding of bindings) {
      expect(binding.subjects).toEqual([{ kind: 'ServiceAccount', name: 'stg-image-refresh', namespace: 'tracebloc' }]);
      expect(binding.roleRef).toMatchObject({ kind: 'Role', name: 'stg-image-refresh-staging' });
      expect(binding.metadata.labels).toMatchObject({ 'app.kubernetes.io/name': 'image-refresh' });
    }
  });

  it('the shipped deadline holds a tick with PREPULL=on (PREPULL_TIMEOUT=30m) and PLATFORM_CHECK=on', () => {
    const cronJob = kustomize(DEPLOY).find((m) => m.kind === 'CronJob') as unknown as {
      spec: {
        jobTemplate: {
          spec: {
            activeDeadlineSeconds: number;
            template: { spec: { containers: { env: { name: string; value?: string }[] }[] } };
          };
        };
      };
    };
    const job = cronJob.spec.jobTemplate.spec;
    const env = Object.fromEntries((job.template.spec.containers[0]?.env ?? []).map((e) => [e.name, e.value]));
    const config = parseTickConfig({ ...env, PREPULL: 'on', PLATFORM_CHECK: 'on' });
    if (config._tag === 'Left') throw new Error(`invalid environment: ${JSON.stringify(config.left)}`);
    expect(worstCaseTickMs(config.right)).toBeLessThanOrEqual(job.activeDeadlineSeconds * 1000);
  });
});
