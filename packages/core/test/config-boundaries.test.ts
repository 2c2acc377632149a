import * as E from 'fp-ts/lib/Either.js';
import { describe, expect, it } from 'vitest';
import type { Environment } from '../src/config/environment.js';
import { parseTickConfig } from '../src/config/parse-config.js';
import { describeConfigError, type TickConfig } from '../src/config/tick-config.js';
import { runTickFromEnvironment } from '../src/run-tick.js';
import {
  SHOP_PROFILE,
  SIM_ENVIRONMENT,
  SIM_PROFILE_ENVIRONMENT,
  SimWorld,
  simConfig,
  simPorts,
} from '../src/sim/index.js';
import { chartNamesOf, chartPinsOf } from './support/chart.js';

// docs/behaviour.md §2 at its edges: each variable's longest and shortest
// accepted value and the first one rejected, and the exact sentence an
// operator reads for every kind of problem (the line of exit 2, I18). A value
// on the wrong side of an edge is either a guard that silently changed its
// meaning or a chart that no longer deploys.

/** The configuration errors for the sim's environment with `overrides`, as the operator reads them. */
const said = (overrides: Record<string, string | undefined>): string[] => {
  const parsed = parseTickConfig({ ...SIM_ENVIRONMENT, ...overrides });
  return E.isLeft(parsed) ? parsed.left.map(describeConfigError) : [];
};

const accepted = (overrides: Record<string, string>): TickConfig => simConfig(overrides);

const name = (length: number, fill = 'a') => fill.repeat(length);

describe('the sentence of every kind of configuration error', () => {
  it.each([
    [{ RELEASE_NAME: undefined }, 'RELEASE_NAME: is required (the Helm release name)'],
    [{ RELEASE_NAMESPACE: '' }, 'RELEASE_NAMESPACE: is required (the namespace of the jobs-manager Deployment)'],
    [{ IMAGE_TAG: undefined }, 'IMAGE_TAG: is required (the floating tag to follow)'],
    [
      { DEPLOYMENT_NAME: 'Stg' },
      'DEPLOYMENT_NAME="Stg": is not a valid Kubernetes object name (lowercase letters, digits, "-" and ".", at most 253)',
    ],
    [
      { RELEASE_NAMESPACE: 'a.b' },
      'RELEASE_NAMESPACE="a.b": is not a valid namespace name (lowercase letters, digits and "-", at most 63)',
    ],
    [
      { MAX_SKIP_TICKS: '0' },
      'MAX_SKIP_TICKS="0": must be a whole number of at least 1 (a ceiling that is not a number would disable its guard)',
    ],
    [{ ROLLOUT_TIMEOUT: '10' }, 'ROLLOUT_TIMEOUT="10": is not a duration (use a unit, e.g. 30s, 10m, 1h30m)'],
    [{ SETTLE_TIMEOUT: '0s' }, 'SETTLE_TIMEOUT="0s": must be longer than zero'],
    [
      { API_TIMEOUT: '25h' },
      'API_TIMEOUT="25h": must be at most 24h (it is waited for inside one tick, which the Job\'s activeDeadlineSeconds must hold)',
    ],
    [{ JOBS_MANAGER_PINNED: 'yes' }, 'JOBS_MANAGER_PINNED="yes": must be "1" (pinned) or "0" (refreshed)'],
    [{ FLAP_LOCKOUT_EXIT: 'on' }, 'FLAP_LOCKOUT_EXIT="on": must be "1" (on) or "0" (off)'],
    [
      { RECONCILE_LIVE: 'repair' },
      'RECONCILE_LIVE="repair": must be "0" (off), "report" (say where live images drifted) or "1" (report and re-pin)',
    ],
    [
      { REGISTRY_BUDGET_FLOOR: 'none' },
      'REGISTRY_BUDGET_FLOOR="none": must be a whole number, 0 or more (0: only a 429 holds re-images back), or "off" (no budget guard, as the script)',
    ],
    [{ IMAGE_TAG: '-stg' }, 'IMAGE_TAG="-stg": is not a valid image tag'],
    [
      { IMAGE_REFRESH_PROFILE: '/etc/image-refresh/profile.yaml' },
      'IMAGE_REFRESH_PROFILE="/etc/image-refresh/profile.yaml": is set, but no profile document was read from it (the image-refresh CLI reads the file; a library caller passes the document to parseTickConfig)',
    ],
    [
      { IMAGE_REFRESH_REGISTRY_URL: 'ftp://r.example' },
      'IMAGE_REFRESH_REGISTRY_URL="ftp://r.example": must be an http(s) URL such as https://registry-1.docker.io',
    ],
    [
      { IMAGE_REFRESH_AUTH_URL: 'auth.example/token' },
      'IMAGE_REFRESH_AUTH_URL="auth.example/token": must be an http(s) URL of a token endpoint such as https://auth.docker.io/token?service=registry.docker.io',
    ],
  ])('%j: %s', (overrides, sentence) => {
    expect(said(overrides)).toEqual([sentence]);
  });

  it('the same sentence ends the tick, exit 2, before any port is built', async () => {
    let built = 0;
    const outcome = await runTickFromEnvironment({ ...SIM_ENVIRONMENT, SETTLE_TIMEOUT: '0s' }, () => {
      built += 1;
      return simPorts(new SimWorld(simConfig()));
    });
    expect([outcome.result, outcome.exitCode, built]).toEqual(['configInvalid', 2, 0]);
    expect(outcome.findings.map((e) => e.message)).toEqual([
      'ERROR: configuration: SETTLE_TIMEOUT="0s": must be longer than zero',
    ]);
  });
});

