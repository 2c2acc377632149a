import * as E from 'fp-ts/lib/Either.js';
import * as O from 'fp-ts/lib/Option.js';
import { describe, expect, it } from 'vitest';
import type { RecordedDigests } from '../src/domain/bookkeeping.js';
import type { Digest } from '../src/domain/digest.js';
import type { ImageResolution, WorkloadChange } from '../src/domain/plan.js';
import { hasBadDigest, movesAnything, planRevert, type RevertPlan } from '../src/domain/revert.js';
import {
  signatureHoldOf,
  signatureHolds,
  signatureResultOf,
  signatureSubjects,
} from '../src/domain/signature-admission.js';
import { simConfig } from '../src/sim/index.js';
import { workloadRef } from './support/chart.js';
import { repeatedDigest } from './support/repeated-digest.js';

// The way back (docs/behaviour.md §3.6, I29/I30) and the signature gate
// (docs/behaviour.md §3.4a step 3) as the pure values they return: which
// container goes back to which recorded digest, what is quarantined, and which
// digest is held for which reason.

const d = repeatedDigest;
const GOOD = d('a');
const BAD = d('b');
const RM_GOOD = d('c');
const RM_BAD = d('e');
const config = simConfig({});

const recorded = (over: Partial<Record<string, O.Option<string>>> = {}): RecordedDigests =>
  ({
    'jobs-manager': O.some(GOOD),
    'pods-monitor': O.none,
    'resource-monitor': O.some(RM_GOOD),
    ...over,
  }) as RecordedDigests;

const jm = (digest: string, container = 'api'): WorkloadChange => ({
  workload: workloadRef(config, 'jobs-manager'),
  images: [{ container, image: `docker.io/tracebloc/jobs-manager@${digest}` }],
});
const rm = (digest: string): WorkloadChange => ({
  workload: workloadRef(config, 'resource-monitor'),
  images: [{ container: 'tracebloc-resource-monitor', image: `docker.io/tracebloc/resource-monitor@${digest}` }],
});

describe('planRevert', () => {
  it('moves each container of the plan, up to the failed one, back to its own image record; only the failed workload is bad', () => {
    const plan = planRevert(config, [jm(BAD), rm(RM_BAD)], 1, recorded(), 1);
    expect(plan).toEqual(
      E.right({
        changes: [
          {
            workload: workloadRef(config, 'jobs-manager'),
            images: [{ container: 'api', image: `docker.io/tracebloc/jobs-manager@${GOOD}` }],
          },
          {
            workload: workloadRef(config, 'resource-monitor'),
            images: [
              { container: 'tracebloc-resource-monitor', image: `docker.io/tracebloc/resource-monitor@${RM_GOOD}` },
            ],
          },
        ],
        containers: [
          { workload: 'jobs-manager', container: 'api', image: 'jobs-manager', from: BAD, to: GOOD },
          {
            workload: 'resource-monitor',
            container: 'tracebloc-resource-monitor',
            image: 'resource-monitor',
            from: RM_BAD,
            to: RM_GOOD,
          },
        ],
        bad: { 'resource-monitor': RM_BAD },
      }),
    );
  });

  it('quarantines nothing when the tick failed on a refused patch (failed = null) or the index names no change', () => {
    for (const failed of [null, 7]) {
      const plan = planRevert(config, [jm(BAD)], 0, recorded(), failed);
      expect(E.isRight(plan) && plan.right.bad).toEqual({});
      expect(E.isRight(plan) && plan.right.containers).toEqual([
        { workload: 'jobs-manager', container: 'api', image: 'jobs-manager', from: BAD, to: GOOD },
      ]);
    }
  });

  it('refuses (Left) a container image-refresh does not manage, naming no image for it', () => {
    expect(planRevert(config, [jm(BAD, 'sidecar')], 0, recorded())).toEqual(
      E.left({ workload: 'jobs-manager', container: 'sidecar', image: undefined, recorded: undefined }),
    );
  });

  it('refuses (Left) a container name of another workload: a container is managed only in its own workload', () => {
    const misplaced: WorkloadChange = {
      workload: workloadRef(config, 'resource-monitor'),
      images: [{ container: 'api', image: `docker.io/tracebloc/jobs-manager@${BAD}` }],
    };
    expect(planRevert(config, [misplaced], 0, recorded())).toEqual(
      E.left({ workload: 'resource-monitor', container: 'api', image: undefined, recorded: undefined }),
    );
  });

  it('refuses (Left) when the record is absent or not a well-formed digest: nothing is guessed', () => {
    expect(planRevert(config, [rm(RM_BAD)], 0, recorded({ 'resource-monitor': O.none }))).toEqual(
      E.left({
        workload: 'resource-monitor',
        container: 'tracebloc-resource-monitor',
        image: 'resource-monitor',
        recorded: undefined,
      }),
    );
    expect(planRevert(config, [rm(RM_BAD)], 0, recorded({ 'resource-monitor': O.some('latest') }))).toEqual(
      E.left({
        workload: 'resource-monitor',
        container: 'tracebloc-resource-monitor',
        image: 'resource-monitor',
        recorded: 'latest',
      }),
    );
  });

  it('a live re-pin (from = recorded) is not bad and moves nothing', () => {
    const plan = planRevert(config, [jm(GOOD)], 0, recorded());
    expect(E.isRight(plan) && plan.right.bad).toEqual({});
    expect(E.isRight(plan) && movesAnything(plan.right)).toBe(false);
    expect(E.isRight(plan) && hasBadDigest(plan.right)).toBe(false);
  });
});

