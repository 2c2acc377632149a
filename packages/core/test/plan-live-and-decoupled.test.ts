import * as O from 'fp-ts/lib/Option.js';
import { describe, expect, it } from 'vitest';
import { type Digest, isWellFormedDigest } from '../src/domain/digest.js';
import type { LiveFinding } from '../src/domain/live-drift.js';
import { type ImageResolution, type PlanScope, planRefresh, verdictOf } from '../src/domain/plan.js';
import { simConfig, simDigest } from '../src/sim/index.js';
import type { ImageName, WorkloadId } from './support/chart.js';

// The plan a tick acts on, from the registry's verdicts, the live view
// (RECONCILE_LIVE, I23) and a decoupled pass's settled workloads
// (DECOUPLED_REFRESH, I22, I24, I25): which containers change to what, what is
// recorded, and which pin markers go with the record. Pure: every input is a
// literal, every assertion is on the plan.

const digest = (label: string): Digest => {
  const text = simDigest(label);
  if (!isWellFormedDigest(text)) throw new Error(`simDigest gave ${text}`);
  return text;
};
const JM = 'tracebloc/jobs-manager';
const PM = 'tracebloc/pods-monitor';
const RM = 'tracebloc/resource-monitor';
const [J1, J2, P1, P2, R1, R2] = ['jm 1', 'jm 2', 'pm 1', 'pm 2', 'rm 1', 'rm 2'].map(digest) as [
  Digest,
  Digest,
  Digest,
  Digest,
  Digest,
  Digest,
];
const at = (repo: string, d: string) => `docker.io/${repo}@${d}`;
const config = simConfig({ RECONCILE_LIVE: '1' });

const resolved = (image: ImageName, d: Digest): ImageResolution => ({
  _tag: 'Resolved',
  image,
  digest: d,
  rateLimitRemaining: O.none,
});
const records = (jm?: string, pm?: string, rm?: string) => ({
  'jobs-manager': O.fromNullable(jm),
  'pods-monitor': O.fromNullable(pm),
  'resource-monitor': O.fromNullable(rm),
});
const finding = (
  workload: LiveFinding['workload'],
  container: string,
  image: ImageName,
  live: string,
  recorded: Digest,
  kind: LiveFinding['kind'],
): LiveFinding => ({ workload, container, image, live, recorded, owner: undefined, kind });
/** What the tick read of each workload: every managed container on build 1. */
const ON_BUILD_1 = {
  'jobs-manager': { api: at(JM, J1), 'pods-monitor-container': at(PM, P1) },
  'requests-proxy': { proxy: at(JM, J1) },
  'resource-monitor': { 'tracebloc-resource-monitor': at(RM, R1) },
};
const patches = (plan: ReturnType<typeof planRefresh>) =>
  plan.changes.map((c) => [c.workload.id, c.images.map((i) => `${i.container}=${i.image}`).join(' ')]);

describe('verdictOf: what was recorded decides first observation, no-op or drift (I8)', () => {
  it.each([
    ['nothing recorded', O.none, 'FirstObservation'],
    ['an empty annotation, as the reference reads `[ -z "$recorded" ]`', O.some(''), 'FirstObservation'],
    ['the same digest', O.some(J1), 'Unchanged'],
    ['another digest', O.some(J2), 'Drift'],
  ])('%s: %s', (_, recorded, tag) => expect(verdictOf(J1, recorded, 'jobs-manager')._tag).toBe(tag));

  it('an empty record re-images nothing and is recorded as a first observation', () => {
    const plan = planRefresh(config, [resolved('jobs-manager', J1)], records(''));
    expect(plan.changes).toEqual([]);
    expect(plan.firstObservations).toEqual({ 'jobs-manager': J1 });
  });
});

