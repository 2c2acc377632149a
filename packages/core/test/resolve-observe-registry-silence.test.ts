import { describe, expect, it } from 'vitest';
import { simDigest } from '../src/sim/index.js';
import { ANNOTATION } from './support/chart.js';
import { aSteadyEdge, PM, RM } from './support/edge.js';

// The resolve phase's findings about the gate's own records: REGISTRY
// UNREACHABLE's hints for one silent image and for several (docs/behaviour.md
// §3.3, I46), and bookkeeping the profile no longer declares (docs/profiles.md).

const STREAK = ANNOTATION.resolveFailureStreak;

describe('REGISTRY UNREACHABLE at MAX_RESOLVE_FAILURE_TICKS (I46)', () => {
  it('one silent image is named as "this image" and "it" in what to check', async () => {
    const edge = await aSteadyEdge({ MAX_RESOLVE_FAILURE_TICKS: '1' });
    edge.world.injectRegistryFault(PM, 'Timeout');
    const outcome = await edge.tick();
    expect(outcome.result).toBe('registryUnreachable');
    expect(edge.line('REGISTRY_UNREACHABLE').split('\n').slice(1)).toEqual([
      'no digest of this image has been read for 1 ticks in a row (>= MAX_RESOLVE_FAILURE_TICKS=1), so it cannot be refreshed: check the registry, the network path to it and its credentials',
      `${STREAK} is removed by the first tick in which every image answers; MAX_RESOLVE_FAILURE_TICKS=off says nothing, as the script did`,
    ]);
  });

  it('several silent images are "these images" and "they"', async () => {
    const edge = await aSteadyEdge({ MAX_RESOLVE_FAILURE_TICKS: '1' });
    edge.world.injectRegistryFault(PM, 'Timeout');
    edge.world.injectRegistryFault(RM, 'Timeout');
    const outcome = await edge.tick();
    expect(outcome.result).toBe('registryUnreachable');
    expect(edge.line('REGISTRY_UNREACHABLE').split('\n').slice(1)).toEqual([
      'no digest of these images has been read for 1 ticks in a row (>= MAX_RESOLVE_FAILURE_TICKS=1), so they cannot be refreshed: check the registry, the network path to it and its credentials',
      `${STREAK} is removed by the first tick in which every image answers; MAX_RESOLVE_FAILURE_TICKS=off says nothing, as the script did`,
    ]);
  });
});

describe('bookkeeping under the prefix for images the profile does not declare', () => {
  const orphanedLine = (which: string) =>
    `WARN: deployment/stg-jobs-manager keeps bookkeeping under tracebloc.io/ for ${which} the profile does not declare`;

  it('one renamed image is "an image"', async () => {
    const edge = await aSteadyEdge();
    edge.world.setAnnotation('tracebloc.io/last-refreshed-old-api-digest', simDigest('old api'));
    await edge.tick();
    expect(edge.line('ORPHANED_BOOKKEEPING')).toBe(
      `${orphanedLine('an image')}: old-api. A renamed image starts afresh (a first observation); remove the old keys once they are no longer wanted.`,
    );
  });

  it('several are "images", each named once', async () => {
    const edge = await aSteadyEdge();
    edge.world.setAnnotation('tracebloc.io/last-refreshed-old-api-digest', simDigest('old api'));
    edge.world.setAnnotation('tracebloc.io/quarantined-old-api-digest', simDigest('old api bad'));
    edge.world.setAnnotation('tracebloc.io/pending-old-agent-digest', simDigest('old agent'));
    await edge.tick();
    expect(edge.line('ORPHANED_BOOKKEEPING')).toBe(
      `${orphanedLine('images')}: old-api, old-agent. A renamed image starts afresh (a first observation); remove the old keys once they are no longer wanted.`,
    );
  });
});