describe('hasBadDigest / movesAnything', () => {
  const none: RevertPlan = { changes: [], containers: [], bad: {} };
  it('are false on an empty plan and true when a container moves off a bad digest', () => {
    expect(hasBadDigest(none)).toBe(false);
    expect(movesAnything(none)).toBe(false);
    const moved: RevertPlan = {
      changes: [],
      containers: [{ workload: 'jobs-manager', container: 'api', image: 'jobs-manager', from: BAD, to: GOOD }],
      bad: { 'jobs-manager': BAD },
    };
    expect(hasBadDigest(moved)).toBe(true);
    expect(movesAnything(moved)).toBe(true);
  });
});

describe('signature admission', () => {
  const resolved = (image: 'jobs-manager' | 'pods-monitor' | 'resource-monitor', digest: Digest): ImageResolution => ({
    _tag: 'Resolved',
    image,
    digest,
    rateLimitRemaining: O.none,
  });

  it('asks about changed digests (gated) and first observations (report-only), never an unchanged one', () => {
    const subjects = signatureSubjects(
      simConfig().topology,
      [resolved('jobs-manager', BAD), resolved('pods-monitor', d('f')), resolved('resource-monitor', RM_GOOD)],
      recorded(),
      {},
    );
    expect(subjects).toEqual([
      { image: 'jobs-manager', host: 'docker.io', repo: 'tracebloc/jobs-manager', digest: BAD, gated: true },
      { image: 'pods-monitor', host: 'docker.io', repo: 'tracebloc/pods-monitor', digest: d('f'), gated: false },
    ]);
  });

  it('a missing answer is a failed check (fail closed), worded as such', () => {
    expect(signatureResultOf(undefined)).toEqual({
      _tag: 'CheckFailed',
      error: { _tag: 'Malformed', message: 'the signature port gave no answer for this digest' },
    });
  });

  it('holds a failed check under warn with its cause; holds NotVerified only under enforce', () => {
    const failed = { _tag: 'CheckFailed', error: { _tag: 'Timeout', message: 'no answer in 5s' } } as const;
    expect(signatureHoldOf('warn', failed)).toEqual({ why: 'Timeout: no answer in 5s', check: 'CheckFailed' });
    const unsigned = { _tag: 'NotVerified', why: 'no signature' } as const;
    expect(signatureHoldOf('enforce', unsigned)).toEqual({ why: 'no signature', check: 'NotVerified' });
    expect(signatureHoldOf('warn', unsigned)).toBeUndefined();
  });

  it('adds a SignatureNotVerified hold for a gated digest only', () => {
    const result = { _tag: 'NotVerified', why: 'no signature' } as const;
    const holds = signatureHolds('enforce', {}, [
      { image: 'jobs-manager', repo: 'tracebloc/jobs-manager', digest: BAD, gated: true, result },
      { image: 'pods-monitor', repo: 'tracebloc/pods-monitor', digest: d('f'), gated: false, result },
    ]);
    expect(holds).toEqual({
      'jobs-manager': {
        _tag: 'SignatureNotVerified',
        image: 'jobs-manager',
        digest: BAD,
        why: 'no signature',
        check: 'NotVerified',
      },
    });
  });
});