describe('the plan of a coupled tick (I16): patches, and `previous` on each Reimage', () => {
  it('resolutions for some images only: the others are simply not planned', () => {
    const plan = planRefresh(config, [resolved('resource-monitor', R2)], records(J1, P1, R1));
    expect(plan.verdicts.map((v) => v.image)).toEqual(['resource-monitor']);
    expect(patches(plan)).toEqual([['resource-monitor', `tracebloc-resource-monitor=${at(RM, R2)}`]]);
  });

  it('previous holds what the tick read of exactly the containers it patches, and only where it read one', () => {
    const plan = planRefresh(config, [resolved('jobs-manager', J2), resolved('pods-monitor', P2)], records(J1, P1), {
      // the live view has api but not pods-monitor-container, and no requests-proxy
      liveImages: { 'jobs-manager': { api: at(JM, J1), unmanaged: 'sidecar:1' } },
    });
    expect(plan.changes.map((c) => [c.workload.id, c.previous])).toStrictEqual([
      ['jobs-manager', { api: at(JM, J1) }],
      ['requests-proxy', undefined],
    ]);
    expect(Object.keys(plan.changes[1] ?? {})).not.toContain('previous');
  });

  it('a plan without a live view has no `previous` at all, and no live findings', () => {
    const plan = planRefresh(config, [resolved('jobs-manager', J2)], records(J1));
    expect(plan.changes.map((c) => Object.keys(c).sort())).toEqual([
      ['images', 'workload'],
      ['images', 'workload'],
    ]);
    expect(plan.live).toStrictEqual([]);
    expect(plan.pins).toStrictEqual({});
  });

  it('outside a decoupled pass requests-proxy follows jobs-manager even when the live view has it there already', () => {
    const plan = planRefresh(config, [resolved('jobs-manager', J2)], records(J1), {
      liveImages: { ...ON_BUILD_1, 'requests-proxy': { proxy: at(JM, J2) } },
    });
    expect(patches(plan)).toEqual([
      ['jobs-manager', `api=${at(JM, J2)}`],
      ['requests-proxy', `proxy=${at(JM, J2)}`],
    ]);
    expect(plan.drift).toEqual({ 'jobs-manager': J2 });
  });
});

describe('RECONCILE_LIVE=1, the live repair (I23)', () => {
  it('a container the registry already moves is patched once, to the new digest, not also back to the record', () => {
    const plan = planRefresh(config, [resolved('jobs-manager', J2)], records(J1), {
      live: [finding('jobs-manager', 'api', 'jobs-manager', `docker.io/${JM}:stg`, J1, 'reverted')],
      repairLive: true,
      liveImages: ON_BUILD_1,
    });
    expect(patches(plan)).toEqual([
      ['jobs-manager', `api=${at(JM, J2)}`],
      ['requests-proxy', `proxy=${at(JM, J2)}`],
    ]);
  });

  it('beside a registry drift of another container, the reverted one is re-pinned to its record', () => {
    const plan = planRefresh(config, [resolved('pods-monitor', P2)], records(J1, P1), {
      live: [finding('jobs-manager', 'api', 'jobs-manager', `docker.io/${JM}:stg`, J1, 'reverted')],
      repairLive: true,
      liveImages: ON_BUILD_1,
    });
    expect(patches(plan)).toEqual([['jobs-manager', `pods-monitor-container=${at(PM, P2)} api=${at(JM, J1)}`]]);
  });

  it('a foreign image is reported, never repaired; report mode repairs nothing; repair with no findings is a no-op', () => {
    const foreign = finding('jobs-manager', 'api', 'jobs-manager', 'nginx:1', J1, 'foreign');
    const reverted = finding('jobs-manager', 'api', 'jobs-manager', `docker.io/${JM}:stg`, J1, 'reverted');
    const scope = (s: PlanScope) => planRefresh(config, [], records(J1), { liveImages: ON_BUILD_1, ...s });
    expect(scope({ live: [foreign], repairLive: true }).changes).toEqual([]);
    expect(scope({ live: [reverted], repairLive: false }).changes).toEqual([]);
    expect(scope({ live: [reverted] }).live).toEqual([reverted]);
    expect(scope({ repairLive: true }).changes).toEqual([]);
  });
});

