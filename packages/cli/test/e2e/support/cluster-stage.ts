import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import {
  annotationsOf,
  type ChartCluster,
  type ChartOptions,
  imagesOf,
  JOBS_MANAGER,
  REQUESTS_PROXY,
  RESOURCE_MONITOR,
  startChartCluster,
  templateOf,
} from '../../../../k8s-adapter/test/support/fake-api-chart.js';
import type { JsonObject } from '../../../../k8s-adapter/test/support/fake-api-patch.js';
import type { RecordedRequest } from '../../../../k8s-adapter/test/support/fake-api-server.js';
import type { SeenRequest } from '../../../../k8s-adapter/test/support/registry-local-server.js';
import { bundleEnv } from './chart-env.js';
import { type BundleRun, runBundle } from './run-bundle.js';

// One story's stage: a fresh fake API server holding the chart's release,
// and the bundled CLI run against it as the CronJob runs it — the shipped
// CronJob's environment (deploy/cronjob.yaml) with short bounds, KUBECONFIG
// naming this server, HOME a temp dir so ~/.kube is never read. Each run
// comes back with the requests the API server and the registry received
// while it ran, so a story asserts on the wire what a switch reads and
// writes, not on what the CLI says it did.

/** The bounds every story of the switch suites runs with: short, and named in the test titles. */
export const SHORT_BOUNDS = {
  ROLLOUT_TIMEOUT: '500ms',
  SETTLE_TIMEOUT: '300ms',
  API_TIMEOUT: '2s',
  REGISTRY_TIMEOUT: '2s',
} as const;

/** What the stage needs of the registry: where the CLI is pointed, and what reached it. */
export interface RegistryEndpoint {
  readonly url: string;
  readonly seen: readonly SeenRequest[];
}

export interface StageRun extends BundleRun {
  /** Every request the fake API server received during this run, in order. */
  readonly api: readonly RecordedRequest[];
  /** Every request that reached the registry endpoint during this run. */
  readonly registry: readonly SeenRequest[];
}

export interface Stage {
  readonly cluster: ChartCluster;
  /** The environment of every run, with `overrides` on top. */
  env(overrides?: Readonly<Record<string, string>>): Record<string, string>;
  /** One `image-refresh tick`; its last stderr line is checked to be the summary, with the process's own exit code. */
  tick(overrides?: Readonly<Record<string, string>>): Promise<StageRun>;
  /** Any other command (`rearm`, `status`) on the same environment. */
  run(args: readonly string[], overrides?: Readonly<Record<string, string>>): Promise<StageRun>;
  /** The tick's bookkeeping on the jobs-manager Deployment: its `tracebloc.io/` annotations. */
  bookkeeping(): Record<string, string>;
  /** Container → image of every workload, by object name. */
  images(): Record<string, Record<string, string>>;
  /**
   * The pod template of every workload: a re-image moves it, bookkeeping does not (a Deployment's
   * metadata.generation moves for an annotation as well, as the real apiserver does it).
   */
  templates(): Record<string, JsonObject>;
  close(): Promise<void>;
}

export const startStage = async (registry: RegistryEndpoint, options: ChartOptions = {}): Promise<Stage> => {
  const cluster = await startChartCluster({ stepMs: 20, ...options });
  const home = mkdtempSync(join(tmpdir(), 'image-refresh-e2e-home-'));
  const env = (overrides: Readonly<Record<string, string>> = {}): Record<string, string> =>
    bundleEnv({ registry, cluster, home }, SHORT_BOUNDS, overrides);
  const run = async (args: readonly string[], overrides?: Readonly<Record<string, string>>): Promise<StageRun> => {
    const from = { api: cluster.server.requests.length, registry: registry.seen.length };
    const result = await runBundle(args, env(overrides));
    return {
      ...result,
      api: cluster.server.requests.slice(from.api),
      registry: registry.seen.slice(from.registry),
    };
  };
  return {
    cluster,
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
    bookkeeping: () =>
      Object.fromEntries(
        Object.entries(annotationsOf(cluster.jobsManager())).filter(
          ([key]) => key.startsWith('tracebloc.io/') && !key.endsWith('/topology-fingerprint'),
        ),
      ),
    images: () => ({
      [JOBS_MANAGER]: imagesOf(cluster.jobsManager()),
      [REQUESTS_PROXY]: imagesOf(cluster.requestsProxy()),
      [RESOURCE_MONITOR]: imagesOf(cluster.resourceMonitor()),
    }),
    templates: () => ({
      [JOBS_MANAGER]: templateOf(cluster.jobsManager()),
      [REQUESTS_PROXY]: templateOf(cluster.requestsProxy()),
      [RESOURCE_MONITOR]: templateOf(cluster.resourceMonitor()),
    }),
    close: async () => {
      await cluster.close();
      rmSync(home, { recursive: true, force: true });
    },
  };
};

/** A request as `METHOD kind/name` (events: `METHOD events`), for asserting what a run touched. */
export const describeRequest = (r: RecordedRequest): string =>
  r.route === 'event'
    ? `${r.method} events`
    : r.kind === undefined
      ? `${r.method} ${r.path}`
      : `${r.method} ${r.kind}/${r.name ?? '*'}`;

/** The PATCHes of a run, in the order the server received them: the object and the body it was sent. */
export const patchesOf = (run: StageRun): { target: string; body: unknown }[] =>
  run.api.filter((r) => r.route === 'patch').map((r) => ({ target: `${r.kind}/${r.name}`, body: JSON.parse(r.body) }));
