import * as O from 'fp-ts/lib/Option.js';
import { describe, expect, it } from 'vitest';
import { changedDigests, heldImages, withHold } from '../src/domain/admission.js';
import { type Digest, isWellFormedDigest } from '../src/domain/digest.js';
import { type ImageResolution, planRefresh } from '../src/domain/plan.js';
import { simConfig, simDigest } from '../src/sim/index.js';
import type { ImageName } from './support/chart.js';

// docs/behaviour.md §3.4a: what the admission checks look at (changed digests
// only) and what a hold does to the plan (the image moves nothing and is not
// recorded; the other images go on, I15).

const digest = (label: string): Digest => {
  const text = simDigest(label);
  if (!isWellFormedDigest(text)) throw new Error(`simDigest gave ${text}`);
  return text;
};
const [J1, J2, P1, P2, R1] = ['jm 1', 'jm 2', 'pm 1', 'pm 2', 'rm 1'].map(digest) as [
  Digest,
  Digest,
  Digest,
  Digest,
  Digest,
];
const resolved = (image: ImageName, d: Digest): ImageResolution => ({
  _tag: 'Resolved',
  image,
  digest: d,
  rateLimitRemaining: O.none,
});
const recorded = { 'jobs-manager': O.some(J1), 'pods-monitor': O.some(P1), 'resource-monitor': O.none };
const resolutions = [resolved('jobs-manager', J2), resolved('pods-monitor', P2), resolved('resource-monitor', R1)];
const config = simConfig({});

describe('admission (docs/behaviour.md §3.4a)', () => {
  it('looks only at changed digests: a first observation and a held image are not asked about', () => {
    expect(changedDigests(resolutions, recorded, {})).toEqual([
      { image: 'jobs-manager', from: J1, to: J2 },
      { image: 'pods-monitor', from: P1, to: P2 },
    ]);
    const holds = withHold({}, { _tag: 'Quarantined', image: 'jobs-manager', digest: J2 });
    expect(changedDigests(resolutions, recorded, holds)).toEqual([{ image: 'pods-monitor', from: P1, to: P2 }]);
  });

  it('keeps the first reason an image was held for: the check order decides', () => {
    const first = withHold({}, { _tag: 'Quarantined', image: 'pods-monitor', digest: P2 });
    const second = withHold(first, { _tag: 'Soaking', image: 'pods-monitor', digest: P2 });
    expect(second['pods-monitor']?._tag).toBe('Quarantined');
  });

  it('a held image moves no container and is not recorded; the others go on (I15)', () => {
    const held = heldImages(withHold({}, { _tag: 'Soaking', image: 'jobs-manager', digest: J2 }));
    const plan = planRefresh(config, resolutions, recorded, { held });
    expect(plan.changes.map((c) => c.images.map((i) => i.container))).toEqual([['pods-monitor-container']]);
    expect(plan.drift).toEqual({ 'pods-monitor': P2 });
    expect(plan.firstObservations).toEqual({ 'resource-monitor': R1 });
    expect(plan.verdicts.map((v) => v._tag)).toEqual(['Drift', 'Drift', 'FirstObservation']);
  });
});
