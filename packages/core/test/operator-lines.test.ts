import { describe, expect, it } from 'vitest';
import { forbidden, timeout, transport } from '../src/domain/port-error.js';
import { registryBudgetOf } from '../src/domain/registry-budget.js';
import type { Settledness } from '../src/domain/settledness.js';
import * as actLines from '../src/machine/act/messages.js';
import * as admitLines from '../src/machine/admit/messages.js';
import * as observeLines from '../src/machine/observe/messages.js';
import * as recordLines from '../src/machine/record/messages.js';
import * as resolveLines from '../src/machine/resolve/messages.js';
import * as tickWideLines from '../src/machine/tick-wide/messages.js';
import { simConfig } from '../src/sim/index.js';
import { imageSpec, workloadRef } from './support/chart.js';

/** Every phase's operator lines (machine/<phase>/messages.ts), under one name. */
const say = { ...tickWideLines, ...observeLines, ...resolveLines, ...admitLines, ...actLines, ...recordLines };

// The operator's lines, one message at a time (docs/behaviour.md §3: "operators grep for
// the phrases quoted above, so keep them"). Each case states the edge it is
// about and asserts the level and code machines key on, the grep-able phrase,
// and the part a condition chooses — the words Stryker showed no scenario
// read (pnpm mutation, test/spec/README.md).

const edge = simConfig();
const denied = forbidden('deployments.apps "stg-jobs-manager" is forbidden', 403);
const waiting: Settledness = { _tag: 'Waiting', reason: '0 of 1 updated replicas are available' };
const dsChange = {
  workload: workloadRef(edge, 'resource-monitor'),
  images: [{ container: 'tracebloc-resource-monitor', image: 'docker.io/tracebloc/resource-monitor@sha256:ab' }],
};
const head = (e: { level: string; code: string }) => [e.level, e.code];

describe('the banner and the mirror', () => {
  it('every tick opens naming the release, the images it follows and the workloads it reconciles', () => {
    const banner = say.tickStart(edge);
    expect(head(banner)).toEqual(['info', 'TICK_START']);
    expect(banner.message).toBe('release=stg namespace=tracebloc deployment=stg-jobs-manager');
    expect(banner.hints).toEqual([
      'client images: tracebloc/{jobs-manager,pods-monitor,resource-monitor} on docker.io under tag=stg',
      'also reconciling: deployment/stg-requests-proxy (jobs-manager image), daemonset/stg-resource-monitor in tracebloc-node-agents',
    ]);
  });

  it('a registry asked elsewhere is named, a user and password in its URL never', () => {
    const banner = say.tickStart(
      simConfig({ IMAGE_REFRESH_REGISTRY_URL: 'https://puller:s3cret@harbor.example:8443' }),
    );
    expect(banner.hints?.[0]).toBe(
      'client images: tracebloc/{jobs-manager,pods-monitor,resource-monitor} on docker.io under tag=stg (asked at https://…@harbor.example:8443)',
    );
    expect(JSON.stringify(banner)).not.toContain('s3cret');
  });

  it('a private mirror says why refresh is inert and what to do instead', () => {
    const note = say.mirrorInert(simConfig({ IMAGE_REGISTRY: 'registry.corp.example:5000' }));
    expect(head(note)).toEqual(['info', 'MIRROR_INERT']);
    expect(note.message).toContain("private mirror 'registry.corp.example:5000'");
    expect(note.message).toContain('auto-refresh is INERT on this edge');
    expect(note.hints?.[0]).toContain('syncing your mirror');
    expect(note.hints?.[1]).toContain('That restart does re-pull');
  });
});

describe('the frozen finding names exactly the workloads frozen with jobs-manager (#1964)', () => {
  it('both followers unpinned: "are", "they have"', () => {
    const line = say.frozen(edge, 8, waiting);
    expect(head(line)).toEqual(['error', 'FROZEN']);
    expect(line.message).toContain(
      'IMAGE REFRESH IS FROZEN, and not only for jobs-manager: deployment/stg-requests-proxy and daemonset/stg-resource-monitor are reconciled after this guard, so they have received NO image updates either.',
    );
    expect(line.message).toContain('unsettled for 8 consecutive ticks (>= MAX_SKIP_TICKS=8)');
    expect(line.message).toContain('Last status: 0 of 1 updated replicas are available');
    expect(line.hints?.[0]).toContain('MANUAL ATTENTION NEEDED');
  });

  it('one follower left: "is", "it has"', () => {
    const line = say.frozen(simConfig({ RESOURCE_MONITOR_PINNED: '1' }), 9, { _tag: 'Failed', reason: 'deadline' });
    expect(line.message).toContain(
      'deployment/stg-requests-proxy is reconciled after this guard, so it has received NO image updates either. Last status: deadline',
    );
  });

  it('a pinned jobs-manager image leaves requests-proxy nothing to follow', () => {
    const line = say.frozen(simConfig({ JOBS_MANAGER_PINNED: '1' }), 8, waiting);
    expect(line.message).toContain('daemonset/stg-resource-monitor is reconciled after this guard');
    expect(line.message).not.toContain('deployment/stg-requests-proxy');
  });

  it('everything else pinned: says so instead of naming nobody', () => {
    const line = say.frozen(simConfig({ REQUESTS_PROXY_PINNED: '1', RESOURCE_MONITOR_PINNED: '1' }), 8, waiting);
    expect(line.message).toContain(
      'IMAGE REFRESH IS FROZEN, No other workload is reconciled by this tick (the rest are pinned).',
    );
  });
});

