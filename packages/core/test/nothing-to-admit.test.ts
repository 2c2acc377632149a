import * as O from 'fp-ts/lib/Option.js';
import { describe, expect, it } from 'vitest';
import { withHold } from '../src/domain/admission.js';
import { type Digest, isWellFormedDigest } from '../src/domain/digest.js';
import { hasNothingToAdmit } from '../src/domain/nothing-to-admit.js';
import type { ImageResolution } from '../src/domain/plan.js';
import { simConfig, simDigest } from '../src/sim/index.js';

// docs/behaviour.md §3.4a: a tick passes every admission check at once only
// when no check has anything to judge — no digest changed or first observed
// that no check held yet, and no pending record for the soak to clear.

const digest = (label: string): Digest => {
  const text = simDigest(label);
  if (!isWellFormedDigest(text)) throw new Error(`simDigest gave ${text}`);
  return text;
};
const [J1, J2, P1] = ['jm 1', 'jm 2', 'pm 1'].map(digest) as [Digest, Digest, Digest];
const resolved = (image: string, d: Digest): ImageResolution => ({
  _tag: 'Resolved',
  image,
  digest: d,
  rateLimitRemaining: O.none,
});
const off = simConfig({});
const soaking = simConfig({ MIN_DIGEST_AGE: '1h' });
const recorded = { 'jobs-manager': O.some(J1), 'pods-monitor': O.some(P1) };
const steady = [resolved('jobs-manager', J1), resolved('pods-monitor', P1)];
const pendingKey = soaking.topology.images[0]?.pendingKey ?? 'unknown';

describe('nothing to admit (docs/behaviour.md §3.4a)', () => {
  it('is every answer its recorded digest, or an image not answered', () => {
    expect(hasNothingToAdmit(off, steady, recorded, {}, {})).toBe(true);
    expect(hasNothingToAdmit(off, [], recorded, {}, {})).toBe(true);
  });

  it('is not a changed digest, nor a first observation: each check has one to judge', () => {
    expect(hasNothingToAdmit(off, [resolved('jobs-manager', J2)], recorded, {}, {})).toBe(false);
    expect(hasNothingToAdmit(off, [resolved('resource-monitor', J2)], recorded, {}, {})).toBe(false);
  });

  it('is a changed digest an earlier check already held', () => {
    const held = withHold({}, { _tag: 'HaltUnverified', image: 'jobs-manager', digest: J2 });
    expect(hasNothingToAdmit(off, [resolved('jobs-manager', J2)], recorded, held, {})).toBe(true);
  });

  it('is not a pending record the soak is on to clear; with the soak off, a record left is no check of this tick', () => {
    const bookkeeping = { [pendingKey]: `${J2}@2026-12-01T00:00:00Z` };
    expect(hasNothingToAdmit(soaking, steady, recorded, {}, bookkeeping)).toBe(false);
    expect(hasNothingToAdmit(soaking, steady, recorded, {}, {})).toBe(true);
    expect(hasNothingToAdmit(off, steady, recorded, {}, bookkeeping)).toBe(true);
  });
});
