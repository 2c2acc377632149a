import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  PatchStrategy,
  setHeaderOptions,
  type V1DaemonSet,
  type V1Deployment,
  type V1Pod,
} from '@kubernetes/client-node';
import { expect } from 'vitest';
import { daemonSetObject, deploymentObject } from '../../../../k8s-adapter/test/support/fake-api-objects.js';
import type { JsonObject } from '../../../../k8s-adapter/test/support/fake-api-patch.js';
import {
  asAdmin,
  controlPlane,
  eventually,
  isRolledOut,
} from '../../../../k8s-adapter/test/support/real-cluster/admin.js';
import {
  type ServiceAccountAccess,
  startServiceAccountAccess,
} from '../../../../k8s-adapter/test/support/real-cluster/service-account-access.js';
import type { RegistryEndpoint } from '../../e2e/support/cluster-stage.js';
import { runBundle } from '../../e2e/support/run-bundle.js';
import { REAL_BOUNDS, type RealStageRun, STAGE_RUN_BOUND_MS } from './real-stage.js';

// A user's own topology on the real control plane: the shop of
// packages/cli/examples/shop.yaml (docs/profiles.md) — namespaces `shop` and
// `shop-nodes`, a two-container `web` Deployment (the gate), a `worker`
// Deployment on the web image, an `agent` DaemonSet — created as the shop's
// own deploy would, rolled out by the real controllers onto kwok's nodes;
// examples/shop-rbac.yaml applied with `kubectl apply -f`, as its comment
// says; and the bundled CLI run with that file's ServiceAccount token (through
// the API proxy) and nothing else, IMAGE_REFRESH_PROFILE naming the example
// profile itself. The profile fixes the namespaces, so the stage is one per
// cluster and place (ShopPlace): a file that starts it twice would meet a
// namespace still terminating.

export const SHOP = 'shop';
export const SHOP_NODES = 'shop-nodes';
export const SERVICE_ACCOUNT = 'image-refresh';
/** The profile's prefix, as docs/profiles.md's bookkeeping table names the keys. */
export const PREFIX = 'shop.example.com';
/** The example itself, unchanged: the story runs what a user would copy. */
export const PROFILE = new URL('../../../examples/shop.yaml', import.meta.url).pathname;
export const RBAC = new URL('../../../examples/shop-rbac.yaml', import.meta.url).pathname;

/** The shop's repositories on Docker Hub (short names in the profile), as the tick's containers name them. */
export const REPO = { web: 'shop/web', log: 'shop/log', agent: 'shop/agent' } as const;

/** Who creates the shop's objects: their own deploy, which owns every field until someone else sets one. */
const OWNER = 'helm';

export type ShopWorkload = 'web' | 'worker' | 'agent';

export interface ShopObjects {
  readonly web: V1Deployment;
  readonly worker: V1Deployment;
  readonly agent: V1DaemonSet;
}

/** One Event in `shop` as the apiserver holds it. */
export interface StoredEvent {
  readonly type: string;
  readonly reason: string;
  readonly note: string;
  readonly count: number;
  /** Who reported it: image-refresh, or a controller (ScalingReplicaSet, …). */
  readonly reportingController: string;
}

export interface KubectlRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

export interface ShopStage {
  readonly access: ServiceAccountAccess;
  env(overrides?: Readonly<Record<string, string>>): Record<string, string>;
  /** One `image-refresh tick`; its last stderr line is checked to be the summary with the process's exit code. */
  tick(overrides?: Readonly<Record<string, string>>): Promise<RealStageRun>;
  /** Any command of the bundled CLI (`tick --dry-run`, `status`), with the stage's environment and `overrides`. */
  run(args: readonly string[], overrides?: Readonly<Record<string, string>>): Promise<RealStageRun>;
  /** The `shop.example.com/` annotations of the web Deployment (the gate). */
  bookkeeping(): Promise<Record<string, string>>;
  /** The three objects as the apiserver holds them now (admin's read, past the proxy). */
  objects(): Promise<ShopObjects>;
  /** Container → image of every workload's pod template. */
  images(): Promise<Record<ShopWorkload, Record<string, string>>>;
  /** Container → image of every pod the controllers run now for one workload, by pod name. */
  podImages(workload: ShopWorkload): Promise<Record<string, Record<string, string>>>;
  /** Every Event in `shop`, by name. */
  events(): Promise<Map<string, StoredEvent>>;
  /** A human's `kubectl set image` (field manager kubectl-set). */
  humanSetsImage(workload: ShopWorkload, container: string, image: string): Promise<void>;
  /** Waits until the three workloads are rolled out (kubectl's rules). */
  settled(withinMs?: number): Promise<void>;
  /**
   * `kubectl` with the ServiceAccount's kubeconfig (through the proxy), or as
   * the cluster's admin past it: exit code and stdout. Asynchronous, since
   * the proxy it talks to runs in this process.
   */
  kubectl(who: 'serviceAccount' | 'admin', args: readonly string[], input?: string): Promise<KubectlRun>;
  /**
   * What the apiserver says the ServiceAccount may do in `namespace`
   * (`kubectl auth can-i --list`, rows as canIRows makes them, sorted), less
   * what a ServiceAccount of the shop's namespace that no Role names may do
   * (discovery, reviews of itself): what the Roles grant.
   */
  grants(namespace: string): Promise<string[]>;
  close(): Promise<void>;
}

