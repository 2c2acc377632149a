import * as E from 'fp-ts/lib/Either.js';
import { describe, expect, it } from 'vitest';
import { parseDurationMs } from '../src/config/duration.js';
import { parseTickConfig } from '../src/config/parse-config.js';
import { DEFAULT_PROFILE } from '../src/config/profile/chart-profile.js';
import type { ConfigError } from '../src/config/tick-config.js';
import { runTickFromEnvironment } from '../src/run-tick.js';
import { SIM_ENVIRONMENT, SimWorld, simConfig, simPorts } from '../src/sim/index.js';
import { chartPinsOf } from './support/chart.js';

// docs/behaviour.md §2: the chart's environment contract. A malformed value is exit 2 with
// a message naming the variable — never a silently disabled guard (docs/behaviour.md §5).

const problems = (env: Record<string, string | undefined>): readonly ConfigError[] => {
  const parsed = parseTickConfig(env);
  if (E.isRight(parsed)) throw new Error('expected the environment to be rejected');
  return parsed.left;
};

describe('parseTickConfig', () => {
  it('takes the chart defaults for what the chart may leave out', () => {
    const parsed = parseTickConfig({ RELEASE_NAME: 'stg', RELEASE_NAMESPACE: 'tracebloc', IMAGE_TAG: 'prod' });
    if (E.isLeft(parsed)) throw new Error('expected the chart environment to parse');
    const { topology, ...rest } = parsed.right;
    expect(topology.profile).toStrictEqual(
      DEFAULT_PROFILE({
        releaseName: 'stg',
        releaseNamespace: 'tracebloc',
        deploymentName: 'stg-jobs-manager',
        requestsProxyDeployment: 'stg-requests-proxy',
        resourceMonitorDaemonSet: 'stg-resource-monitor',
        nodeAgentsNamespace: 'tracebloc-node-agents',
      }),
    );
    expect(chartPinsOf(parsed.right)).toEqual({
      jobsManager: false,
      podsMonitor: false,
      resourceMonitor: false,
      requestsProxy: false,
    });
    expect(rest).toStrictEqual({
      ownershipCheck: true,
      ignoredVariables: [],
      imageRegistry: 'docker.io',
      mirror: undefined,
      imageTag: 'prod',
      rolloutTimeoutMs: 600_000,
      maxRefreshAttempts: 3,
      maxSkipTicks: 8,
      settleTimeoutMs: 10_000,
      apiTimeoutMs: 15_000,
      registryTimeoutMs: 10_000,
      registryUrl: 'https://registry-1.docker.io',
      authUrl: undefined,
      flapLockoutIsFinding: false,
      maxResolveFailureTicks: 8,
      registryBudgetFloor: 10,
      registryBudgetGuard: true,
      kubernetesEvents: true,
      reconcileLive: 'off',
      decoupledRefresh: false,
      onRolloutFailure: 'keep',
      rolloutStableForMs: 0,
      minDigestAgeMs: 0,
      rolloutRing: 0,
      ringDelayMs: 3_600_000,
      startJitterMs: 0,
    });
  });

  it('reads every variable of the chart and ours', () => {
    const config = simConfig({
      MAX_SKIP_TICKS: '2',
      MAX_REFRESH_ATTEMPTS: '5',
      ROLLOUT_TIMEOUT: '1m30s',
      SETTLE_TIMEOUT: '5s',
      API_TIMEOUT: '2500ms',
      REGISTRY_TIMEOUT: '3s',
      IMAGE_REFRESH_REGISTRY_URL: 'http://127.0.0.1:5000/',
      IMAGE_REFRESH_AUTH_URL: 'http://127.0.0.1:5001/token?service=local',
      FLAP_LOCKOUT_EXIT: '1',
      REGISTRY_BUDGET_FLOOR: '0',
      IMAGE_REFRESH_EVENTS: '0',
      RECONCILE_LIVE: 'report',
      DECOUPLED_REFRESH: '1',
      JOBS_MANAGER_PINNED: '1',
      REQUESTS_PROXY_PINNED: '1',
    });
    expect(config).toMatchObject({
      maxSkipTicks: 2,
      maxRefreshAttempts: 5,
      rolloutTimeoutMs: 90_000,
      settleTimeoutMs: 5_000,
      apiTimeoutMs: 2_500,
      registryTimeoutMs: 3_000,
      registryUrl: 'http://127.0.0.1:5000',
      authUrl: 'http://127.0.0.1:5001/token?service=local',
      flapLockoutIsFinding: true,
      registryBudgetFloor: 0,
      kubernetesEvents: false,
      reconcileLive: 'report',
      decoupledRefresh: true,
    });
    expect(chartPinsOf(config)).toEqual({
      jobsManager: true,
      podsMonitor: false,
      resourceMonitor: false,
      requestsProxy: true,
    });
  });

  it('reports every problem at once, each naming the variable and its value', () => {
    expect(
      problems({
        ...SIM_ENVIRONMENT,
        MAX_SKIP_TICKS: 'abc',
        MAX_REFRESH_ATTEMPTS: '0',
        JOBS_MANAGER_PINNED: 'yes',
        ROLLOUT_TIMEOUT: '300',
        IMAGE_REFRESH_REGISTRY_URL: 'registry-1.docker.io',
      }).map((p) => [p.variable, p.value]),
    ).toEqual([
      ['JOBS_MANAGER_PINNED', 'yes'],
      ['IMAGE_REFRESH_REGISTRY_URL', 'registry-1.docker.io'],
      ['ROLLOUT_TIMEOUT', '300'],
      ['MAX_REFRESH_ATTEMPTS', '0'],
      ['MAX_SKIP_TICKS', 'abc'],
    ]);
  });

  it.each([
    ['MAX_SKIP_TICKS', 'abc'],
    ['MAX_SKIP_TICKS', '-1'],
    ['MAX_SKIP_TICKS', '0'],
    ['MAX_SKIP_TICKS', '2.5'],
    ['MAX_SKIP_TICKS', ' 8'],
    ['MAX_REFRESH_ATTEMPTS', '3x'],
    ['MAX_REFRESH_ATTEMPTS', '99999999999999999999'],
    ['REQUESTS_PROXY_PINNED', 'true'],
    ['PODS_MONITOR_PINNED', '2'],
    ['ROLLOUT_TIMEOUT', '10 m'],
    ['ROLLOUT_TIMEOUT', '0s'],
    ['SETTLE_TIMEOUT', 'soon'],
    ['API_TIMEOUT', '-5s'],
    ['REGISTRY_TIMEOUT', '1d'],
    ['DEPLOYMENT_NAME', 'Stg_Jobs'],
    ['NODE_AGENTS_NAMESPACE', 'a.b'],
    ['IMAGE_TAG', 'no spaces'],
    ['FLAP_LOCKOUT_EXIT', 'yes'],
    ['REGISTRY_BUDGET_FLOOR', '-1'],
    ['REGISTRY_BUDGET_FLOOR', 'ten'],
    ['IMAGE_REFRESH_EVENTS', 'off'],
    ['RECONCILE_LIVE', 'yes'],
    ['DECOUPLED_REFRESH', '2'],
    ['IMAGE_REFRESH_AUTH_URL', 'auth.docker.io/token'],
    ['IMAGE_REFRESH_AUTH_URL', 'ftp://auth.example/token'],
    ['IMAGE_REFRESH_AUTH_URL', 'https://auth.example/token with space'],
  ])('%s=%j is a configuration error naming the variable', (variable, value) => {
    const found = problems({ ...SIM_ENVIRONMENT, [variable]: value });
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({ variable, value });
  });

  it('names the variables that are required and missing', () => {
    expect(problems({}).map((p) => [p.variable, p.value])).toEqual([
      ['RELEASE_NAME', undefined],
      ['RELEASE_NAMESPACE', undefined],
      ['IMAGE_TAG', undefined],
    ]);
  });

  it('treats an empty value as unset, like the shell default expansion X:-default', () => {
    const config = simConfig({ MAX_SKIP_TICKS: '', IMAGE_REGISTRY: '', PODS_MONITOR_PINNED: '' });
    expect(config.maxSkipTicks).toBe(8);
    expect(config.imageRegistry).toBe('docker.io');
    expect(chartPinsOf(config).podsMonitor).toBe(false);
  });
});

