import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { loadAllYaml } from '@kubernetes/client-node';

// The shipped RBAC (packages/cli/deploy/, a kustomize base), applied to the
// real cluster with `kubectl apply -k` as an operator would: an overlay of
// the base that only moves its objects into a test's own namespaces (the base
// names `tracebloc` and `tracebloc-node-agents` on every object, on purpose —
// see its kustomization.yaml) and, for the tests that prove each verb is
// needed, takes one verb out of one Role. Nothing else is granted.

const BASE = new URL('../../../../cli/deploy/', import.meta.url).pathname;
/** The optional components of the base, by name (deploy/components/<name>): `staging` is PREPULL's pods. */
export type DeployComponent = 'staging';
const componentDir = (name: DeployComponent): string => `${BASE}components/${name}`;
const SHIPPED = { release: 'tracebloc', agents: 'tracebloc-node-agents' } as const;

export interface Namespaces {
  readonly release: string;
  readonly agents: string;
}

/** One verb removed from one rule of one shipped Role (by the Role's name). */
export interface VerbRemoved {
  readonly role: string;
  readonly rule: number;
  readonly verb: string;
}

interface Manifest {
  readonly kind: string;
  readonly metadata: { readonly name: string; readonly namespace?: string };
  readonly rules?: readonly { readonly verbs: readonly string[] }[];
  readonly subjects?: readonly unknown[];
}

const kubectl = (kubeconfig: string, args: readonly string[]): string =>
  execFileSync('kubectl', [...args], {
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', KUBECONFIG: kubeconfig, HOME: tmpdir() },
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    timeout: 60_000,
  });

/** The base as kustomize renders it. */
export const renderDeploy = (kubeconfig: string, dir = BASE): Manifest[] =>
  loadAllYaml(kubectl(kubeconfig, ['kustomize', dir])) as Manifest[];

const moved = (namespace: string | undefined, to: Namespaces): string | undefined =>
  namespace === SHIPPED.release ? to.release : namespace === SHIPPED.agents ? to.agents : namespace;

/** The overlay's kustomization: every object into `to`, RoleBinding subjects too, and `removed` verbs out. */
const overlay = (
  dir: string,
  base: readonly Manifest[],
  to: Namespaces,
  removed: readonly VerbRemoved[],
  components: readonly DeployComponent[],
): string => {
  const patches = base.flatMap((object) => {
    const ops: unknown[] = [];
    const namespace = moved(object.metadata.namespace, to);
    if (namespace !== object.metadata.namespace)
      ops.push({ op: 'replace', path: '/metadata/namespace', value: namespace });
    object.subjects?.forEach((_, i) => {
      ops.push({ op: 'replace', path: `/subjects/${i}/namespace`, value: to.release });
    });
    // No CronJob controller runs on the test cluster; suspended, the CronJob says so to a reader of it too.
    if (object.kind === 'CronJob') ops.push({ op: 'add', path: '/spec/suspend', value: true });
    for (const cut of removed.filter((r) => object.kind === 'Role' && r.role === object.metadata.name)) {
      const verbs = object.rules?.[cut.rule]?.verbs;
      if (verbs === undefined || !verbs.includes(cut.verb)) {
        throw new Error(`role ${cut.role} has no verb ${cut.verb} in rule ${cut.rule} to remove`);
      }
      ops.push({ op: 'replace', path: `/rules/${cut.rule}/verbs`, value: verbs.filter((v) => v !== cut.verb) });
    }
    if (ops.length === 0) return [];
    const target = { kind: object.kind, name: object.metadata.name, namespace: object.metadata.namespace };
    return [{ target, patch: JSON.stringify(ops) }];
  });
  return JSON.stringify({
    apiVersion: 'kustomize.config.k8s.io/v1beta1',
    kind: 'Kustomization',
    resources: [relative(dir, BASE)],
    ...(components.length === 0 ? {} : { components: components.map((c) => relative(dir, componentDir(c))) }),
    patches,
  });
};

/** The base with `components`, as an operator's overlay names them, before any move. */
const withComponents = (dir: string, components: readonly DeployComponent[]): string =>
  JSON.stringify({
    apiVersion: 'kustomize.config.k8s.io/v1beta1',
    kind: 'Kustomization',
    resources: [relative(dir, BASE)],
    components: components.map((c) => relative(dir, componentDir(c))),
  });

/** Runs `use` on a temp directory holding the overlay's kustomization, removed afterwards. */
const withOverlay = <A>(
  adminKubeconfig: string,
  to: Namespaces,
  removed: readonly VerbRemoved[],
  use: (dir: string) => A,
  components: readonly DeployComponent[] = [],
): A => {
  const dir = mkdtempSync(join(tmpdir(), 'image-refresh-deploy-overlay-'));
  try {
    // kustomize reads JSON as YAML; a base outside the overlay's directory is named by a relative path (it refuses absolute ones).
    let rendered = renderDeploy(adminKubeconfig);
    if (components.length > 0) {
      writeFileSync(join(dir, 'kustomization.yaml'), withComponents(dir, components));
      rendered = renderDeploy(adminKubeconfig, dir);
    }
    writeFileSync(join(dir, 'kustomization.yaml'), overlay(dir, rendered, to, removed, components));
    return use(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
};

/** `kubectl apply -k` of the shipped base (with `components`) moved into `to`, with `removed` verbs taken out. */
export const applyDeploy = (
  adminKubeconfig: string,
  to: Namespaces,
  removed: readonly VerbRemoved[] = [],
  components: readonly DeployComponent[] = [],
): void => {
  withOverlay(adminKubeconfig, to, removed, (dir) => kubectl(adminKubeconfig, ['apply', '-k', dir]), components);
};

/** The overlay as kustomize renders it, for tests that check what it grants. */
export const renderOverlay = (
  adminKubeconfig: string,
  to: Namespaces,
  removed: readonly VerbRemoved[] = [],
): Manifest[] => withOverlay(adminKubeconfig, to, removed, (dir) => renderDeploy(adminKubeconfig, dir));
