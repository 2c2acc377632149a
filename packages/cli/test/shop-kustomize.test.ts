import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { posix } from 'node:path';
import {
  CHART_TOPOLOGY_VARIABLES,
  ENV,
  misspelledVariables,
  parseTickConfig,
  worstCaseTickMs,
} from '@image-refresh/core';
import { describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import { requireBinary } from './support/require-binary.js';

// docs/profiles.md, "From a profile to a running CronJob": the overlay
// examples/shop-kustomize turns the shipped base (deploy/) into the shop's
// CronJob — the profile of examples/shop.yaml in a ConfigMap, mounted and
// named by IMAGE_REFRESH_PROFILE; the Roles of examples/shop-rbac.yaml in
// place of the chart's; none of the chart's variables left for a tick to
// ignore. Checked on kubectl's own rendering, as `kubectl apply -k` sends it.

const kubectl = requireBinary('kubectl', 'kubectl is on every machine of this kind; install kubectl 1.32');
const EXAMPLES = new URL('../examples/', import.meta.url).pathname;
const OVERLAY = `${EXAMPLES}shop-kustomize`;
const DEPLOY = new URL('../deploy', import.meta.url).pathname;
const PROFILES_MD = new URL('../../../docs/profiles.md', import.meta.url).pathname;
const SECTION = '## From a profile to a running CronJob';

interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  data?: Record<string, string>;
  [field: string]: unknown;
}

interface EnvVar {
  name: string;
  value?: string;
}
interface Container {
  name: string;
  env?: EnvVar[];
  volumeMounts?: { name: string; mountPath: string; readOnly?: boolean; subPath?: string }[];
}
interface Volume {
  name: string;
  configMap?: { name: string; items?: unknown[] };
}
interface CronJob extends Manifest {
  spec: {
    jobTemplate: {
      spec: {
        activeDeadlineSeconds: number;
        template: { spec: { serviceAccountName: string; volumes?: Volume[]; containers: Container[] } };
      };
    };
  };
}

const rendered = new Map<string, Manifest[]>();
/** `kubectl kustomize <dir>`, once per directory and run. */
const render = (dir: string): Manifest[] => {
  const known = rendered.get(dir);
  if (known !== undefined) return known;
  const manifests = parseAllDocuments(execFileSync(kubectl.path, ['kustomize', dir], { encoding: 'utf8' })).map(
    (document) => document.toJS() as Manifest,
  );
  rendered.set(dir, manifests);
  return manifests;
};

const documentsOf = (file: string): Manifest[] =>
  parseAllDocuments(readFileSync(file, 'utf8')).map((document) => document.toJS() as Manifest);

const only = <A extends Manifest>(manifests: readonly Manifest[], kind: string): A => {
  const found = manifests.filter((m) => m.kind === kind);
  expect(found.map((m) => `${m.metadata.namespace}/${m.metadata.name}`)).toHaveLength(1);
  return found[0] as A;
};

const RBAC_KINDS = ['ServiceAccount', 'Role', 'RoleBinding', 'ClusterRole', 'ClusterRoleBinding'];
const key = (m: Manifest) => `${m.kind} ${m.metadata.namespace}/${m.metadata.name}`;
const rbacOf = (manifests: readonly Manifest[]): Manifest[] =>
  manifests.filter((m) => RBAC_KINDS.includes(m.kind)).sort((a, b) => key(a).localeCompare(key(b)));

/** What the overlay renders, and the pieces every test looks at. */
const overlay = () => {
  const manifests = render(OVERLAY);
  const cronJob = only<CronJob>(manifests, 'CronJob');
  const configMap = only(manifests, 'ConfigMap');
  const pod = cronJob.spec.jobTemplate.spec.template.spec;
  const [container] = pod.containers;
  if (container === undefined) throw new Error('the CronJob has no container');
  const env = Object.fromEntries((container.env ?? []).map((e) => [e.name, e.value ?? '']));
  return { manifests, cronJob, configMap, pod, container, env };
};

/** The profile the CronJob's tick reads: the ConfigMap key under IMAGE_REFRESH_PROFILE's path in the mount. */
const mountedProfile = () => {
  const { configMap, pod, container, env } = overlay();
  const path = env[ENV.profile] ?? '';
  const volumes = (pod.volumes ?? []).filter((v) => v.configMap?.name === configMap.metadata.name);
  const mounts = (container.volumeMounts ?? []).filter((m) => volumes.some((v) => v.name === m.name));
  const mount = mounts.find((m) => path.startsWith(`${m.mountPath}/`));
  const file = mount === undefined ? undefined : posix.relative(mount.mountPath, path);
  return { path, volumes, mounts, mount, file, text: file === undefined ? undefined : configMap.data?.[file] };
};