describe('names at their edges', () => {
  it('an object name: one character, dots and dashes inside, 253 characters', () => {
    expect(chartNamesOf(accepted({ DEPLOYMENT_NAME: 'a' })).deploymentName).toBe('a');
    expect(chartNamesOf(accepted({ DEPLOYMENT_NAME: '0-a.b-9' })).deploymentName).toBe('0-a.b-9');
    expect(chartNamesOf(accepted({ DEPLOYMENT_NAME: name(253) })).deploymentName).toHaveLength(253);
  });

  it.each([name(254), '-a', 'a-', '.a', 'a.', 'a_b', 'a b', 'aB'])('object name %j is rejected', (value) => {
    expect(said({ REQUESTS_PROXY_DEPLOYMENT: value })).toEqual([
      `REQUESTS_PROXY_DEPLOYMENT=${JSON.stringify(value)}: is not a valid Kubernetes object name (lowercase letters, digits, "-" and ".", at most 253)`,
    ]);
  });

  it('a namespace: one character, dashes inside, 63 characters', () => {
    expect(chartNamesOf(accepted({ NODE_AGENTS_NAMESPACE: 'a' })).nodeAgentsNamespace).toBe('a');
    expect(chartNamesOf(accepted({ NODE_AGENTS_NAMESPACE: '0-a-9' })).nodeAgentsNamespace).toBe('0-a-9');
    expect(chartNamesOf(accepted({ NODE_AGENTS_NAMESPACE: name(63) })).nodeAgentsNamespace).toHaveLength(63);
  });

  it.each([name(64), '-a', 'a-', 'a.b', 'aB', 'a_b'])('namespace %j is rejected', (value) => {
    expect(said({ NODE_AGENTS_NAMESPACE: value })).toEqual([
      `NODE_AGENTS_NAMESPACE=${JSON.stringify(value)}: is not a valid namespace name (lowercase letters, digits and "-", at most 63)`,
    ]);
  });

  it('the workloads are named after the release unless named; a missing release derives nothing to reject', () => {
    const config = accepted({ RELEASE_NAME: 'prod', DEPLOYMENT_NAME: '', RESOURCE_MONITOR_DAEMONSET: '' });
    expect([chartNamesOf(config).deploymentName, chartNamesOf(config).resourceMonitorDaemonSet]).toEqual([
      'prod-jobs-manager',
      'prod-resource-monitor',
    ]);
    expect(said({ RELEASE_NAME: undefined, DEPLOYMENT_NAME: undefined })).toEqual([
      'RELEASE_NAME: is required (the Helm release name)',
    ]);
  });

  it('an image tag: one character, 128 characters, and the characters a tag may hold', () => {
    expect(accepted({ IMAGE_TAG: 'a' }).imageTag).toBe('a');
    expect(accepted({ IMAGE_TAG: '_' }).imageTag).toBe('_');
    expect(accepted({ IMAGE_TAG: 'V1.2_rc-3' }).imageTag).toBe('V1.2_rc-3');
    expect(accepted({ IMAGE_TAG: name(128, 'T') }).imageTag).toHaveLength(128);
  });

  it.each([name(129, 'T'), '.stg', '-stg', 'stg/x', 'stg:x', 'stg '])('image tag %j is rejected', (value) => {
    expect(said({ IMAGE_TAG: value })).toEqual([`IMAGE_TAG=${JSON.stringify(value)}: is not a valid image tag`]);
  });
});