describe('registry lines', () => {
  it('a rate limit is named as such, other failures by their port error', () => {
    const pm = imageSpec('pods-monitor');
    expect(say.resolveFailed(pm, { _tag: 'RateLimited', message: 'toomanyrequests' }).message).toBe(
      'WARN: could not resolve latest digest of tracebloc/pods-monitor:stg (RateLimited: toomanyrequests); skipping this image this tick, the others go on',
    );
    const failed = say.resolveFailed(pm, timeout('no answer'));
    expect(head(failed)).toEqual(['warn', 'RESOLVE_FAILED']);
    expect(failed.message).toContain('(Timeout: no answer)');
  });

  it("a failed token request says the script's words, docker.io/<repo>, with its cause in the same line", () => {
    const pm = imageSpec('pods-monitor');
    const refused = transport('token endpoint GET https://auth.docker.io/token answered HTTP 503', 503);
    const line = say.resolveFailed(pm, { ...refused, failedAt: 'token' });
    expect(head(line)).toEqual(['warn', 'RESOLVE_FAILED']);
    expect(line.message).toBe(
      'WARN: could not resolve latest digest of tracebloc/pods-monitor:stg: could not fetch auth token for docker.io/tracebloc/pods-monitor (Transport (HTTP 503): token endpoint GET https://auth.docker.io/token answered HTTP 503); skipping this image this tick, the others go on',
    );
    // The manifest HEAD's own failure is not a token failure.
    expect(say.resolveFailed(pm, refused).message).not.toContain('auth token');
  });

  it('a low pull budget names every reason that holds, and only those (I7b)', () => {
    const limited = {
      _tag: 'Unresolved',
      image: 'jobs-manager',
      error: { _tag: 'RateLimited', message: 'x' },
    } as const;
    const low = (remaining: number) =>
      ({
        _tag: 'Resolved',
        image: 'pods-monitor',
        digest: 'sha256:a' as never,
        rateLimitRemaining: { _tag: 'Some', value: remaining },
      }) as const;
    const both = say.registryBudgetLow(registryBudgetOf(edge, [limited, low(4)]));
    expect(head(both)).toEqual(['warn', 'REGISTRY_BUDGET_LOW']);
    expect(both.message).toContain(
      'budget is low (the registry answered 429 (rate limited) and ratelimit-remaining 4 < REGISTRY_BUDGET_FLOOR=10)',
    );
    expect(say.registryBudgetLow(registryBudgetOf(edge, [limited, low(10)])).message).toContain(
      'budget is low (the registry answered 429 (rate limited)):',
    );
  });
});

describe('flap and re-image lines (#563, #626)', () => {
  it('FLAP DETECTED is a warning by default and a finding with FLAP_LOCKOUT_EXIT, with the re-arm command', () => {
    const warned = say.flapDetected(edge, 3, false);
    expect(head(warned)).toEqual(['warn', 'FLAP_DETECTED']);
    expect(head(say.flapDetected(edge, 3, true))).toEqual(['error', 'FLAP_DETECTED']);
    expect(warned.message).toContain('failed 3 time(s) in a row (>= MAX_REFRESH_ATTEMPTS=3) -- FLAP DETECTED');
    expect(warned.hints).toEqual([
      'kubectl annotate deployment -n tracebloc stg-jobs-manager tracebloc.io/refresh-attempt- tracebloc.io/refresh-flap-detected-   (or: image-refresh rearm)',
    ]);
  });

  it('a rollout failure names its kind, or the port error, and ROLLOUT_TIMEOUT only when that is what ended it', () => {
    const failed = say.rolloutFailed(edge, dsChange, { _tag: 'RolloutFailed', message: 'OnDelete' });
    expect(head(failed)).toEqual(['error', 'ROLLOUT_FAILED']);
    // A rollout Kubernetes gave up on did not run into ROLLOUT_TIMEOUT.
    expect(failed.message).toContain(
      'rollout of daemonset/stg-resource-monitor failed, and waiting cannot complete it (RolloutFailed: OnDelete)',
    );
    expect(failed.message).not.toContain('ROLLOUT_TIMEOUT');
    expect(say.rolloutFailed(edge, dsChange, { _tag: 'RolloutTimedOut', message: '0 of 3' }).message).toContain(
      '(RolloutTimedOut: 0 of 3)',
    );
    expect(say.rolloutFailed(edge, dsChange, timeout('no answer')).message).toContain('(Timeout: no answer)');
  });

  it("set image names the workload, a DaemonSet's namespace and every container=image, as the script did", () => {
    const line = say.setImage(dsChange);
    expect(head(line)).toEqual(['info', 'SET_IMAGE']);
    expect(line.message).toBe(
      'set image daemonset/stg-resource-monitor in tracebloc-node-agents: tracebloc-resource-monitor=docker.io/tracebloc/resource-monitor@sha256:ab',
    );
    const jm = say.setImage({
      workload: workloadRef(edge, 'jobs-manager'),
      images: [
        { container: 'api', image: 'docker.io/tracebloc/jobs-manager@sha256:cd' },
        { container: 'proxy', image: 'docker.io/tracebloc/jobs-manager@sha256:cd' },
      ],
    });
    expect(jm.message).toBe(
      'set image deployment/stg-jobs-manager: api=docker.io/tracebloc/jobs-manager@sha256:cd proxy=docker.io/tracebloc/jobs-manager@sha256:cd',
    );
  });

  it('a failed success reset is a finding with the command that clears the counter by hand', () => {
    const line = say.successResetFailed(edge, denied);
    expect(head(line)).toEqual(['error', 'SUCCESS_RESET_FAILED']);
    expect(line.message).toContain('(Forbidden (HTTP 403): deployments.apps "stg-jobs-manager" is forbidden)');
    expect(line.hints?.[0]).toContain('kubectl annotate deployment -n tracebloc stg-jobs-manager');
  });
});