describe('I23, RECONCILE_LIVE pin markers: only when every managed container of the image ends on the digest (#569)', () => {
  const markPins = (
    resolutions: readonly ImageResolution[],
    recorded: ReturnType<typeof records>,
    scope: PlanScope = {},
  ) => planRefresh(config, resolutions, recorded, { repairLive: true, markPins: true, ...scope });

  it('drift and a record: both jobs-manager containers move to the new digest, the marker names it', () =>
    expect(markPins([resolved('jobs-manager', J2)], records(J1), { liveImages: ON_BUILD_1 }).pins).toEqual({
      'jobs-manager': J2,
    }));

  it('a record and no drift: api re-pinned (its revert is one because the image was marked), the proxy already on the record, the marker names the record', () =>
    expect(
      markPins([resolved('jobs-manager', J1)], records(J1), {
        live: [finding('jobs-manager', 'api', 'jobs-manager', `docker.io/${JM}:stg`, J1, 'reverted')],
        liveImages: { ...ON_BUILD_1, 'jobs-manager': { api: `docker.io/${JM}:stg` } },
        markedBefore: records(J1),
      }).pins,
    ).toEqual({ 'jobs-manager': J1 }));

  it('the proxy repaired alone while api already runs the record, the image marked before: the marker is written', () =>
    expect(
      markPins([], records(J1), {
        live: [finding('requests-proxy', 'proxy', 'jobs-manager', at(JM, J2), J1, 'otherDigest')],
        liveImages: ON_BUILD_1,
        markedBefore: records(J2),
      }).pins,
    ).toEqual({ 'jobs-manager': J1 }));

  it('the proxy repaired alone while api runs the record, no marker before: api may have been set by hand, so no marker (I23)', () =>
    expect(
      markPins([], records(J1), {
        live: [finding('requests-proxy', 'proxy', 'jobs-manager', at(JM, J2), J1, 'otherDigest')],
        liveImages: ON_BUILD_1,
      }).pins,
    ).toEqual({}));

  it.each([
    ['unmarked', undefined],
    ['marked before', records(J2)],
  ])('the proxy repaired alone while api is on its tag, %s: no marker (#569)', (_, markedBefore) => {
    const plan = markPins([resolved('pods-monitor', P2)], records(J1, P1), {
      live: [finding('requests-proxy', 'proxy', 'jobs-manager', at(JM, J2), J1, 'otherDigest')],
      liveImages: {
        ...ON_BUILD_1,
        'jobs-manager': { api: `docker.io/${JM}:stg`, 'pods-monitor-container': at(PM, P1) },
      },
      ...(markedBefore === undefined ? {} : { markedBefore }),
    });
    expect(patches(plan)).toEqual([
      ['jobs-manager', `pods-monitor-container=${at(PM, P2)}`],
      ['requests-proxy', `proxy=${at(JM, J1)}`],
    ]);
    expect(plan.pins).toEqual({ 'pods-monitor': P2 });
  });

  it('pods-monitor moved first, then api and the proxy re-pinned: all three markers, each with its own digest', () => {
    const plan = markPins([resolved('pods-monitor', P2), resolved('resource-monitor', R2)], records(J1, P1, R1), {
      live: [
        finding('jobs-manager', 'api', 'jobs-manager', `docker.io/${JM}:stg`, J1, 'reverted'),
        finding('requests-proxy', 'proxy', 'jobs-manager', `docker.io/${JM}:stg`, J1, 'reverted'),
      ],
      liveImages: ON_BUILD_1,
    });
    expect(patches(plan)[0]).toEqual(['jobs-manager', `pods-monitor-container=${at(PM, P2)} api=${at(JM, J1)}`]);
    expect(plan.pins).toEqual({ 'jobs-manager': J1, 'pods-monitor': P2, 'resource-monitor': R2 });
  });

  it('first observation: nothing moves, so no marker; a pinned requests-proxy is not one of the image’s containers', () => {
    expect(markPins([resolved('jobs-manager', J1)], records(), { liveImages: ON_BUILD_1 }).pins).toEqual({});
    const proxyPinned = simConfig({ RECONCILE_LIVE: '1', REQUESTS_PROXY_PINNED: '1' });
    expect(
      planRefresh(proxyPinned, [resolved('jobs-manager', J2)], records(J1), { markPins: true, liveImages: ON_BUILD_1 })
        .pins,
    ).toEqual({ 'jobs-manager': J2 });
  });

  it('a live repair that no record backs is no marker: a marker says which recorded digest image-refresh pinned', () =>
    expect(
      markPins([], records(), {
        live: [finding('requests-proxy', 'proxy', 'jobs-manager', at(JM, J2), J1, 'otherDigest')],
        liveImages: ON_BUILD_1,
        markedBefore: records(J1),
      }).pins,
    ).toEqual({}));

  it('switch off: no marker at all', () =>
    expect(planRefresh(config, [resolved('jobs-manager', J2)], records(J1), { liveImages: ON_BUILD_1 }).pins).toEqual(
      {},
    ));
});

