import * as O from 'fp-ts/lib/Option.js';
import { describe, expect, it } from 'vitest';
import type { Digest } from '../src/domain/digest.js';
import type { FleetHalt } from '../src/domain/fleet-halt.js';
import type { LiveFinding } from '../src/domain/live-drift.js';
import type { ImageResolution } from '../src/domain/plan.js';
import { forbidden, malformed, notFound, timeout, transport, unauthorized } from '../src/domain/port-error.js';
import { registryBudgetOf } from '../src/domain/registry-budget.js';
import * as actLines from '../src/machine/act/messages.js';
import * as admitLines from '../src/machine/admit/messages.js';
import * as haltLines from '../src/machine/fleet-halt/messages.js';
import { kubernetesEventsFor } from '../src/machine/kubernetes-events.js';
import * as observeLines from '../src/machine/observe/messages.js';
import * as ownershipLines from '../src/machine/ownership/messages.js';
import * as recordLines from '../src/machine/record/messages.js';
import * as resolveLines from '../src/machine/resolve/messages.js';
import type { TickEvent } from '../src/machine/tick-event.js';
import type { TickOutcome } from '../src/machine/tick-outcome.js';
import * as tickWideLines from '../src/machine/tick-wide/messages.js';
import { SHOP_PROFILE, simConfig } from '../src/sim/index.js';
import { imageSpec, workloadRef } from './support/chart.js';

/** Every phase's operator lines (machine/<phase>/messages.ts), under one name. */
const say = {
  ...tickWideLines,
  ...observeLines,
  ...resolveLines,
  ...haltLines,
  ...admitLines,
  ...actLines,
  ...recordLines,
  ...ownershipLines,
};

// Every operator line, word for word, in one reviewed file
// (__golden__/operator-lines.txt). The chart's script is replaced drop-in and
// operators grep its phrases (docs/behaviour.md §3), so a changed word is a change to the
// contract, to be made on purpose: `vitest run -u` rewrites the file and the
// diff is the review. operator-lines.test.ts states the grep-able phrases one
// by one; this pins the rest — hints, counts, the words a condition chooses —
// which Stryker showed no test read (messages.ts, kubernetes-events.ts).

const edge = simConfig();
const repair = simConfig({ RECONCILE_LIVE: '1' });
const allPinned = simConfig({
  JOBS_MANAGER_PINNED: '1',
  PODS_MONITOR_PINNED: '1',
  RESOURCE_MONITOR_PINNED: '1',
  REQUESTS_PROXY_PINNED: '1',
});
const onlyProxyLeft = simConfig({ PODS_MONITOR_PINNED: '1', RESOURCE_MONITOR_PINNED: '1' });
const D1 = `sha256:${'a1'.repeat(32)}` as Digest;
const D2 = `sha256:${'b2'.repeat(32)}` as Digest;
const D3 = `sha256:${'c3'.repeat(32)}` as Digest;
const denied = forbidden('deployments.apps "stg-jobs-manager" is forbidden', 403);
const gone = notFound('deployments.apps "stg-jobs-manager" not found', 404);
const slow = timeout('GET deployment/stg-jobs-manager: no answer within 15s');
const reset = transport('socket hang up');
const garbage = malformed('not JSON');
const waiting = { _tag: 'Waiting', reason: '0 of 1 updated replicas are available' } as const;
const jmChange = {
  workload: workloadRef(edge, 'jobs-manager'),
  images: [
    { container: 'api', image: `docker.io/tracebloc/jobs-manager@${D2}` },
    { container: 'proxy', image: `docker.io/tracebloc/jobs-manager@${D2}` },
  ],
};
const dsChange = {
  workload: workloadRef(edge, 'resource-monitor'),
  images: [{ container: 'tracebloc-resource-monitor', image: `docker.io/tracebloc/resource-monitor@${D3}` }],
};
const resolved = (remaining: number | undefined): ImageResolution => ({
  _tag: 'Resolved',
  image: 'jobs-manager',
  digest: D2,
  rateLimitRemaining: remaining === undefined ? O.none : O.some(remaining),
});
const finding = (kind: LiveFinding['kind'], workload: LiveFinding['workload'], owner?: string): LiveFinding => ({
  workload,
  container: workload === 'requests-proxy' ? 'proxy' : 'api',
  image: 'jobs-manager',
  live: kind === 'reverted' ? 'docker.io/tracebloc/jobs-manager:stg' : `docker.io/tracebloc/jobs-manager@${D1}`,
  recorded: D2,
  owner,
  kind,
});

const AMD64 = { os: 'linux', architecture: 'amd64' };
const ARM64 = { os: 'linux', architecture: 'arm64' };
const ARMV7 = { os: 'linux', architecture: 'arm', variant: 'v7' };
const staged = {
  workload: workloadRef(edge, 'resource-monitor'),
  images: [`docker.io/tracebloc/resource-monitor@${D3}`],
};

