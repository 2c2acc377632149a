import { describe, expect, it } from 'vitest';
import { simDigest } from '../src/sim/index.js';
import { anEdge } from './support/edge.js';

// The ownership check's lines (docs/behaviour.md §3.4c): the topology found
// true and remembered, the memory that could not be written, and a staked
// container the workload does not have at all.

const FINGERPRINT = 'tracebloc.io/topology-fingerprint';

describe('a topology checked whole (the first tick, or a changed profile)', () => {
  it('says every mapped container runs its image and that the topology is remembered under the fingerprint key', async () => {
    const edge = anEdge();
    const outcome = await edge.tick();
    expect(outcome.result).toBe('complete');
    const fingerprint = edge.world.annotations[FINGERPRINT];
    expect(fingerprint).toMatch(/^v1-[0-9a-f]+$/);
    expect(outcome.events.filter((e) => e.code === 'TOPOLOGY_CHECKED')).toEqual([
      {
        level: 'info',
        code: 'TOPOLOGY_CHECKED',
        message: `every mapped container runs the image it follows: this topology (${fingerprint}) is recorded in ${FINGERPRINT}, and checked again only when it changes`,
      },
    ]);
  });

  it('a fingerprint the gate refuses is a WARN, not a finding: the tick records its digests and the next checks again', async () => {
    const edge = anEdge();
    edge.world.injectClusterFault('patchBookkeeping', 'Forbidden', 1, `${FINGERPRINT}=`);
    const outcome = await edge.tick();
    expect(outcome.result).toBe('complete');
    expect(outcome.exitCode).toBe(0);
    expect(edge.world.annotations[FINGERPRINT]).toBeUndefined();
    expect(edge.codes()).not.toContain('TOPOLOGY_CHECKED');
    const warnings = outcome.events.filter((e) => e.code === 'TOPOLOGY_FINGERPRINT_UNWRITTEN');
    expect(warnings.map((e) => e.level)).toEqual(['warn']);
    expect(warnings.map((e) => e.message)).toEqual([
      `WARN: could not write ${FINGERPRINT} on deployment/stg-jobs-manager (Forbidden (HTTP 403): simulated Forbidden on patchBookkeeping); the next tick checks every mapped container again`,
    ]);
    // The first observation records build 1, which the simulated registry publishes for every image.
    expect(edge.world.annotations['tracebloc.io/last-refreshed-jobs-manager-digest']).toBe(
      simDigest('tracebloc/jobs-manager#1'),
    );
    const next = await edge.tick();
    expect(next.writes.map((w) => w.kind)).toEqual(['recordTopologyFingerprint']);
    expect(edge.codes()).toContain('TOPOLOGY_CHECKED');
  });
});

describe('a staked container the workload does not have', () => {
  it('a workload with other containers names each of them', async () => {
    const edge = anEdge();
    edge.world.workload('requests-proxy').images = {
      envoy: 'docker.io/library/envoy:1.31',
      shell: 'docker.io/library/busybox:1.37',
    };
    const outcome = await edge.tick();
    expect(outcome.result).toBe('foreignImage');
    expect(outcome.writes).toEqual([]);
    expect(edge.line('FOREIGN_IMAGE')).toBe(
      [
        'ERROR: deployment/stg-requests-proxy in tracebloc has no container proxy (it has envoy, shell), which the profile maps to image "jobs-manager"; nothing is re-imaged or recorded this tick',
        'a set image would add one: fix the profile\'s containers of workload "requests-proxy"',
      ].join('\n'),
    );
  });

  it('a workload with no containers at all is said to have none, and nothing is written', async () => {
    const edge = anEdge();
    edge.world.workload('requests-proxy').images = {};
    const outcome = await edge.tick();
    expect(outcome.result).toBe('foreignImage');
    expect(outcome.writes).toEqual([]);
    expect(edge.line('FOREIGN_IMAGE')).toBe(
      [
        'ERROR: deployment/stg-requests-proxy in tracebloc has no container proxy (it has none), which the profile maps to image "jobs-manager"; nothing is re-imaged or recorded this tick',
        'a set image would add one: fix the profile\'s containers of workload "requests-proxy"',
      ].join('\n'),
    );
  });
});