/**
 * Where the shop is installed, and how its ServiceAccount gets its rights:
 * by default examples/shop.yaml's namespaces and examples/shop-rbac.yaml
 * applied with kubectl; the chart's story installs it elsewhere and grants
 * with `helm install` (charts/image-refresh).
 */
export interface ShopPlace {
  readonly shop: string;
  readonly nodes: string;
  readonly serviceAccount: string;
  /** Creates the ServiceAccount and its Roles, once the namespaces exist (the admin's kubeconfig, a HOME of its own). */
  grant(kubeconfig: string, home: string): void | Promise<void>;
  /** The ServiceAccount's token, minted as an operator would; absent, one from the TokenRequest API. */
  token?(kubeconfig: string, home: string): string;
}

const SHOP_RBAC_APPLIED: ShopPlace = {
  shop: SHOP,
  nodes: SHOP_NODES,
  serviceAccount: SERVICE_ACCOUNT,
  grant: (kubeconfig, home) => {
    // As the file's own comment says an operator applies it: after the namespaces exist.
    execFileSync('kubectl', ['apply', '-f', RBAC], {
      env: kubectlEnv(kubeconfig, home),
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: 60_000,
    });
  },
};

type Where = Readonly<Record<ShopWorkload, { readonly namespace: string; readonly name: string }>>;

/** Where each workload lives, as the profile names it. */
const whereIn = (place: ShopPlace): Where => ({
  web: { namespace: place.shop, name: 'web' },
  worker: { namespace: place.shop, name: 'worker' },
  agent: { namespace: place.nodes, name: 'agent' },
});

/** A seed object as a create request wants it: no status, no controller-owned annotation. */
const forCreate = <A>(object: JsonObject): A => {
  const { status: _status, ...rest } = object;
  const metadata = rest.metadata as JsonObject;
  const {
    'deployment.kubernetes.io/revision': _r,
    'deprecated.daemonset.template.generation': _g,
    ...annotations
  } = (metadata.annotations as Record<string, string> | undefined) ?? {};
  return { ...rest, metadata: { ...metadata, annotations } } as A;
};

const templateImages = (object: V1Deployment | V1DaemonSet): Record<string, string> =>
  Object.fromEntries((object.spec?.template.spec?.containers ?? []).map((c) => [c.name, c.image ?? ''] as const));

const podImages = (pod: V1Pod): Record<string, string> =>
  Object.fromEntries((pod.spec?.containers ?? []).map((c) => [c.name, c.image ?? ''] as const));

const kubectlEnv = (kubeconfig: string, home: string) => ({
  PATH: process.env.PATH ?? '/usr/bin:/bin',
  KUBECONFIG: kubeconfig,
  HOME: home,
});

/** A `kubectl` run that answers its exit code (`auth can-i` says "no" with 1), killed past 30 s. */
const kubectlRun = (
  args: readonly string[],
  env: Readonly<Record<string, string>>,
  input?: string,
): Promise<KubectlRun> =>
  new Promise((resolve, reject) => {
    // stdin piped (and ended) always: a stdio array mixing 'ignore' and 'pipe' types every stream as possibly null.
    const child = spawn('kubectl', [...args], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    child.stdin.end(input);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? -1, stdout, stderr });
    });
  });