const JM = imageSpec('jobs-manager');
// The fleet halt (docs/behaviour.md §3.4b): an edge that watches one, and one with FLEET_HALT_EXIT=1.
const HALT_ENV = {
  FLEET_HALT_REF: 'docker.io/tracebloc/fleet-control:stg-halt',
  SIGNATURE_PUBLIC_KEYS: '/k/fleet.pub',
};
const watching = simConfig(HALT_ENV);
const strict = simConfig({ ...HALT_ENV, FLEET_HALT_EXIT: '1' });
const halt: FleetHalt = {
  reason: 'build 2 loses jobs',
  expires: '2026-12-04T12:00:00Z',
  expiresAtMs: Date.parse('2026-12-04T12:00:00Z'),
  repositories: {
    'tracebloc/jobs-manager': { digests: [D2], pin: D1 },
    'tracebloc/resource-monitor': { digests: '*', pin: undefined },
  },
};
const haltDigest = `sha256:${'d4'.repeat(32)}`;
// A topology of one's own (docs/profiles.md), with two of the chart's variables left set beside it.
const shop = simConfig({ RELEASE_NAME: 'stg', IMAGE_REGISTRY: 'docker.io', WEB_PINNED: '0' }, SHOP_PROFILE);
const shopWeb = shop.topology.workloads[0] as (typeof shop.topology.workloads)[number];
const PM = imageSpec('pods-monitor');

