import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  CHART_TOPOLOGY_VARIABLES,
  DEFAULT_PROFILE,
  type Profile,
  parseProfile,
  parseTickConfig,
  worstCaseTickMs,
} from '@image-refresh/core';
import * as E from 'fp-ts/lib/Either.js';
import { describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import { CHART_TOPOLOGY } from '../../../core/test/support/chart.js';
import { requireBinary } from '../support/require-binary.js';
import { HELM, helm, IMAGE_VALUES, type Rendered, template } from './helm.js';
import { leastPrivilege, type Rule } from './least-privilege.js';
import { CHART_DIR, NAMED_VALUES } from './values-schema.js';

// The chart (charts/image-refresh, docs/helm.md), rendered by the real helm:
// lint --strict, the objects of the default (the chart tracebloc/client's
// topology), the vendor's values (held to the kustomize base, object by
// object), and profiles of one's own (the shop, six workloads); Roles held to
// what each profile needs (least-privilege.ts), and every refusal said before
// anything reaches a cluster.

const kubectl = requireBinary('kubectl', 'kubectl is on every machine of this kind; install kubectl 1.32');
const VENDOR = `${CHART_DIR}values-tracebloc.yaml`;
const SHOP = `${CHART_DIR}ci/shop-values.yaml`;
const SIX = `${CHART_DIR}ci/six-workloads-values.yaml`;
const DEPLOY = new URL('../../deploy', import.meta.url).pathname;
const SHOP_RBAC = new URL('../../examples/shop-rbac.yaml', import.meta.url).pathname;
const SHOP_PROFILE = new URL('../../examples/shop.yaml', import.meta.url).pathname;
const CLI_PACKAGE = new URL('../../package.json', import.meta.url).pathname;

interface EnvVar {
  name: string;
  value?: string;
}
interface Container {
  name: string;
  image: string;
  args: string[];
  env?: EnvVar[];
  securityContext: unknown;
  resources: unknown;
  volumeMounts?: { name: string; mountPath: string; readOnly?: boolean }[];
}
interface CronJobSpec {
  schedule: string;
  concurrencyPolicy: string;
  startingDeadlineSeconds: number;
  jobTemplate: {
    spec: {
      backoffLimit: number;
      activeDeadlineSeconds: number;
      template: {
        spec: {
          serviceAccountName: string;
          restartPolicy: string;
          securityContext: unknown;
          containers: Container[];
          volumes?: { name: string; configMap?: { name: string }; secret?: { secretName: string } }[];
        };
      };
    };
  };
}

const byKind = (objects: readonly Rendered[], kind: string) => objects.filter((o) => o.kind === kind);
const cronJobOf = (objects: readonly Rendered[]) => {
  const [cronJob] = byKind(objects, 'CronJob');
  if (cronJob === undefined) throw new Error('no CronJob rendered');
  return cronJob as Rendered & { spec: CronJobSpec };
};
const containerOf = (objects: readonly Rendered[]): Container => {
  const [container] = cronJobOf(objects).spec.jobTemplate.spec.template.spec.containers;
  if (container === undefined) throw new Error('the CronJob runs no container');
  return container;
};
const envOf = (objects: readonly Rendered[]): Record<string, string> =>
  Object.fromEntries((containerOf(objects).env ?? []).map((e) => [e.name, e.value ?? '']));

/** Namespace → its Role's rules. */
const rolesOf = (objects: readonly Rendered[]): Record<string, Rule[]> =>
  Object.fromEntries(
    byKind(objects, 'Role').map((r) => [r.metadata.namespace ?? '', (r as unknown as { rules: Rule[] }).rules]),
  );

const parsedProfile = (document: unknown): Profile => {
  const parsed = parseProfile(document);
  if (E.isLeft(parsed)) throw new Error(`the profile is refused: ${JSON.stringify(parsed.left)}`);
  return parsed.right;
};

/** The profile a rendering mounts: its ConfigMap's file, parsed as the tick parses it. */
const mountedProfile = (objects: readonly Rendered[]): Profile => {
  const [configMap] = byKind(objects, 'ConfigMap') as (Rendered & { data: Record<string, string> })[];
  return parsedProfile(parse(configMap?.data['profile.yaml'] ?? ''));
};

const rendered = (release: string, namespace: string, values: readonly unknown[]) => {
  const { objects, run } = template(release, namespace, [IMAGE_VALUES, ...values]);
  expect(run.code, run.stderr).toBe(0);
  return objects;
};

/** A failed render's message: helm exits non-zero and says why on stderr. */
const refusal = (values: readonly unknown[]): string => {
  const { run } = template('ir', 'apps', values);
  expect(run.code, `rendered although it should be refused:\n${run.stdout}`).not.toBe(0);
  return run.stderr;
};

describe.skipIf(HELM.missing !== undefined)('charts/image-refresh, rendered by helm', () => {
  it('helm lint --strict passes for the default, the vendor values and both profiles', () => {
    const image = [
      '--set',
      `image.repository=${IMAGE_VALUES.image.repository}`,
      '--set',
      `image.digest=${IMAGE_VALUES.image.digest}`,
    ];
    for (const values of [
      ['--set', 'imageTag=prod'],
      ['-f', VENDOR],
      ['-f', SHOP],
      ['-f', SIX],
    ]) {
      const run = helm(['lint', '--strict', CHART_DIR, ...image, ...values]);
      expect(run.code, `${values.join(' ')}: ${run.stdout}${run.stderr}`).toBe(0);
      expect(run.stdout).toContain('1 chart(s) linted, 0 chart(s) failed');
    }
  });

  it("the default follows the chart tracebloc/client's topology, named after this release: the Roles DEFAULT_PROFILE needs, nothing cluster-wide", () => {
    const objects = rendered('stg', 'tracebloc', [{ imageTag: 'prod' }]);
    // The names the tick derives from the release, written out: the CronJob says what its Roles name.
    expect(envOf(objects)).toEqual({
      IMAGE_TAG: 'prod',
      RELEASE_NAME: 'stg',
      RELEASE_NAMESPACE: 'tracebloc',
      DEPLOYMENT_NAME: 'stg-jobs-manager',
      REQUESTS_PROXY_DEPLOYMENT: 'stg-requests-proxy',
      RESOURCE_MONITOR_DAEMONSET: 'stg-resource-monitor',
      NODE_AGENTS_NAMESPACE: 'tracebloc-node-agents',
    });
    const config = parseTickConfig(envOf(objects));
    expect(E.isRight(config) && config.right.topology.workloads.map((w) => `${w.namespace}/${w.name}`)).toEqual([
      'tracebloc/stg-jobs-manager',
      'tracebloc/stg-requests-proxy',
      'tracebloc-node-agents/stg-resource-monitor',
    ]);
    expect(rolesOf(objects)).toEqual(leastPrivilege(CHART_TOPOLOGY.profile, false));
    expect(byKind(objects, 'ConfigMap')).toEqual([]);
    expect(objects.filter((o) => o.kind.startsWith('Cluster'))).toEqual([]);
    expect(objects.map((o) => `${o.kind} ${o.metadata.namespace}/${o.metadata.name}`).sort()).toEqual([
      'CronJob tracebloc/stg-image-refresh',
      'Role tracebloc-node-agents/tracebloc-stg-image-refresh',
      'Role tracebloc/stg-image-refresh',
      'RoleBinding tracebloc-node-agents/tracebloc-stg-image-refresh',
      'RoleBinding tracebloc/stg-image-refresh',
      'ServiceAccount tracebloc/stg-image-refresh',
    ]);
  });

  it("the chart's names follow its variables as the tick's do: DEPLOYMENT_NAME, NODE_AGENTS_NAMESPACE, … move the Roles with them", () => {
    const env = {
      RELEASE_NAME: 'prod',
      RELEASE_NAMESPACE: 'edge',
      DEPLOYMENT_NAME: 'jm',
      REQUESTS_PROXY_DEPLOYMENT: 'rp',
      RESOURCE_MONITOR_DAEMONSET: 'rm',
      NODE_AGENTS_NAMESPACE: 'agents',
    };
    const objects = rendered('other', 'ops', [{ imageTag: 'prod', env }]);
    expect(rolesOf(objects)).toEqual(
      leastPrivilege(
        DEFAULT_PROFILE({
          releaseName: 'prod',
          releaseNamespace: 'edge',
          deploymentName: 'jm',
          requestsProxyDeployment: 'rp',
          resourceMonitorDaemonSet: 'rm',
          nodeAgentsNamespace: 'agents',
        }),
        false,
      ),
    );
    // The RoleBindings name the ServiceAccount where the CronJob runs: this release's namespace.
    for (const binding of byKind(objects, 'RoleBinding') as (Rendered & { subjects: unknown[] })[]) {
      expect(binding.subjects).toEqual([{ kind: 'ServiceAccount', name: 'other-image-refresh', namespace: 'ops' }]);
    }
  });

  describe.skipIf(kubectl.skip)("values-tracebloc.yaml: the kustomize base's objects, for the vendor's chart", () => {
    const base = () =>
      parseAllDocuments(execFileSync(kubectl.path, ['kustomize', DEPLOY], { encoding: 'utf8' })).map(
        (d) => d.toJS() as Rendered,
      );

    it('the same CronJob environment, variable for variable, and the same Job: schedule, deadline, security contexts, resources', () => {
      const chart = rendered('stg', 'tracebloc', [VENDOR]);
      const kustomize = base();
      expect(envOf(chart)).toEqual(envOf(kustomize));
      const [ours, theirs] = [cronJobOf(chart), cronJobOf(kustomize)];
      expect(ours.metadata.name).toBe(theirs.metadata.name);
      expect(ours.metadata.namespace).toBe(theirs.metadata.namespace);
      const job = (c: typeof ours) => {
        const { schedule, concurrencyPolicy, startingDeadlineSeconds } = c.spec;
        const { backoffLimit, activeDeadlineSeconds, template: pod } = c.spec.jobTemplate.spec;
        const { serviceAccountName, restartPolicy, securityContext } = pod.spec;
        const [container] = pod.spec.containers;
        return {
          schedule,
          concurrencyPolicy,
          startingDeadlineSeconds,
          backoffLimit,
          activeDeadlineSeconds,
          serviceAccountName,
          restartPolicy,
          securityContext,
          container: {
            args: container?.args,
            securityContext: container?.securityContext,
            resources: container?.resources,
          },
        };
      };
      expect(job(ours)).toEqual(job(theirs));
      expect(containerOf(chart).image).toBe(`${IMAGE_VALUES.image.repository}@${IMAGE_VALUES.image.digest}`);
    });

    it('the same Roles in the same namespaces, bound to the same ServiceAccount, and nothing else', () => {
      const chart = rendered('stg', 'tracebloc', [VENDOR]);
      const kustomize = base();
      expect(rolesOf(chart)).toEqual(rolesOf(kustomize));
      const subjects = (objects: Rendered[]) =>
        byKind(objects, 'RoleBinding')
          .map((b) => `${b.metadata.namespace} ${JSON.stringify((b as unknown as { subjects: unknown }).subjects)}`)
          .sort();
      expect(subjects(chart)).toEqual(subjects(kustomize));
      const kinds = (objects: Rendered[]) => objects.map((o) => o.kind).sort();
      expect(kinds(chart)).toEqual(kinds(kustomize));
    });
  });

  describe('a profile of its own', () => {
    it("the shop: its profile mounted and named by IMAGE_REFRESH_PROFILE, the Roles of examples/shop-rbac.yaml, and an environment the tick accepts without a WARN's worth of chart variables", () => {
      const objects = rendered('image-refresh', 'shop', [SHOP]);
      const profile = mountedProfile(objects);
      const shopRbac = parseAllDocuments(readFileSync(SHOP_RBAC, 'utf8')).map((d) => d.toJS() as Rendered);
      expect(rolesOf(objects)).toEqual(rolesOf(shopRbac));
      expect(rolesOf(objects)).toEqual(leastPrivilege(profile, false));
      const env = envOf(objects);
      expect(env).toEqual({
        IMAGE_REFRESH_PROFILE: '/etc/image-refresh/profile/profile.yaml',
        IMAGE_TAG: 'stable',
        ON_ROLLOUT_FAILURE: 'revert',
        WEB_PINNED: '0',
      });
      expect(containerOf(objects).volumeMounts).toEqual([
        { name: 'profile', mountPath: '/etc/image-refresh/profile', readOnly: true },
      ]);
      expect(cronJobOf(objects).spec.jobTemplate.spec.template.spec.volumes).toEqual([
        { name: 'profile', configMap: { name: 'image-refresh-profile' } },
      ]);
      // The example the docs walk through, as the tick reads it, and no chart variable for a tick to ignore.
      expect(profile).toEqual(parsedProfile(parse(readFileSync(SHOP_PROFILE, 'utf8'))));
      const config = parseTickConfig(env, profile);
      expect(E.isRight(config) && config.right.ignoredVariables).toEqual([]);
    });

    it.each(['docs/helm.md', 'docs/profiles.md'])(
      '%s installs the shop with these very values (ci/shop-values.yaml, the image aside)',
      (page) => {
        const text = readFileSync(new URL(`../../../../${page}`, import.meta.url), 'utf8');
        const blocks = [...text.matchAll(/```yaml\n(image:[\s\S]*?)```/g)].map(([, yaml]) => parse(yaml ?? ''));
        expect(blocks).toHaveLength(1);
        const { image, ...values } = blocks[0] as { image: unknown };
        expect(image).toEqual({ repository: 'registry.example/image-refresh', digest: 'sha256:…' });
        expect(values).toEqual(parse(readFileSync(SHOP, 'utf8')));
      },
    );

    it('six workloads in three namespaces with PREPULL=on: one Role per namespace, each naming only its own workloads, pods only because staging needs them', () => {
      const objects = rendered('ir', 'apps', [SIX]);
      const profile = mountedProfile(objects);
      expect(profile.workloads).toHaveLength(6);
      expect(rolesOf(objects)).toEqual(leastPrivilege(profile, true));
      expect(Object.keys(rolesOf(objects))).toEqual(['apps', 'data', 'nodes']);
      expect(envOf(objects)).toMatchObject({ PREPULL: 'on', OWNERSHIP_CHECK: 'on', MIN_DIGEST_AGE: '1h' });
    });

    it.each([
      [
        'the default, with revert and a 2m stability window',
        [{ imageTag: 'prod', onRolloutFailure: 'revert', env: { ROLLOUT_STABLE_FOR: '2m' } }],
      ],
      ['values-tracebloc.yaml', [VENDOR]],
      ['ci/shop-values.yaml', [SHOP]],
      ['ci/six-workloads-values.yaml', [SIX]],
    ] as const)(
      'activeDeadlineSeconds holds a whole tick at the bounds it sets (worstCaseTickMs): %s, as shipped',
      (_, values) => {
        const objects = rendered('stg', 'tracebloc', values);
        const profile = byKind(objects, 'ConfigMap').length > 0 ? mountedProfile(objects) : undefined;
        const config = parseTickConfig(envOf(objects), profile);
        if (E.isLeft(config)) throw new Error(JSON.stringify(config.left));
        expect(worstCaseTickMs(config.right)).toBeLessThanOrEqual(
          cronJobOf(objects).spec.jobTemplate.spec.activeDeadlineSeconds * 1000,
        );
      },
    );
  });

  describe('values', () => {
    it('a named value wins over the same variable in env; a number and a boolean reach the tick as it reads them', () => {
      const env = envOf(
        rendered('stg', 'tracebloc', [
          {
            imageTag: 'prod',
            rolloutTimeout: '20m',
            prepull: true,
            env: { ROLLOUT_TIMEOUT: '5m', MAX_SKIP_TICKS: 12, IMAGE_TAG: 'stg' },
          },
        ]),
      );
      expect(env).toMatchObject({ ROLLOUT_TIMEOUT: '20m', IMAGE_TAG: 'prod', MAX_SKIP_TICKS: '12', PREPULL: 'on' });
    });

    it.each(Object.entries(NAMED_VALUES))('%s sets %s', (key, variable) => {
      const samples: Record<string, string> = {
        IMAGE_TAG: 'prod',
        ROLLOUT_TIMEOUT: '7m',
        ON_ROLLOUT_FAILURE: 'revert',
        VERIFY_SIGNATURES: 'warn',
        PREPULL: 'on',
        MIRROR_MODE: 'follow-upstream',
        PUSHGATEWAY_URL: 'http://pushgateway.monitoring:9091',
      };
      const objects = rendered('stg', 'tracebloc', [{ imageTag: 'prod', [key]: samples[variable] }]);
      expect(envOf(objects)[variable]).toBe(samples[variable]);
    });

    it('existing Secrets mounted read-only, each file named in its variable; the content never passes through values', () => {
      const objects = rendered('stg', 'tracebloc', [
        {
          imageTag: 'prod',
          verifySignatures: 'enforce',
          signatureTrust: {
            secretName: 'trust',
            publicKeys: ['cosign.pub', 'next.pub'],
            trustedRoot: 'trusted_root.json',
          },
          registryAuth: { secretName: 'pull-secret' },
          registryCa: { secretName: 'registry-ca', key: 'ca.pem' },
        },
      ]);
      expect(envOf(objects)).toMatchObject({
        SIGNATURE_PUBLIC_KEYS: '/etc/image-refresh/trust/cosign.pub,/etc/image-refresh/trust/next.pub',
        SIGSTORE_TRUSTED_ROOT: '/etc/image-refresh/trust/trusted_root.json',
        REGISTRY_AUTH_FILE: '/etc/image-refresh/registry-auth/.dockerconfigjson',
        REGISTRY_CA_FILE: '/etc/image-refresh/registry-ca/ca.pem',
      });
      expect(containerOf(objects).volumeMounts?.map((m) => `${m.name} ${m.mountPath} ${m.readOnly}`)).toEqual([
        'signature-trust /etc/image-refresh/trust true',
        'registry-auth /etc/image-refresh/registry-auth true',
        'registry-ca /etc/image-refresh/registry-ca true',
      ]);
      expect(cronJobOf(objects).spec.jobTemplate.spec.template.spec.volumes?.map((v) => v.secret?.secretName)).toEqual([
        'trust',
        'pull-secret',
        'registry-ca',
      ]);
    });

    it("Chart.yaml runs the CLI of this tree: appVersion is packages/cli/package.json's version", () => {
      const chart = parse(readFileSync(`${CHART_DIR}Chart.yaml`, 'utf8')) as { appVersion: string };
      const cli = JSON.parse(readFileSync(CLI_PACKAGE, 'utf8')) as { version: string };
      expect(chart.appVersion).toBe(cli.version);
    });
  });

  describe('refused before anything reaches a cluster, naming what is wrong', () => {
    it.each([
      ['no image', [{ imageTag: 'prod' }], 'image.repository and image.digest are required'],
      ['an image by tag', [{ image: { repository: 'r/ir', digest: 'latest' }, imageTag: 'prod' }], 'digest'],
      ['no tag to follow', [IMAGE_VALUES], 'imageTag (IMAGE_TAG) is required'],
      [
        'a variable no tick reads',
        [IMAGE_VALUES, { imageTag: 'prod', env: { ROLLOUT_TIMOUT: '5m' } }],
        'ROLLOUT_TIMOUT',
      ],
      [
        'a duration without a unit',
        [IMAGE_VALUES, { imageTag: 'prod', env: { ROLLOUT_TIMEOUT: '600' } }],
        'ROLLOUT_TIMEOUT',
      ],
      [
        'a ceiling that is no number',
        [IMAGE_VALUES, { imageTag: 'prod', env: { MAX_SKIP_TICKS: 'eight' } }],
        'MAX_SKIP_TICKS',
      ],
      ['an unknown value', [IMAGE_VALUES, { imageTag: 'prod', verifySignatures: 'strict' }], 'verifySignatures'],
      ['a misspelled value', [IMAGE_VALUES, { imageTag: 'prod', schedul: '* * * * *' }], 'schedul'],
      ['a profile of the wrong shape', [SHOP, IMAGE_VALUES, { profile: { images: [] } }], "at '/profile'"],
      [
        'a container mapped to an undeclared image',
        [
          SHOP,
          IMAGE_VALUES,
          {
            profile: {
              workloads: [
                {
                  id: 'web',
                  kind: 'Deployment',
                  namespace: 'shop',
                  name: 'web',
                  containers: { web: 'wbe', log: 'log' },
                },
                {
                  id: 'agent',
                  kind: 'DaemonSet',
                  namespace: 'shop-nodes',
                  name: 'agent',
                  containers: { agent: 'agent' },
                },
              ],
            },
          },
        ],
        'workloads[0].containers.web: image "wbe" is not declared',
      ],
      [
        'an image declared twice, and one no container runs',
        [
          SHOP,
          IMAGE_VALUES,
          {
            profile: {
              images: [
                { name: 'web', repository: 'shop/web', pinnedBy: 'WEB_PINNED' },
                { name: 'web', repository: 'shop/web2' },
                { name: 'log', repository: 'shop/log' },
                { name: 'agent', repository: 'shop/agent' },
                { name: 'spare', repository: 'shop/spare' },
              ],
            },
          },
        ],
        'profile: images: "web" is declared twice; images: "spare" runs in no container',
      ],
      [
        'one object declared twice',
        [
          SHOP,
          IMAGE_VALUES,
          {
            profile: {
              workloads: [
                {
                  id: 'web',
                  kind: 'Deployment',
                  namespace: 'shop',
                  name: 'web',
                  containers: { web: 'web', log: 'log' },
                },
                { id: 'web2', kind: 'Deployment', namespace: 'shop', name: 'web', containers: { web: 'web' } },
                {
                  id: 'agent',
                  kind: 'DaemonSet',
                  namespace: 'shop-nodes',
                  name: 'agent',
                  containers: { agent: 'agent' },
                },
              ],
            },
          },
        ],
        'workloads: Deployment shop/web is declared twice',
      ],
      [
        'a decoupled gate',
        [
          SHOP,
          IMAGE_VALUES,
          {
            profile: {
              workloads: [
                {
                  id: 'web',
                  kind: 'Deployment',
                  namespace: 'shop',
                  name: 'web',
                  containers: { web: 'web', log: 'log' },
                  decoupled: true,
                },
                {
                  id: 'agent',
                  kind: 'DaemonSet',
                  namespace: 'shop-nodes',
                  name: 'agent',
                  containers: { agent: 'agent' },
                },
              ],
            },
          },
        ],
        'gate "web" is decoupled',
      ],
      [
        'a trust mounted for no check',
        [IMAGE_VALUES, { imageTag: 'prod', signatureTrust: { secretName: 'trust', publicKeys: ['cosign.pub'] } }],
        'no tick reads it',
      ],
      [
        'extraEnv repeating a variable the chart renders',
        [IMAGE_VALUES, { imageTag: 'prod', extraEnv: [{ name: 'IMAGE_TAG', value: 'stg' }] }],
        'extraEnv IMAGE_TAG',
      ],
      [
        'extraEnv naming what the Roles are rendered from',
        [IMAGE_VALUES, { imageTag: 'prod', extraEnv: [{ name: 'PREPULL', value: 'on' }] }],
        'extraEnv PREPULL',
      ],
      [
        'a StatefulSet, which a tick cannot follow yet',
        [
          SHOP,
          IMAGE_VALUES,
          {
            profile: {
              workloads: [
                { id: 'web', kind: 'StatefulSet', namespace: 'shop', name: 'web', containers: { web: 'web' } },
              ],
            },
          },
        ],
        'kind',
      ],
      ['a pin the profile does not declare', [SHOP, IMAGE_VALUES, { pins: { API_PINNED: '1' } }], 'pins.API_PINNED'],
      [
        'a chart variable beside a profile',
        [SHOP, IMAGE_VALUES, { env: { DEPLOYMENT_NAME: 'web' } }],
        'env.DEPLOYMENT_NAME',
      ],
      [
        'a trust file without its Secret',
        [IMAGE_VALUES, { imageTag: 'prod', signatureTrust: { publicKeys: ['cosign.pub'] } }],
        'signatureTrust.secretName',
      ],
    ])('%s', (_, values, named) => {
      expect(refusal(values)).toContain(named);
    });

    it('every chart variable beside a profile is refused, as CHART_TOPOLOGY_VARIABLES names them (a tick would ignore it with a WARN)', () => {
      for (const variable of CHART_TOPOLOGY_VARIABLES) {
        expect(
          refusal([SHOP, IMAGE_VALUES, { env: { [variable]: variable.endsWith('_PINNED') ? '0' : 'x' } }]),
        ).toContain(`env.${variable}`);
      }
    });
  });

  it('helm package makes the archive, schema and vendor values inside', () => {
    const out = mkdtempSync(join(tmpdir(), 'image-refresh-chart-package-'));
    try {
      const run = helm(['package', CHART_DIR, '--destination', out]);
      expect(run.code, run.stderr).toBe(0);
      expect(readdirSync(out)).toEqual(['image-refresh-0.1.0.tgz']);
      const listing = execFileSync('tar', ['-tzf', join(out, 'image-refresh-0.1.0.tgz')], { encoding: 'utf8' });
      expect(listing.split('\n')).toEqual(
        expect.arrayContaining([
          'image-refresh/Chart.yaml',
          'image-refresh/values.yaml',
          'image-refresh/values.schema.json',
          'image-refresh/values-tracebloc.yaml',
          'image-refresh/templates/rbac.yaml',
        ]),
      );
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });
});