/**
 * The shop, installed on tag `tag` (every container on `docker.io/<repo>:<tag>`),
 * rolled out, with shop-rbac.yaml applied and the CLI pointed at `registry`.
 */
export const startShopStage = async (
  registry: RegistryEndpoint,
  tag: string,
  place: ShopPlace = SHOP_RBAC_APPLIED,
): Promise<ShopStage> => {
  const admin = asAdmin();
  const plane = controlPlane();
  const WHERE = whereIn(place);
  for (const name of [place.shop, place.nodes]) {
    await admin.core.createNamespace({
      body: { metadata: { name, labels: { 'image-refresh.test/real-cluster': 'true' } } },
    });
  }
  const home = mkdtempSync(join(tmpdir(), 'image-refresh-real-shop-home-'));
  const objects = async (): Promise<ShopObjects> => ({
    web: await admin.apps.readNamespacedDeployment(WHERE.web),
    worker: await admin.apps.readNamespacedDeployment(WHERE.worker),
    agent: await admin.apps.readNamespacedDaemonSet(WHERE.agent),
  });
  const settled = async (withinMs = 60_000): Promise<void> => {
    await eventually(
      'the shop rolled out',
      async () => (Object.values(await objects()).every(isRolledOut) ? true : undefined),
      withinMs,
    );
  };
  const removeShop = async (): Promise<void> => {
    rmSync(home, { recursive: true, force: true });
    // Not awaited to the end: the namespace controller finalizes in the background.
    for (const name of [place.shop, place.nodes]) await admin.core.deleteNamespace({ name });
  };
  let access: ServiceAccountAccess;
  try {
    await place.grant(plane.kubeconfig, home);
    const image = (repo: string) => `docker.io/${repo}:${tag}`;
    await admin.apps.createNamespacedDeployment({
      namespace: place.shop,
      fieldManager: OWNER,
      body: forCreate<V1Deployment>(
        deploymentObject({
          ...WHERE.web,
          containers: [
            { name: 'web', image: image(REPO.web) },
            { name: 'log', image: image(REPO.log) },
          ],
        }),
      ),
    });
    await admin.apps.createNamespacedDeployment({
      namespace: place.shop,
      fieldManager: OWNER,
      body: forCreate<V1Deployment>(
        deploymentObject({ ...WHERE.worker, containers: [{ name: 'worker', image: image(REPO.web) }] }),
      ),
    });
    await admin.apps.createNamespacedDaemonSet({
      namespace: place.nodes,
      fieldManager: OWNER,
      body: forCreate<V1DaemonSet>(
        daemonSetObject({ ...WHERE.agent, containers: [{ name: 'agent', image: image(REPO.agent) }] }),
      ),
    });
    await settled();
    access = await startServiceAccountAccess(place.shop, place.serviceAccount, place.token?.(plane.kubeconfig, home));
  } catch (error) {
    // A stage that never started is never closed: leave no namespace behind, then fail as it failed.
    await removeShop();
    throw error;
  }
  // The environment a shop operator's CronJob sets: the profile and its tag,
  // the way back on, short bounds; none of the chart's name variables (with a
  // profile each would be ignored and named in a WARN, docs/profiles.md).
  const env = (overrides: Readonly<Record<string, string>> = {}): Record<string, string> => ({
    IMAGE_REFRESH_PROFILE: PROFILE,
    IMAGE_TAG: tag,
    ON_ROLLOUT_FAILURE: 'revert',
    ...REAL_BOUNDS,
    IMAGE_REFRESH_REGISTRY_URL: registry.url,
    KUBECONFIG: access.kubeconfig.path,
    HOME: home,
    HOSTNAME: 'shop-image-refresh-real',
    ...overrides,
  });
  const run = async (args: readonly string[], overrides?: Readonly<Record<string, string>>): Promise<RealStageRun> => {
    const from = { api: access.proxy.requests.length, registry: registry.seen.length };
    const result = await runBundle(args, env(overrides), STAGE_RUN_BOUND_MS);
    return {
      ...result,
      api: access.proxy.requests.slice(from.api),
      registry: registry.seen.slice(from.registry),
    };
  };

  return {
    access,
    env,
    run,
    tick: async (overrides) => {
      const result = await run(['tick'], overrides);
      expect(result.stderr.at(-1)).toMatch(
        new RegExp(`^\\[image-refresh\\] summary: outcome=\\w+ exit=${result.exitCode} `),
      );
      return result;
    },
    // The topology fingerprint (docs/behaviour.md §3.4c) is the ownership check's, asserted where it is tested.
    bookkeeping: async () =>
      Object.fromEntries(
        Object.entries((await objects()).web.metadata?.annotations ?? {}).filter(
          ([key]) => key.startsWith(`${PREFIX}/`) && !key.endsWith('/topology-fingerprint'),
        ),
      ),
    objects,
    images: async () => {
      const { web, worker, agent } = await objects();
      return { web: templateImages(web), worker: templateImages(worker), agent: templateImages(agent) };
    },
    podImages: async (workload) =>
      Object.fromEntries(
        (
          await admin.core.listNamespacedPod({
            namespace: WHERE[workload].namespace,
            labelSelector: `app=${WHERE[workload].name}`,
          })
        ).items
          .filter((pod) => pod.metadata?.deletionTimestamp === undefined)
          .map((pod) => [pod.metadata?.name ?? '', podImages(pod)] as const),
      ),
    events: async () =>
      new Map(
        (await admin.events.listNamespacedEvent({ namespace: place.shop })).items.map(
          (e) =>
            [
              e.metadata?.name ?? '',
              {
                type: e.type ?? '',
                reason: e.reason ?? '',
                note: e.note ?? '',
                count: e.series?.count ?? 1,
                reportingController: e.reportingController ?? '',
              },
            ] as const,
        ),
      ),
    humanSetsImage: async (workload, container, image) => {
      const body = { spec: { template: { spec: { containers: [{ name: container, image }] } } } };
      const options = setHeaderOptions('Content-Type', PatchStrategy.StrategicMergePatch);
      const target = { ...WHERE[workload], body, fieldManager: 'kubectl-set' };
      if (workload === 'agent') await admin.apps.patchNamespacedDaemonSet(target, options);
      else await admin.apps.patchNamespacedDeployment(target, options);
    },
    settled,
    kubectl: (who, args, input) =>
      kubectlRun(args, kubectlEnv(who === 'admin' ? plane.kubeconfig : access.kubeconfig.path, home), input),
    grants: async (namespace) => {
      const noRoles = [
        '--as',
        `system:serviceaccount:${place.shop}:no-roles`,
        '--as-group',
        'system:serviceaccounts',
        '--as-group',
        `system:serviceaccounts:${place.shop}`,
        '--as-group',
        'system:authenticated',
      ];
      const env = (kubeconfig: string) => kubectlEnv(kubeconfig, home);
      const own = await kubectlRun(['auth', 'can-i', '--list', '-n', namespace], env(access.kubeconfig.path));
      const anyone = await kubectlRun(['auth', 'can-i', '--list', '-n', namespace, ...noRoles], env(plane.kubeconfig));
      expect(own.code, own.stderr).toBe(0);
      expect(anyone.code, anyone.stderr).toBe(0);
      const baseline = new Set(canIRows(anyone.stdout));
      return canIRows(own.stdout)
        .filter((row) => !baseline.has(row))
        .sort();
    },
    close: async () => {
      await access.close();
      await removeShop();
    },
  };
};

/**
 * The Events image-refresh recorded in a stretch of the story: those new
 * since `before`, and those whose series counted a repeat, sorted. The
 * controllers' own Events (ScalingReplicaSet, SuccessfulCreate, …) are not
 * the tick's and are left out.
 */
export const recordedSince = (
  before: ReadonlyMap<string, StoredEvent>,
  after: ReadonlyMap<string, StoredEvent>,
): StoredEvent[] =>
  [...after]
    .filter(([name, e]) => e.reportingController.endsWith('/image-refresh') && e.count > (before.get(name)?.count ?? 0))
    .map(([, e]) => e)
    .sort((a, b) => `${a.type} ${a.reason}`.localeCompare(`${b.type} ${b.reason}`));

/**
 * `kubectl auth can-i --list`'s table as rows (`<resource> <non-resource URLs>
 * <names> <verbs>`, whitespace folded); the header is left out.
 */
const canIRows = (table: string): string[] =>
  table
    .split('\n')
    .slice(1)
    .map((line) => line.trim().replace(/\s+/g, ' '))
    .filter((line) => line !== '');