describe('URLs at their edges', () => {
  it('a registry URL: http or https, a host, an optional path; trailing slashes dropped', () => {
    expect(accepted({ IMAGE_REFRESH_REGISTRY_URL: 'http://r' }).registryUrl).toBe('http://r');
    expect(accepted({ IMAGE_REFRESH_REGISTRY_URL: 'https://r.example:5000/mirror//' }).registryUrl).toBe(
      'https://r.example:5000/mirror',
    );
  });

  it.each([
    'https://',
    'https:///v2',
    'https://r.example?x=1',
    'https://r.example#f',
    'https://r.example/a b',
    'https://r.example/a?b',
    ' https://r.example',
    'https://r.example ',
    'httpss://r.example',
  ])('registry URL %j is rejected', (value) => {
    expect(said({ IMAGE_REFRESH_REGISTRY_URL: value })).toEqual([
      `IMAGE_REFRESH_REGISTRY_URL=${JSON.stringify(value)}: must be an http(s) URL such as https://registry-1.docker.io`,
    ]);
  });

  it('a token realm may carry a query, with or without a path', () => {
    expect(accepted({ IMAGE_REFRESH_AUTH_URL: 'https://a?service=x' }).authUrl).toBe('https://a?service=x');
    expect(accepted({ IMAGE_REFRESH_AUTH_URL: 'http://a/t/' }).authUrl).toBe('http://a/t/');
  });

  it.each([
    'https://a/token?service=x#f',
    'https://a/to ken',
    'https://?service=x',
    ' https://a/token',
    'https://a/token ',
  ])('token realm %j is rejected', (value) => {
    expect(said({ IMAGE_REFRESH_AUTH_URL: value })).toEqual([
      `IMAGE_REFRESH_AUTH_URL=${JSON.stringify(value)}: must be an http(s) URL of a token endpoint such as https://auth.docker.io/token?service=registry.docker.io`,
    ]);
  });
});

