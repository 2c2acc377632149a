import { execFileSync } from 'node:child_process';
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
import type { RecordedRequest } from '../../../../k8s-adapter/test/support/fake-api-server.js';
import { asAdmin, controlPlane } from '../../../../k8s-adapter/test/support/real-cluster/admin.js';
import {
  JOBS_MANAGER,
  REQUESTS_PROXY,
  RESOURCE_MONITOR,
  type RealRelease,
  type RealReleaseOptions,
  startRealRelease,
} from '../../../../k8s-adapter/test/support/real-cluster/real-release.js';
import type { SeenRequest } from '../../../../k8s-adapter/test/support/registry-local-server.js';
import { bundleEnv } from '../../e2e/support/chart-env.js';
import type { RegistryEndpoint } from '../../e2e/support/cluster-stage.js';
import { type BundleRun, runBundle } from '../../e2e/support/run-bundle.js';

// A story's stage on the real control plane: a release of its own
// (real-release.ts — the real controllers, kwok's pods, the shipped Roles as
// the only rights) and the bundled CLI run against it as the CronJob runs it:
// the shipped CronJob's environment moved into the release's namespaces,
// KUBECONFIG the ServiceAccount's token through the API proxy, HOME a temp
// dir. Each run comes back with the requests the apiserver received through
// the proxy and those that reached the registry while it ran.

/**
 * Every run on this stage is killed past this bound. The longest, a staged
 * re-image, waits for a slow pull twice per workload (kwok's 3 s
 * `pod-ready-after-a-slow-pull` stage: the staging pods, then the rollout).
 * Its test took 20.4 s on the idle two-core machine, the tick most of it, so the
 * bundle's usual 20 s bound for a hung CLI left no margin and killed the tick
 * under load (2026-12-03). Still a bound, three times that.
 */
export const STAGE_RUN_BOUND_MS = 60_000;

/** Bounds of the real-cluster stories: the adapter polls every 2 s, so a rollout wait needs a few polls. */
export const REAL_BOUNDS = {
  ROLLOUT_TIMEOUT: '8s',
  SETTLE_TIMEOUT: '1s',
  API_TIMEOUT: '5s',
  REGISTRY_TIMEOUT: '5s',
} as const;

export interface RealStageRun extends BundleRun {
  readonly api: readonly RecordedRequest[];
  readonly registry: readonly SeenRequest[];
}

export interface RealStage {
  readonly release: RealRelease;
  env(overrides?: Readonly<Record<string, string>>): Record<string, string>;
  /** One `image-refresh tick`; its last stderr line is checked to be the summary with the process's exit code. */
  tick(overrides?: Readonly<Record<string, string>>): Promise<RealStageRun>;
  run(args: readonly string[], overrides?: Readonly<Record<string, string>>): Promise<RealStageRun>;
  /** The `tracebloc.io/` annotations of the jobs-manager Deployment. */
  bookkeeping(): Promise<Record<string, string>>;
  /** Container → image of every workload's pod template, by object name. */
  images(): Promise<Record<string, Record<string, string>>>;
  /** Container → image of every pod the controllers run now, by pod name, for one workload. */
  podImages(name: string): Promise<Record<string, Record<string, string>>>;
  /** `kubectl` as the cluster's admin, past the proxy (describe, get): its stdout. */
  kubectl(args: readonly string[]): string;
  close(): Promise<void>;
}

const templateImages = (object: V1Deployment | V1DaemonSet): Record<string, string> =>
  Object.fromEntries((object.spec?.template.spec?.containers ?? []).map((c) => [c.name, c.image ?? ''] as const));

const podImages = (pod: V1Pod): Record<string, string> =>
  Object.fromEntries((pod.spec?.containers ?? []).map((c) => [c.name, c.image ?? ''] as const));

export const startRealStage = async (
  registry: RegistryEndpoint,
  options: RealReleaseOptions = {},
): Promise<RealStage> => {
  const release = await startRealRelease(options);
  const home = mkdtempSync(join(tmpdir(), 'image-refresh-real-home-'));
  const { namespaces } = release;
  const env = (overrides: Readonly<Record<string, string>> = {}): Record<string, string> =>
    bundleEnv({ registry, cluster: { kubeconfig: release.kubeconfig }, home }, REAL_BOUNDS, {
      RELEASE_NAMESPACE: namespaces.release,
      NODE_AGENTS_NAMESPACE: namespaces.agents,
      ...overrides,
    });
  const run = async (args: readonly string[], overrides?: Readonly<Record<string, string>>): Promise<RealStageRun> => {
    const from = { api: release.proxy.requests.length, registry: registry.seen.length };
    const result = await runBundle(args, env(overrides), STAGE_RUN_BOUND_MS);
    return {
      ...result,
      api: release.proxy.requests.slice(from.api),
      registry: registry.seen.slice(from.registry),
    };
  };
  return {
    release,
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
        Object.entries((await release.jobsManager()).metadata?.annotations ?? {}).filter(
          ([key]) => key.startsWith('tracebloc.io/') && !key.endsWith('/topology-fingerprint'),
        ),
      ),
    images: async () => ({
      [JOBS_MANAGER]: templateImages(await release.jobsManager()),
      [REQUESTS_PROXY]: templateImages(await release.requestsProxy()),
      [RESOURCE_MONITOR]: templateImages(await release.resourceMonitor()),
    }),
    podImages: async (name) =>
      Object.fromEntries(
        (await release.podsOf(name))
          .filter((pod) => pod.metadata?.deletionTimestamp === undefined)
          .map((pod) => [pod.metadata?.name ?? '', podImages(pod)] as const),
      ),
    kubectl: (args) =>
      execFileSync('kubectl', [...args], {
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin', KUBECONFIG: controlPlane().kubeconfig, HOME: home },
        encoding: 'utf8',
        timeout: 30_000,
      }),
    close: async () => {
      await release.close();
      rmSync(home, { recursive: true, force: true });
    },
  };
};

/** The requests of a run as `METHOD kind/name` (events: `METHOD events`), as the stories assert them. */
export const requestsOf = (run: RealStageRun): string[] =>
  run.api.map((r) =>
    r.route === 'event'
      ? `${r.method} events`
      : `${r.method} ${r.kind ?? r.path}${r.name === undefined ? '' : `/${r.name}`}`,
  );

/** The admin's hand: a human's `kubectl set image` on a Deployment of the release (field manager kubectl-set). */
export const humanSetsImage = async (stage: RealStage, name: string, container: string, image: string) => {
  await asAdmin().apps.patchNamespacedDeployment(
    {
      name,
      namespace: stage.release.namespaces.release,
      fieldManager: 'kubectl-set',
      body: { spec: { template: { spec: { containers: [{ name: container, image }] } } } },
    },
    setHeaderOptions('Content-Type', PatchStrategy.StrategicMergePatch),
  );
};
