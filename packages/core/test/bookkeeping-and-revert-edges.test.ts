import { describe, expect, it } from 'vitest';
import { changesNothing, quarantinesRemoved } from '../src/domain/bookkeeping.js';
import type { WorkloadChange } from '../src/domain/plan.js';
import { normalizePlatform, platformName } from '../src/domain/platforms.js';
import {
  forbidden,
  isPortError,
  malformed,
  notFound,
  timeout,
  transport,
  unauthorized,
} from '../src/domain/port-error.js';
import { recordedAtWrite } from '../src/domain/recorded-at.js';
import { failedReimageOf, patched } from '../src/domain/reimage-run.js';
import { topologyFingerprint } from '../src/domain/topology-fingerprint.js';
import { workloadOf } from '../src/domain/workloads.js';
import { simConfig, simDigest } from '../src/sim/index.js';

// The edges of the bookkeeping and the re-image run that no tick of the
// other tests reached (pnpm mutation, test/spec/README.md): the rearm write,
// the topology fingerprint's pins and width, the record write's times, which
// workload failed a retry tick, and the spellings of a platform and a port
// error. (No "/" in a test's name: Stryker's vitest runner then runs none of
// its mutants' tests there.)

const { topology } = simConfig();
const keyOf = (image: string, key: 'recordKey' | 'recordedAtKey'): string => {
  const spec = topology.images.find((i) => i.name === image);
  if (spec === undefined) throw new Error(`no image ${image} in the chart's topology`);
  return spec[key];
};

describe('workloadOf', () => {
  it('finds a workload by its id, and names an id the topology does not have instead of answering nothing', () => {
    expect(workloadOf(topology, 'requests-proxy').name).toBe('stg-requests-proxy');
    // A defect of the caller (every id the machine asks for is the topology's): it
    // is named here rather than crashing later on an undefined workload.
    expect(() => workloadOf(topology, 'requests-prox')).toThrow('unknown workload requests-prox');
  });
});

describe("quarantinesRemoved: rearm's write (behaviour.md §3.6, I30)", () => {
  it('removes the quarantine of each image named, in the topology’s order, and no other', () => {
    expect(Object.entries(quarantinesRemoved(topology, ['resource-monitor', 'jobs-manager']))).toEqual([
      ['tracebloc.io/quarantined-jobs-manager-digest', null],
      ['tracebloc.io/quarantined-resource-monitor-digest', null],
    ]);
  });

  it('with no image quarantined, or only names the topology does not follow, it changes nothing', () => {
    expect(changesNothing(quarantinesRemoved(topology, []))).toBe(true);
    expect(changesNothing(quarantinesRemoved(topology, ['nginx']))).toBe(true);
  });
});

describe('topologyFingerprint (behaviour.md §3.4c)', () => {
  const fp = (env: Record<string, string>) => topologyFingerprint(simConfig(env).topology);

  it('an image pinned on this edge moves it, as a pinned workload does', () => {
    // JOBS_MANAGER_PINNED pins the image jobs-manager (every container of it), not a workload.
    expect(topology.images.find((i) => i.name === 'jobs-manager')?.pinnedBy).toBe('JOBS_MANAGER_PINNED');
    expect(fp({ JOBS_MANAGER_PINNED: '1' })).not.toBe(fp({}));
  });

  it('is v1- and 16 hex digits, a checksum that begins with zeros included', () => {
    // This topology's checksum has a leading zero digit: it is kept, so the
    // recorded value has one width whatever the topology.
    expect(fp({ DEPLOYMENT_NAME: 'stg-jobs-manager-4' })).toBe('v1-0c48af4c2f277ad4');
    expect(fp({})).toMatch(/^v1-[0-9a-f]{16}$/);
  });
});

describe('recordedAtWrite: the record write’s times (behaviour.md §3.4, fleet-promotion.md)', () => {
  const D1 = simDigest('jobs-manager#1');
  const D0 = simDigest('pods-monitor#0');
  const NOW = Date.UTC(2026, 11, 5, 12, 0, 0);

  it('gives a time only to the images the write records; another image’s kept time is left alone', () => {
    const record = { [keyOf('jobs-manager', 'recordKey')]: D1 };
    const bookkeeping = { [keyOf('pods-monitor', 'recordedAtKey')]: `${D0} 2026-11-01T00:00:00Z` };
    expect(recordedAtWrite(topology, record, bookkeeping, NOW, new Set())).toEqual({
      'tracebloc.io/last-refreshed-jobs-manager-at': `${D1} 2026-12-05T12:00:00Z`,
    });
  });
});

describe('failedReimageOf: which workload failed the re-image (behaviour.md §3.6)', () => {
  const change = (id: string, container: string, image: string): WorkloadChange => ({
    workload: workloadOf(topology, id),
    images: [{ container, image: `docker.io/tracebloc/${image}` }],
  });
  const jm = change('jobs-manager', 'api', `jobs-manager@${simDigest('jm#3')}`);
  const rm = change('resource-monitor', 'tracebloc-resource-monitor', `resource-monitor@${simDigest('rm#2')}`);
  const stalled = {
    _tag: 'RolloutFailed' as const,
    error: { _tag: 'RolloutTimedOut' as const, message: '0 of 3 updated' },
    inWindow: false,
  };
  const failed = (alreadyOnTarget: boolean) => ({ workload: rm.workload, why: 'rolloutTimedOut', alreadyOnTarget });

  it('a retry tick that patched an earlier workload: the failed one, already on its target, patched nothing', () => {
    // jobs-manager moved on to a newer build and was patched; resource-monitor
    // already ran its target since the tick before, whose rollout is still not done.
    expect(failedReimageOf(stalled, [jm, rm], 1, [patched(jm)])).toEqual(failed(true));
    expect(failedReimageOf(stalled, [jm, rm], 1, [patched(jm), patched(rm)])).toEqual(failed(false));
  });
});

describe('the spellings compared', () => {
  it('x86-64 is amd64, as containerd normalises it', () => {
    expect(platformName(normalizePlatform({ os: 'linux', architecture: 'x86-64' }))).toBe('linux/amd64');
  });

  it('a failure of each of the six port error classes is a port error; a 429 is not', () => {
    // A port that fails with one of them is reported in its own class, not as
    // an "unexpected failure" (Transport).
    for (const make of [notFound, unauthorized, forbidden, timeout, transport, malformed]) {
      expect(isPortError(make('the server said so'))).toBe(true);
    }
    expect(isPortError({ _tag: 'RateLimited', message: 'too many requests' })).toBe(false);
  });
});