describe('a malformed environment', () => {
  it('ends the tick with exit 2 and a clear message, before any port is built or called', async () => {
    let built = 0;
    const world = new SimWorld(simConfig());
    const outcome = await runTickFromEnvironment({ ...SIM_ENVIRONMENT, MAX_SKIP_TICKS: 'abc' }, () => {
      built += 1;
      return simPorts(world);
    });
    expect(outcome.exitCode).toBe(2);
    expect(outcome.result).toBe('configInvalid');
    expect(outcome.events.map((e) => e.message)).toEqual([
      'ERROR: configuration: MAX_SKIP_TICKS="abc": must be a whole number of at least 1 (a ceiling that is not a number would disable its guard)',
    ]);
    // Nothing was done: the outcome says so in every list, and its one finding is its one line.
    expect(outcome.findings).toEqual(outcome.events);
    expect([outcome.writes, outcome.reimages, outcome.digestChanges]).toEqual([[], [], []]);
    expect(built).toBe(0);
    expect(world.calls).toEqual([]);
  });

  it('a token realm that is not an http(s) URL (IMAGE_REFRESH_AUTH_URL) is exit 2 naming it', async () => {
    const world = new SimWorld(simConfig());
    const outcome = await runTickFromEnvironment(
      { ...SIM_ENVIRONMENT, IMAGE_REFRESH_AUTH_URL: 'auth.docker.io/token' },
      () => simPorts(world),
    );
    expect(outcome.exitCode).toBe(2);
    expect(outcome.events.map((e) => e.message)).toEqual([
      'ERROR: configuration: IMAGE_REFRESH_AUTH_URL="auth.docker.io/token": must be an http(s) URL of a token endpoint such as https://auth.docker.io/token?service=registry.docker.io',
    ]);
    expect(world.calls).toEqual([]);
  });

  it('a valid environment runs the tick', async () => {
    const world = new SimWorld(simConfig());
    const outcome = await runTickFromEnvironment(SIM_ENVIRONMENT, () => simPorts(world));
    expect(outcome.exitCode).toBe(0);
    expect(world.calls.length).toBeGreaterThan(0);
  });
});

describe('parseDurationMs (kubectl --timeout syntax)', () => {
  it.each([
    ['10m', 600_000],
    ['300s', 300_000],
    ['1m30s', 90_000],
    ['1.5h', 5_400_000],
    ['250ms', 250],
    ['0s', 0],
    // Go's micro sign, U+00B5 (escaped in the source's expressions: see duration.ts).
    ['2500\u00b5s', 2.5],
    ['1s500000us', 1_500],
  ])('%s is %d ms', (text, ms) => expect(parseDurationMs(text)).toBe(ms));

  it.each(['300', '', 'm', '10 m', '1d', '-5s', '5s ', '.s'])('%j is not a duration', (text) =>
    expect(parseDurationMs(text)).toBeUndefined(),
  );
});
