import * as O from 'fp-ts/lib/Option.js';
import { describe, expect, it } from 'vitest';
import { parseImageReference } from '../src/config/profile/image-reference.js';
import { liveFindings } from '../src/domain/live-drift.js';
import { simConfig, simDigest } from '../src/sim/index.js';
import { type ImageName, imageSpec } from './support/chart.js';
import { aSteadyEdge } from './support/edge.js';

// RECONCILE_LIVE (I23): what a container runs, read from its pod template, in
// every shape the chart and a human write it, and which containers are drift.
// Pure: the live view and the records are literals here.

const JM = 'tracebloc/jobs-manager';
const PM = 'tracebloc/pods-monitor';
const RM = 'tracebloc/resource-monitor';
const D1 = simDigest('build 1');
const D2 = simDigest('build 2');

describe('I23: parseImageReference reads every shape of image reference, as Docker normalizes it', () => {
  const hub = (path: string, rest: { tag?: string; digest?: string } = {}) => ({ host: 'docker.io', path, ...rest });
  it.each([
    ['the chart after a pin', `docker.io/${JM}@${D1}`, hub(JM, { digest: D1 })],
    ['the chart on install', `docker.io/${JM}:stg`, hub(JM, { tag: 'stg' })],
    ['a human, without the registry', `${JM}:prod`, hub(JM, { tag: 'prod' })],
    ['a human, without a tag', JM, hub(JM)],
    ['an official image, no slash, no tag', 'busybox', hub('library/busybox')],
    ['an official image with a tag', 'busybox:1.36', hub('library/busybox', { tag: '1.36' })],
    ['docker.io by its index name', `index.docker.io/${JM}:stg`, hub(JM, { tag: 'stg' })],
    ['a tag and a digest both', `docker.io/${JM}:stg@${D1}`, hub(JM, { tag: 'stg', digest: D1 })],
    ['a registry with a port and a tag', `host:5000/${JM}:stg`, { host: 'host:5000', path: JM, tag: 'stg' }],
    ['a registry with a port, no tag', `host:5000/${JM}`, { host: 'host:5000', path: JM }],
    ['a registry with a port and a digest', `host:5000/${JM}@${D1}`, { host: 'host:5000', path: JM, digest: D1 }],
    [
      'a mirror whose path contains docker.io (not a prefix: another registry)',
      `mirror.example/docker.io/${JM}:stg`,
      { host: 'mirror.example', path: `docker.io/${JM}`, tag: 'stg' },
    ],
    ['a host that ends in docker.io', `notdocker.io/${JM}`, { host: 'notdocker.io', path: JM }],
    ['a digest with no name at all', `@${D1}`, { host: '', path: '', digest: D1 }],
  ])('%s: %s', (_, reference, parts) => expect(parseImageReference(reference)).toStrictEqual(parts));
});

const config = simConfig({ RECONCILE_LIVE: '1' });
const records = (jm: string | undefined, pm: string | undefined = undefined, rm: string | undefined = undefined) => ({
  'jobs-manager': O.fromNullable(jm),
  'pods-monitor': O.fromNullable(pm),
  'resource-monitor': O.fromNullable(rm),
});
const NO_PINS = records(undefined);
const settled = { _tag: 'Settled', message: 'successfully rolled out' } as const;
const workload = (images: Record<string, string>, imageOwners: Record<string, string> = {}) => ({
  settledness: settled,
  images,
  imageOwners,
});

describe('I23: liveFindings — which containers run something other than the record', () => {
  it('a Helm re-render back to the tag after a pin is "reverted", with who set it', () =>
    expect(
      liveFindings(config, records(D1), records(D1), {
        'jobs-manager': workload(
          { api: `docker.io/${JM}:stg`, 'pods-monitor-container': `docker.io/${PM}:stg` },
          { api: 'helm' },
        ),
        'requests-proxy': workload({ proxy: `docker.io/${JM}@${D1}` }),
      }),
    ).toStrictEqual([
      {
        workload: 'jobs-manager',
        container: 'api',
        image: 'jobs-manager',
        live: `docker.io/${JM}:stg`,
        recorded: D1,
        owner: 'helm',
        kind: 'reverted',
      },
    ]));

  it('a container on its tag since install, never pinned, is the first-tick contract, not drift (#569)', () =>
    expect(
      liveFindings(config, records(D1), NO_PINS, {
        'jobs-manager': workload({ api: `docker.io/${JM}:stg` }),
      }),
    ).toEqual([]));

  it('another digest of the same repository is drift, pinned or not; a port-qualified registry is foreign', () =>
    expect(
      liveFindings(config, records(D1, undefined, D1), NO_PINS, {
        'requests-proxy': workload({ proxy: `${JM}@${D2}` }),
        'resource-monitor': workload({ 'tracebloc-resource-monitor': `host:5000/${RM}@${D1}` }),
      }).map((f) => [f.container, f.kind, f.owner]),
    ).toEqual([
      ['proxy', 'otherDigest', undefined],
      ['tracebloc-resource-monitor', 'foreign', undefined],
    ]));

  it('a malformed recorded digest is no record: nothing is compared with it, nothing re-pinned to it (I19)', () => {
    const live = {
      'jobs-manager': workload({ api: `docker.io/${JM}@${D2}` }),
      'requests-proxy': workload({ proxy: `docker.io/${JM}@${D2}` }),
    };
    for (const bad of ['sha256:abc', D1.toUpperCase(), 'stg', '']) {
      expect(liveFindings(config, records(bad), records(bad), live)).toEqual([]);
    }
    expect(liveFindings(config, records(undefined), NO_PINS, live)).toEqual([]);
  });

  it('a workload or a container missing from the live view is not read, and the others still are', () =>
    expect(
      liveFindings(config, records(D1, D1, D1), NO_PINS, {
        // pods-monitor-container missing; requests-proxy and resource-monitor not read at all
        'jobs-manager': workload({ api: `docker.io/${JM}@${D2}` }),
      }).map((f) => f.container),
    ).toEqual(['api']));

  it('a container already on its recorded digest, written either way, is not drift', () =>
    expect(
      liveFindings(config, records(D1, D2), records(D1, D2), {
        'jobs-manager': workload({ api: `${JM}@${D1}`, 'pods-monitor-container': `index.docker.io/${PM}@${D2}` }),
      }),
    ).toEqual([]));
});

describe('I23: each image keeps its pin marker under its own annotation', () => {
  it('a resource-monitor re-image with RECONCILE_LIVE on records its digest and its marker in one write', async () => {
    const edge = await aSteadyEdge({ RECONCILE_LIVE: '1' });
    const rm2 = simDigest(`${RM}#2`);
    edge.world.publish(RM, rm2);
    expect((await edge.tick()).exitCode).toBe(0);
    expect(edge.writes().at(-1)).toBe(
      `recordDigests ${JSON.stringify({
        'tracebloc.io/last-refreshed-resource-monitor-digest': rm2,
        'tracebloc.io/pinned-resource-monitor-digest': rm2,
      })}`,
    );
  });

  it('an image outside the three is a defect that names it', () =>
    expect(() => imageSpec('nginx' as ImageName)).toThrow('unknown image nginx'));
});
