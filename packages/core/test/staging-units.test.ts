import { describe, expect, it } from 'vitest';
import type { Digest } from '../src/domain/digest.js';
import { EMPTY_PLAN } from '../src/domain/plan.js';
import {
  allNotStaged,
  describeFailures,
  type StagingTarget,
  stagingAnnouncement,
  stagingReportsOf,
  stagingTargetsOf,
  withStagingHolds,
} from '../src/domain/staging.js';
import { simConfig } from '../src/sim/index.js';
import { workloadRef } from './support/chart.js';

// docs/behaviour.md §3.5a, the decisions alone: what staging is asked, what
// its answers hold back, and how a failure is worded.

const config = simConfig();
const JM = workloadRef(config, 'jobs-manager');
const RP = workloadRef(config, 'requests-proxy');
const RM = workloadRef(config, 'resource-monitor');
const D2 = `sha256:${'2'.repeat(64)}` as Digest;
const P2 = `sha256:${'3'.repeat(64)}` as Digest;
const jm2 = `docker.io/tracebloc/jobs-manager@${D2}`;
const pm2 = `docker.io/tracebloc/pods-monitor@${P2}`;
const plan = {
  ...EMPTY_PLAN,
  drift: { 'jobs-manager': D2, 'pods-monitor': P2 },
  changes: [
    {
      workload: JM,
      images: [
        { container: 'api', image: jm2 },
        { container: 'pods-monitor-container', image: pm2 },
      ],
    },
    { workload: RP, images: [{ container: 'proxy', image: jm2 }] },
  ],
};

describe('staging targets and answers', () => {
  it('one target per workload change, each reference once, in the re-image order', () => {
    expect(stagingTargetsOf(plan)).toEqual([
      { workload: JM, images: [jm2, pm2] },
      { workload: RP, images: [jm2] },
    ]);
    expect(
      stagingTargetsOf({
        ...plan,
        changes: [
          {
            workload: RP,
            images: [
              { container: 'proxy', image: jm2 },
              { container: 'x', image: jm2 },
            ],
          },
        ],
      }),
    ).toEqual([{ workload: RP, images: [jm2] }]);
  });

  it('a target the port gave no answer for is not staged (fail closed), naming no node', () => {
    const targets: StagingTarget[] = [
      { workload: JM, images: [jm2] },
      { workload: RP, images: [jm2] },
    ];
    expect(stagingReportsOf(targets, (i) => (i === 0 ? { _tag: 'Staged', nodes: ['edge-1'] } : undefined))).toEqual([
      { workload: JM, images: [jm2], result: { _tag: 'Staged', nodes: ['edge-1'] } },
      {
        workload: RP,
        images: [jm2],
        result: {
          _tag: 'NotStaged',
          failures: [{ reason: 'the staging port gave no answer for this workload' }],
          staged: [],
        },
      },
    ]);
    expect(allNotStaged([{ workload: RM, images: [jm2] }], 'Forbidden: no')).toEqual([
      {
        workload: RM,
        images: [jm2],
        result: { _tag: 'NotStaged', failures: [{ reason: 'Forbidden: no' }], staged: [] },
      },
    ]);
  });

  it('words the failures: one node, several, and one that names none', () => {
    const of = (failures: { node?: string; reason: string }[]) =>
      describeFailures({ _tag: 'NotStaged', failures, staged: [] });
    expect(of([{ node: 'edge-1', reason: 'a' }])).toBe('on node edge-1 (a)');
    expect(
      of([
        { node: 'edge-1', reason: 'a' },
        { node: 'edge-2', reason: 'b' },
      ]),
    ).toBe('on nodes edge-1 (a), edge-2 (b)');
    expect(of([{ reason: 'c' }])).toBe('(c)');
    expect(of([{ node: 'edge-1', reason: 'a' }, { reason: 'c' }])).toBe('on node edge-1 (a) (c)');
  });

  it('the RefreshStaging note names every reference once and every workload', () => {
    expect(stagingAnnouncement({ targets: stagingTargetsOf(plan), timeoutMs: 90_000, parallel: 2 })).toBe(
      `staging ${jm2}, ${pm2} on the nodes of deployment/stg-jobs-manager, deployment/stg-requests-proxy before switching them (PREPULL_TIMEOUT=1m30s, PREPULL_PARALLEL=2)`,
    );
  });
});

describe('what a staging failure holds back', () => {
  it('each drifted digest a not-staged workload carries, with why; what was staged holds nothing', () => {
    const reports = [
      { workload: JM, images: [jm2, pm2], result: { _tag: 'Staged' as const, nodes: ['edge-1'] } },
      {
        workload: RP,
        images: [jm2],
        result: { _tag: 'NotStaged' as const, failures: [{ node: 'edge-2', reason: 'ImagePullBackOff' }], staged: [] },
      },
    ];
    expect(withStagingHolds(simConfig().topology, {}, plan, reports)).toEqual({
      'jobs-manager': {
        _tag: 'NotStaged',
        image: 'jobs-manager',
        digest: D2,
        why: 'not staged for deployment/stg-requests-proxy on node edge-2 (ImagePullBackOff)',
      },
    });
    expect(withStagingHolds(simConfig().topology, {}, plan, [reports[0] as (typeof reports)[number]])).toEqual({});
    // A workload not staged whose references are not drift (a live re-pin) holds no image.
    expect(withStagingHolds(simConfig().topology, {}, { ...plan, drift: {} }, reports)).toEqual({});
  });
});