describe.skipIf(kubectl.skip)('examples/shop-kustomize (the shop profile as a CronJob, from the base)', () => {
  it('the CronJob mounts the generated ConfigMap read-only, and IMAGE_REFRESH_PROFILE names the profile file in that mount', () => {
    const { path, volumes, mounts, mount, file, text } = mountedProfile();
    expect(volumes).toHaveLength(1);
    // The whole ConfigMap (no items): a subPath would freeze the file the pod was started with.
    expect(volumes[0]?.configMap?.items).toBeUndefined();
    expect(mounts).toEqual([expect.objectContaining({ readOnly: true })]);
    expect(mounts[0]?.subPath).toBeUndefined();
    expect(mount, `IMAGE_REFRESH_PROFILE=${path} is not inside the ConfigMap's mount`).toBeDefined();
    expect(file).toBe('profile.yaml');
    expect(text).toEqual(expect.any(String));
  });

  it("the ConfigMap's profile is examples/shop.yaml, and the overlay's profile.yaml a copy of it", () => {
    const shop = parse(readFileSync(`${EXAMPLES}shop.yaml`, 'utf8'));
    expect(parse(mountedProfile().text ?? '')).toEqual(shop);
    expect(parse(readFileSync(`${OVERLAY}/profile.yaml`, 'utf8'))).toEqual(shop);
  });

  it("the ServiceAccount, Roles and RoleBindings are examples/shop-rbac.yaml's, and none names a chart workload or namespace", () => {
    const rendered = rbacOf(overlay().manifests);
    expect(rendered).toEqual(rbacOf(documentsOf(`${EXAMPLES}shop-rbac.yaml`)));
    const text = JSON.stringify(rendered);
    for (const chart of ['jobs-manager', 'requests-proxy', 'resource-monitor', 'tracebloc']) {
      expect(text).not.toContain(chart);
    }
    // Nothing at all is left in the chart's namespaces.
    expect(overlay().manifests.filter((m) => m.metadata.namespace?.startsWith('tracebloc'))).toEqual([]);
  });

  it("runs in the gate's namespace as that ServiceAccount, with the profile's ConfigMap beside it", () => {
    const { manifests, cronJob, configMap, pod } = overlay();
    const gate = parse(readFileSync(`${EXAMPLES}shop.yaml`, 'utf8')) as {
      gate: string;
      workloads: { id: string; namespace: string }[];
    };
    const namespace = gate.workloads.find((w) => w.id === gate.gate)?.namespace;
    const account = only(manifests, 'ServiceAccount');
    expect([cronJob.metadata, configMap.metadata.namespace, account.metadata]).toEqual([
      { name: 'image-refresh', namespace, labels: expect.any(Object) },
      namespace,
      { name: pod.serviceAccountName, namespace },
    ]);
  });

  it("is the base's CronJob otherwise: the schedule, the deadline, the hardening and the tick's bounds unchanged", () => {
    const base = only<CronJob>(render(DEPLOY), 'CronJob');
    const { cronJob, env } = overlay();
    const baseEnv = base.spec.jobTemplate.spec.template.spec.containers[0]?.env ?? [];
    const withoutProfile = (job: CronJob) => {
      const { volumes: _v, serviceAccountName: _s, containers, ...pod } = job.spec.jobTemplate.spec.template.spec;
      return {
        spec: { ...job.spec, jobTemplate: undefined },
        job: { ...job.spec.jobTemplate.spec, template: undefined },
        pod,
        containers: containers.map(({ env: _e, volumeMounts: _m, ...c }) => c),
      };
    };
    expect(withoutProfile(cronJob)).toEqual(withoutProfile(base));
    // The base's variables that are not the chart's names stay as the base sets them.
    for (const { name, value } of baseEnv.filter(
      (e) => !CHART_TOPOLOGY_VARIABLES.includes(e.name) && e.name !== ENV.imageTag,
    )) {
      expect(env[name], name).toBe(value);
    }
  });

  it("leaves the tick nothing to ignore: none of the chart's variables, no misspelling, a valid configuration within the deadline", () => {
    const { cronJob, env } = overlay();
    expect(Object.keys(env).filter((name) => CHART_TOPOLOGY_VARIABLES.includes(name))).toEqual([]);
    expect(misspelledVariables(env)).toEqual([]);
    const config = parseTickConfig(env, parse(mountedProfile().text ?? ''));
    if (config._tag === 'Left')
      throw new Error(`the overlay sets an invalid environment: ${JSON.stringify(config.left)}`);
    // What the tick would say as VARIABLES_IGNORED, one WARN every tick.
    expect(config.right.ignoredVariables).toEqual([]);
    expect(config.right.topology.workloads.map((w) => `${w.kind}/${w.namespace}/${w.name}`)).toEqual([
      'Deployment/shop/web',
      'Deployment/shop/worker',
      'DaemonSet/shop-nodes/agent',
    ]);
    expect(worstCaseTickMs(config.right)).toBeLessThanOrEqual(
      cronJob.spec.jobTemplate.spec.activeDeadlineSeconds * 1000,
    );
  });

  it("docs/profiles.md shows the overlay's kustomization.yaml and cronjob-patch.yaml as they are (comments aside)", () => {
    const page = readFileSync(PROFILES_MD, 'utf8');
    const start = page.indexOf(`${SECTION}\n`);
    expect(start, `docs/profiles.md has no section "${SECTION}"`).toBeGreaterThanOrEqual(0);
    const end = page.indexOf('\n## ', start + SECTION.length);
    const section = page.slice(start, end === -1 ? undefined : end);
    // Each YAML block of the section that opens with `# <file>` shows that file of the overlay.
    const shown = [...section.matchAll(/```yaml\n# ([\w.-]+)\n([\s\S]*?)```/g)].map(([, file, text]) => ({
      file,
      text,
    }));
    expect(shown.map((s) => s.file)).toEqual(['kustomization.yaml', 'cronjob-patch.yaml']);
    for (const { file, text } of shown) {
      expect(parse(text ?? ''), `docs/profiles.md's ${file}`).toEqual(
        parse(readFileSync(`${OVERLAY}/${file}`, 'utf8')),
      );
    }
  });
});