// Built inside each test, not when the file loads: Stryker counts a mutant
// reached at load time as "static" and runs every test of core against it.
const operatorLines = (): readonly TickEvent[] => [
  say.tickStart(edge),
  say.mirrorInert(simConfig({ IMAGE_REGISTRY: 'registry.corp.example:5000' })),
  say.deploymentUnreadable(edge, gone),
  say.skipStreakUncountable(edge, denied),
  say.skipStreakWriteFailed(edge, 3, slow),
  say.frozen(edge, 8, waiting),
  say.frozen(onlyProxyLeft, 9, waiting),
  say.frozen(allPinned, 8, { _tag: 'Failed', reason: 'ProgressDeadlineExceeded' }),
  say.skipping(edge, 2, waiting),
  say.settledAgain(edge, '5'),
  say.skipStreakUnreadableOnSettle(edge, garbage),
  say.skipStreakClearFailed(edge, denied),
  say.checkingImage(JM),
  say.imagePinned(PM),
  say.resolveFailed(JM, { _tag: 'RateLimited', message: 'HEAD …: 429' }),
  say.resolveFailed(PM, reset),
  say.resolveFailed(PM, {
    ...transport('token endpoint GET https://auth.docker.io/token answered HTTP 503', 503),
    failedAt: 'token',
  }),
  say.recordedDigestsUnreadable(edge, slow),
  say.verdict(JM, { _tag: 'FirstObservation', image: 'jobs-manager', digest: D1 }),
  say.verdict(JM, { _tag: 'Unchanged', image: 'jobs-manager', digest: D1 }),
  say.verdict(JM, { _tag: 'Drift', image: 'jobs-manager', from: D1, to: D2 }),
  say.registryBudgetLow(registryBudgetOf(edge, [resolved(4)])),
  say.registryBudgetLow(
    registryBudgetOf(edge, [
      resolved(12),
      { _tag: 'Unresolved', image: 'pods-monitor', error: { _tag: 'RateLimited', message: '429' } },
    ]),
  ),
  say.workloadPinned({ id: 'requests-proxy', pinnedBy: 'REQUESTS_PROXY_PINNED' }),
  say.attemptUnreadable(edge, garbage),
  say.flapDetected(edge, 3, false),
  say.flapDetected(edge, 3, true),
  say.flapMarkFailed(edge, 3, denied),
  say.attemptWriteFailed(edge, 2, denied),
  say.reimaging(edge, 2),
  say.setImage(jmChange),
  say.setImage(dsChange),
  say.alreadyOnTarget(jmChange),
  say.alreadyOnTarget(dsChange),
  say.setImageFailed(jmChange, denied),
  say.rolloutComplete(jmChange),
  say.rolloutComplete(dsChange),
  say.rolloutFailed(edge, jmChange, { _tag: 'RolloutFailed', message: 'ProgressDeadlineExceeded' }),
  say.rolloutFailed(edge, dsChange, { _tag: 'RolloutTimedOut', message: '0 of 3 updated' }),
  say.rolloutFailed(edge, dsChange, slow),
  say.reimageComplete(),
  say.successResetFailed(edge, denied),
  say.attemptKept(edge, 2),
  say.attemptKeepFailed(edge, 2, denied),
  say.recordingDigests(edge, {
    'tracebloc.io/last-refreshed-jobs-manager-digest': D2,
    'tracebloc.io/last-refreshed-resource-monitor-digest': D3,
  }),
  say.recordFailed(edge, reset),
  say.liveDrift(edge, finding('reverted', 'jobs-manager', 'helm')),
  say.liveDrift(repair, finding('reverted', 'jobs-manager')),
  say.liveDrift(edge, finding('otherDigest', 'requests-proxy', 'kubectl-set')),
  say.liveDrift(repair, finding('otherDigest', 'jobs-manager')),
  say.liveDrift(edge, { ...finding('foreign', 'jobs-manager'), live: 'docker.io/library/nginx:1.27' }),
  say.pinMarkersUnreadable(edge, denied),
  say.liveUnreadable(workloadRef(edge, 'requests-proxy'), gone),
  say.decoupledRefresh(edge),
  say.decoupledNotSettled(workloadRef(edge, 'resource-monitor'), waiting),
  say.decoupledUnreadable(edge, workloadRef(edge, 'resource-monitor'), slow),
  say.haltNone(watching),
  say.haltReading(watching, haltDigest, undefined),
  say.haltReading(watching, haltDigest, 'the kept document no longer parses (not JSON)'),
  say.haltInForceLine(watching, halt, haltDigest),
  say.haltInForceLine(watching, { ...halt, repositories: {} }, haltDigest),
  say.haltInForceLine(
    watching,
    { ...halt, repositories: { 'tracebloc/pods-monitor': { digests: [D1, D2], pin: undefined } } },
    haltDigest,
  ),
  say.haltExpired(watching, halt),
  say.haltUnverifiedLine(watching, 'its signature did not verify: no signature'),
  say.haltLifted(watching, haltDigest),
  say.haltLifted(watching, undefined),
  say.haltWriteFailed(watching, false, denied),
  say.haltWriteFailed(watching, true, denied),
  say.digestHalted(watching, 'jobs-manager', D2, halt.reason),
  say.digestHalted(strict, 'jobs-manager', D2, halt.reason),
  say.haltPinned(watching, { image: 'jobs-manager', from: D2, to: D1 }, halt.reason),
  say.haltStranded(watching, 'resource-monitor', D3),
  say.verdict(
    JM,
    { _tag: 'Drift', image: 'jobs-manager', from: D1, to: D2 },
    {
      _tag: 'Halted',
      image: 'jobs-manager',
      digest: D2,
      reason: halt.reason,
    },
  ),
  say.verdict(
    JM,
    { _tag: 'FirstObservation', image: 'jobs-manager', digest: D2 },
    {
      _tag: 'HaltUnverified',
      image: 'jobs-manager',
      digest: D2,
    },
  ),
  say.verdict(JM, { _tag: 'Drift', image: 'jobs-manager', from: D2, to: D1 }, undefined, {
    image: 'jobs-manager',
    from: D2,
    to: D1,
  }),
  say.liveDrift(repair, { ...finding('otherDigest', 'jobs-manager'), recordedHalted: true }),
  say.signatureRejected('tracebloc/jobs-manager', D1, 'no signature', true),
  // Stage, then switch (docs/behaviour.md §3.4a step 4, §3.5a).
  ...[
    { _tag: 'Provides', platforms: [AMD64, ARM64] } as const,
    { _tag: 'Lacks', lacking: [ARM64, ARMV7], provides: [AMD64] } as const,
    { _tag: 'Unchecked', why: `the recorded manifest ${D1}: RateLimited: 429`, cause: 'RateLimited' } as const,
    { _tag: 'Unchecked', why: 'the new manifest: its media type is not one the check reads' } as const,
  ].map((judgement) =>
    say.announcePlatformCheck({ image: 'jobs-manager', host: 'docker.io', repo: JM.repo, from: D1, to: D2, judgement }),
  ),
  say.staging(
    'staging docker.io/tracebloc/jobs-manager@… on the nodes of deployment/stg-jobs-manager before switching them',
  ),
  say.announceStaging({ ...staged, result: { _tag: 'Staged', nodes: ['edge-1', 'edge-2'] } }),
  say.announceStaging({ ...staged, result: { _tag: 'Staged', nodes: [] } }),
  say.announceStaging({
    ...staged,
    result: {
      _tag: 'NotStaged',
      failures: [
        { node: 'edge-1', reason: 'ImagePullBackOff: Back-off pulling image' },
        { node: 'edge-3', reason: 'still pulling when PREPULL_TIMEOUT=30m passed (ContainerCreating)' },
      ],
      staged: ['edge-2'],
    },
  }),
  say.announceStaging({ ...staged, result: { _tag: 'NotStaged', failures: [{ reason: denied.message }], staged: [] } }),
  say.stagingEventNotRecorded('Forbidden (HTTP 403): events is forbidden'),
  say.tickStart(shop),
  ...say.ignoredVariables(shop),
  ...say.orphanedBookkeeping(shop, { 'shop.example.com/last-refreshed-frontend-digest': D1 }),
  say.reimaging(shop, 1),
  say.flapDetected(shop, 3, false),
  say.foreignContainer(shop, {
    _tag: 'Foreign',
    workload: shopWeb,
    container: 'log',
    image: 'log',
    runs: 'docker.io/library/nginx:1.27',
  }),
  say.foreignContainer(shop, { _tag: 'Missing', workload: shopWeb, container: 'log', image: 'log', has: ['web'] }),
  say.foreignContainer(shop, { _tag: 'Missing', workload: shopWeb, container: 'log', image: 'log', has: [] }),
  say.ownershipUnchecked(shopWeb, denied),
  say.topologyChecked(shop),
  say.topologyFingerprintUnwritten(shop, slow),
  say.deploymentUnreadable(edge, denied),
  say.deploymentUnreadable(edge, unauthorized('Unauthorized', 401)),
  ...say.registrySilence(edge, {
    _tag: 'Silent',
    streak: 3,
    max: 8,
    unreachable: false,
    silent: [{ image: 'pods-monitor', error: reset }],
  }),
  ...say.registrySilence(edge, {
    _tag: 'Silent',
    streak: 8,
    max: 8,
    unreachable: true,
    silent: [
      { image: 'jobs-manager', error: slow },
      { image: 'pods-monitor', error: reset },
    ],
  }),
  say.registryAnswering(edge, 9),
  say.resolveFailureStreakWriteFailed(edge, 4, denied),
  say.resolveFailureStreakClearFailed(edge, slow),
  say.tickComplete(),
];

