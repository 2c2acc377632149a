import { rmSync } from 'node:fs';
import type { Annotations, ClusterPort, TickConfig } from '@image-refresh/core';
import { simConfig } from '@image-refresh/core/sim';
import { KubeConfig } from '@kubernetes/client-node';
import type { Either } from 'fp-ts/lib/Either.js';
import { pipe } from 'fp-ts/lib/function.js';
import * as TE from 'fp-ts/lib/TaskEither.js';
import { afterEach, expect } from 'vitest';
import { workloadRef } from '../../../core/test/support/chart.js';
import { type ClusterPortOptions, createClusterPort } from '../../src/cluster/index.js';
import { type ChartCluster, type ChartOptions, startChartCluster } from '../support/fake-api-chart.js';
import type { FakeKubeconfig } from '../support/fake-api-kubeconfig.js';

// Shared by the adapter's tests: the chart's config with bounds short enough
// for a test (SIM_ENVIRONMENT names the same release the fake cluster holds),
// a client-node KubeConfig for the fake server, and a port on it.

// API_TIMEOUT leaves room for a slow first request on a loaded 2-core CI
// machine (the property suite runs beside these tests); the bounds are still
// far below the defaults, so every wait stays short.
export const SHORT = { API_TIMEOUT: '1s', SETTLE_TIMEOUT: '300ms', ROLLOUT_TIMEOUT: '2s' } as const;

/** Slack on "cut off at the bound" timings: scheduling on a busy machine, not the bound, is what varies. */
export const TIMING_SLACK_MS = 1_000;

export const testConfig = (overrides: Readonly<Record<string, string>> = {}): TickConfig =>
  simConfig({ ...SHORT, ...overrides });

/** client-node's KubeConfig for a kubeconfig written by writeFakeKubeconfig; the file is removed once read. */
export const kubeConfigAt = (kubeconfig: FakeKubeconfig, keep = false): KubeConfig => {
  const kc = new KubeConfig();
  kc.loadFromFile(kubeconfig.path);
  if (!keep) rmSync(kubeconfig.dir, { recursive: true, force: true });
  return kc;
};

export const kubeConfigFor = (cluster: ChartCluster): KubeConfig => kubeConfigAt(cluster.kubeconfig, true);

export const FAST: ClusterPortOptions = { pollIntervalMs: 40, progressIntervalMs: 100 };

export const portOn = (
  cluster: ChartCluster,
  config: TickConfig = testConfig(),
  options: ClusterPortOptions = {},
): Required<ClusterPort> => createClusterPort(kubeConfigFor(cluster), config, { ...FAST, ...options });

export const refs = (config: TickConfig = testConfig()) => ({
  jobsManager: workloadRef(config, 'jobs-manager'),
  requestsProxy: workloadRef(config, 'requests-proxy'),
  resourceMonitor: workloadRef(config, 'resource-monitor'),
});

export const run = <E, A>(te: TE.TaskEither<E, A>): Promise<Either<E, A>> => te();

/** The Right of an Either, failing the test with the Left otherwise. */
export const right = <E, A>(result: Either<E, A>): A => {
  if (result._tag === 'Left') expect.fail(`expected Right, got Left ${JSON.stringify(result.left)}`);
  return result.right;
};

export const left = <E, A>(result: Either<E, A>): E => {
  if (result._tag === 'Right') expect.fail(`expected Left, got Right ${JSON.stringify(result.right)}`);
  return result.left;
};

/** What the adapter asked of the server, as `METHOD route kind/name`. */
export const calls = (cluster: ChartCluster): string[] =>
  cluster.server.requests.map((r) => `${r.method} ${r.route} ${r.kind ?? ''}/${r.name ?? ''}`);

/** The server received no request it does not model (the bats stub's exit 97, as an assertion). */
export const expectModelledTraffic = (cluster: ChartCluster): void => {
  expect(cluster.server.unexpected.map((r) => `${r.method} ${r.path}: ${r.problem}`)).toEqual([]);
};

/** Every request carried the kubeconfig's token and nothing was unexpected. */
export const expectCleanTraffic = (cluster: ChartCluster): void => {
  expectModelledTraffic(cluster);
  expect(cluster.server.requests.filter((r) => r.auth !== 'token').map((r) => r.path)).toEqual([]);
};

/**
 * Registers an afterEach that closes the test's chart cluster and fails the
 * test unless its traffic passes `check` (clean, by default; a suite on an
 * anonymous server, where no request carries a token, checks only that it
 * was modelled); returns the function that starts it.
 */
export const chartClusterPerTest = (
  defaults: ChartOptions = {},
  check: (cluster: ChartCluster) => void = expectCleanTraffic,
) => {
  let cluster: ChartCluster | undefined;
  afterEach(async () => {
    const c = cluster;
    cluster = undefined;
    if (c === undefined) return;
    try {
      check(c);
    } finally {
      await c.close();
    }
  });
  return async (options: ChartOptions = {}): Promise<ChartCluster> => {
    cluster = await startChartCluster({ ...defaults, ...options });
    return cluster;
  };
};

/** The settled guard's read: the jobs-manager Deployment within a settle window (the test config's by default), as its settledness. */
export const guardRead = (port: ClusterPort, settleWithinMs: number = testConfig().settleTimeoutMs) =>
  pipe(
    port.readGate(settleWithinMs),
    TE.map((s) => s.settledness),
  );

/** A bookkeeping read (no settle window): what `pick` takes from the jobs-manager's annotations. */
export const bookkeepingRead = <A>(port: ClusterPort, pick: (annotations: Annotations) => A) =>
  pipe(
    port.readGate(0),
    TE.map((s) => pick(s.annotations)),
  );