describe('numbers, durations and switches at their edges', () => {
  it('a ceiling of 1 is a ceiling', () => {
    expect(accepted({ MAX_SKIP_TICKS: '1', MAX_REFRESH_ATTEMPTS: '1' })).toMatchObject({
      maxSkipTicks: 1,
      maxRefreshAttempts: 1,
    });
  });

  it.each(['8 ', '1e3', '+5', '0x10', '9007199254740993'])(
    'ceiling %j is not a whole number the chart could mean',
    (value) => {
      expect(said({ MAX_REFRESH_ATTEMPTS: value })).toEqual([
        `MAX_REFRESH_ATTEMPTS=${JSON.stringify(value)}: must be a whole number of at least 1 (a ceiling that is not a number would disable its guard)`,
      ]);
    },
  );

  it('a budget floor: 0 and "off" are different — "off" removes the guard, 0 keeps it for a 429', () => {
    expect(accepted({ REGISTRY_BUDGET_FLOOR: '0' })).toMatchObject({
      registryBudgetFloor: 0,
      registryBudgetGuard: true,
    });
    expect(accepted({ REGISTRY_BUDGET_FLOOR: 'off' })).toMatchObject({
      registryBudgetFloor: 0,
      registryBudgetGuard: false,
    });
    expect(accepted({ REGISTRY_BUDGET_FLOOR: '25' })).toMatchObject({
      registryBudgetFloor: 25,
      registryBudgetGuard: true,
    });
  });

  it.each(['8 ', ' 8', '1e3', '+5', '2.5', '9007199254740993'])('budget floor %j is rejected', (value) => {
    expect(said({ REGISTRY_BUDGET_FLOOR: value })).toHaveLength(1);
  });

  it('a duration of exactly 24h is the longest accepted; one millisecond more is not', () => {
    expect(accepted({ ROLLOUT_TIMEOUT: '24h' }).rolloutTimeoutMs).toBe(86_400_000);
    expect(said({ ROLLOUT_TIMEOUT: '24h1ms' })).toEqual([
      'ROLLOUT_TIMEOUT="24h1ms": must be at most 24h (it is waited for inside one tick, which the Job\'s activeDeadlineSeconds must hold)',
    ]);
  });

  it('RECONCILE_LIVE: "0" is off, "report" reports, "1" repairs', () => {
    expect(accepted({ RECONCILE_LIVE: '0' }).reconcileLive).toBe('off');
    expect(accepted({ RECONCILE_LIVE: 'report' }).reconcileLive).toBe('report');
    expect(accepted({ RECONCILE_LIVE: '1' }).reconcileLive).toBe('repair');
  });

  it('a switch set to "0" is off even where its default is on', () => {
    expect(accepted({ IMAGE_REFRESH_EVENTS: '0' }).kubernetesEvents).toBe(false);
    expect(accepted({ IMAGE_REFRESH_EVENTS: '1' }).kubernetesEvents).toBe(true);
    expect(chartPinsOf(accepted({ PODS_MONITOR_PINNED: '1', RESOURCE_MONITOR_PINNED: '1' }))).toEqual({
      jobsManager: false,
      podsMonitor: true,
      resourceMonitor: true,
      requestsProxy: false,
    });
  });
});

describe('a profile beside the environment (docs/profiles.md)', () => {
  const { IMAGE_TAG: _, ...untagged } = SIM_PROFILE_ENVIRONMENT;
  const ownTags = { ...SHOP_PROFILE, images: SHOP_PROFILE.images.map((i) => ({ ...i, tag: 'v1' })) };

  it('needs no IMAGE_TAG when every image names its own tag, and keeps one that is set', () => {
    const parsed = (env: Environment) => {
      const result = parseTickConfig(env, ownTags);
      return E.isRight(result) ? result.right.imageTag : result.left.map(describeConfigError);
    };
    expect(parsed(untagged)).toBe('');
    expect(parsed({ ...untagged, IMAGE_TAG: 'prod' })).toBe('prod');
    expect(parsed({ ...untagged, IMAGE_TAG: '-prod' })).toEqual(['IMAGE_TAG="-prod": is not a valid image tag']);
  });

  it('needs IMAGE_TAG while one image names no tag of its own', () => {
    const oneUntagged = {
      ...SHOP_PROFILE,
      images: SHOP_PROFILE.images.map((i) => (i.name === 'log' ? i : { ...i, tag: 'v1' })),
    };
    const parsed = parseTickConfig(untagged, oneUntagged);
    expect(E.isLeft(parsed) && parsed.left.map(describeConfigError)).toEqual([
      'IMAGE_TAG: is required (the floating tag to follow)',
    ]);
  });

  it("says a profile document's problems with the variable that named it, each at its path", () => {
    const parsed = parseTickConfig(
      { ...SIM_PROFILE_ENVIRONMENT, IMAGE_REFRESH_PROFILE: '/etc/image-refresh/profile.yaml' },
      { ...SHOP_PROFILE, gate: 'frontend' },
    );
    expect(E.isLeft(parsed) && parsed.left.map(describeConfigError)).toEqual([
      'IMAGE_REFRESH_PROFILE="/etc/image-refresh/profile.yaml": gate: "frontend" is not a declared workload; declared: web, worker, agent',
    ]);
  });
});