const render = (e: { level: string; code: string; message: string; hints?: readonly string[] }): string =>
  [`${e.level} ${e.code}: ${e.message}`, ...(e.hints ?? []).map((h) => `    ${h}`)].join('\n');

const outcome = (events: readonly TickEvent[], extra: Partial<TickOutcome> = {}): TickOutcome => ({
  result: 'complete',
  exitCode: 0,
  events,
  findings: events.filter((e) => e.level === 'error'),
  writes: [],
  reimages: [],
  digestChanges: [],
  ...extra,
});

describe('the operator lines, word for word', () => {
  it('every message of messages.ts, for each condition that changes its words', async () => {
    await expect(`${operatorLines().map(render).join('\n')}\n`).toMatchFileSnapshot('__golden__/operator-lines.txt');
  });

  it('no line carries an empty hints list or a hints key without hints', () => {
    expect(operatorLines().filter((e) => 'hints' in e && (e.hints === undefined || e.hints.length === 0))).toEqual([]);
  });

  it('a settledness in words: the message when settled, the reason otherwise', () => {
    expect(
      [
        { _tag: 'Settled', message: 'successfully rolled out' } as const,
        waiting,
        { _tag: 'Failed', reason: 'ProgressDeadlineExceeded' } as const,
      ].map(say.settlednessText),
    ).toEqual(['successfully rolled out', '0 of 1 updated replicas are available', 'ProgressDeadlineExceeded']);
  });

  it('the Kubernetes Event each line becomes alone, and what a tick with all of them records', async () => {
    const alone = operatorLines().flatMap((line) =>
      kubernetesEventsFor(outcome([line])).map((e) => `${line.code} → ${e.type} ${e.reason}`),
    );
    const reimaged = kubernetesEventsFor(
      outcome([], {
        reimages: [
          // Old digest from the recorded drift.
          { ...jmChange, rolledOut: true },
          // Old image from the live workload: a tag, then a digest.
          {
            ...dsChange,
            rolledOut: true,
            previous: { 'tracebloc-resource-monitor': 'docker.io/tracebloc/resource-monitor:stg' },
          },
          {
            ...dsChange,
            rolledOut: true,
            previous: { 'tracebloc-resource-monitor': `docker.io/tracebloc/resource-monitor@${D1}` },
          },
          // Neither: unknown. And one whose rollout failed: no Event.
          { ...dsChange, rolledOut: true },
          { ...dsChange, rolledOut: false },
        ],
        digestChanges: [{ image: 'jobs-manager', from: D1, to: D2 }],
      }),
    );
    const text = [
      ...alone,
      ...[...kubernetesEventsFor(outcome(operatorLines())), ...reimaged].map(
        (e) => `${e.type} ${e.reason}: ${e.message}`,
      ),
    ];
    await expect(`${text.join('\n')}\n`).toMatchFileSnapshot('__golden__/kubernetes-events.txt');
  });
});