describe('DECOUPLED_REFRESH: a pass past an unsettled jobs-manager (I22, I24, I25)', () => {
  const all = [resolved('jobs-manager', J2), resolved('pods-monitor', P2), resolved('resource-monitor', R2)];
  const decoupled = (settled: readonly WorkloadId[]) => ({ settled: new Set(settled) });

  it('requests-proxy settled: only the proxy moves; nothing is recorded as moved (I22, I24)', () => {
    const plan = planRefresh(config, all, records(J1, P1, R1), {
      decoupled: decoupled(['requests-proxy']),
      liveImages: ON_BUILD_1,
    });
    expect(patches(plan)).toEqual([['requests-proxy', `proxy=${at(JM, J2)}`]]);
    expect(plan.drift).toEqual({});
    expect(plan.firstObservations).toEqual({});
  });

  it('only resource-monitor settled: the proxy stays put though jobs-manager drifted (I24)', () => {
    const plan = planRefresh(config, all, records(J1, P1, R1), {
      decoupled: decoupled(['resource-monitor']),
      liveImages: ON_BUILD_1,
    });
    expect(patches(plan)).toEqual([['resource-monitor', `tracebloc-resource-monitor=${at(RM, R2)}`]]);
    expect(plan.drift).toEqual({ 'resource-monitor': R2 });
  });

  it('jobs-manager’s own containers never move in a decoupled pass, even listed as settled (I22)', () => {
    const plan = planRefresh(config, all, records(J1, P1, R1), {
      decoupled: decoupled(['jobs-manager', 'requests-proxy', 'resource-monitor']),
      liveImages: ON_BUILD_1,
    });
    expect(plan.changes.map((c) => c.workload.id)).toEqual(['requests-proxy', 'resource-monitor']);
    expect(plan.drift).toEqual({ 'resource-monitor': R2 });
  });

  it('a proxy already on the drifted digest is not patched again (I25), one not read is; the digest is not first-observed', () => {
    const plan = planRefresh(config, [resolved('jobs-manager', J2)], records(J1), {
      decoupled: decoupled(['requests-proxy']),
      liveImages: { ...ON_BUILD_1, 'requests-proxy': { proxy: at(JM, J2) } },
    });
    expect(plan.changes).toEqual([]);
    const proxyUnread = planRefresh(config, [resolved('jobs-manager', J2)], records(J1), {
      decoupled: decoupled(['requests-proxy']),
      liveImages: { 'resource-monitor': ON_BUILD_1['resource-monitor'] },
    });
    expect(patches(proxyUnread)).toEqual([['requests-proxy', `proxy=${at(JM, J2)}`]]);
    const fresh = planRefresh(config, [resolved('jobs-manager', J2)], records(), {
      decoupled: decoupled(['requests-proxy']),
    });
    expect(fresh.firstObservations).toEqual({});
  });

  it('pin markers: the proxy alone on the new digest while api is not is no marker; a settled DaemonSet’s is', () => {
    const plan = planRefresh(config, all, records(J1, P1, R1), {
      decoupled: decoupled(['requests-proxy', 'resource-monitor']),
      markPins: true,
      liveImages: { 'requests-proxy': ON_BUILD_1['requests-proxy'] },
    });
    expect(plan.pins).toEqual({ 'resource-monitor': R2 });
    const unread = planRefresh(config, all, records(J1, P1, R1), {
      decoupled: decoupled(['requests-proxy']),
      markPins: true,
    });
    expect(unread.pins).toEqual({});
  });
});
