import * as E from 'fp-ts/lib/Either.js';
import * as O from 'fp-ts/lib/Option.js';
import { describe, expect, it } from 'vitest';
import type { Profile } from '../src/config/profile/profile.js';
import { parseFleetPromotion } from '../src/domain/fleet-promotion.js';
import { acceptResolutions, resolveRequests } from '../src/domain/resolutions.js';
import { SHOP_PROFILE, simConfig, simDigest } from '../src/sim/index.js';
import { aPromotionEdge } from './support/promotion-edge.js';

// Edges of the fleet promotion (docs/fleet-promotion.md) and of the resolve
// batch it rides in that the promotion's other tests leave open: a field
// whose JSON is a list but whose text would pass, a document that lists one
// image under two digests, what a tick reports of a withdrawn promotion, and
// an image that only pinned workloads run (I13). Every document is parsed
// inside its test, never while the file loads.

const JM = 'tracebloc/jobs-manager';
const JM1 = simDigest(`${JM}#1`);
const JM2 = simDigest(`${JM}#2`);
const JM3 = simDigest(`${JM}#3`);
const JM_RECORD = 'tracebloc.io/last-refreshed-jobs-manager-digest';
const REF = 'docker.io/tracebloc/fleet-control:stg-promotion';

const NOW = Date.parse('2024-06-01T00:00:00Z');
const DIGEST = `sha256:${'a'.repeat(64)}`;
const IN_A_DAY = '2024-06-02T00:00:00Z';

const entry = (overrides: Record<string, unknown>) => ({
  image: 'web',
  digest: DIGEST,
  ring: 1,
  expires: IN_A_DAY,
  evidence: 'canaries healthy for 2h',
  ...overrides,
});
const refusalOf = (overrides: Record<string, unknown>): string => {
  const parsed = parseFleetPromotion(JSON.stringify({ version: 1, promotions: [entry(overrides)] }), NOW);
  return E.isLeft(parsed) ? parsed.left : `parsed: ${JSON.stringify(parsed.right)}`;
};

/** A ring-1 edge under FLEET_PROMOTION_REF that recorded build 1 of everything. */
const aSteadyRingOneEdge = async () => {
  const edge = aPromotionEdge();
  expect((await edge.tick()).exitCode).toBe(0);
  expect(edge.world.annotations[JM_RECORD]).toBe(JM1);
  return edge;
};

describe('the promotion document is strict about the type of each field', () => {
  // A list of one string reads as that string to a pattern and to Date.parse:
  // only the type check tells it apart. A document that does not parse holds
  // every change back (fail closed).
  it('refuses a digest written as a list of one well-formed digest', () => {
    expect(refusalOf({ digest: [DIGEST] })).toBe('promotions[0].digest is not a well-formed digest');
  });

  it('refuses an expiry written as a list of one RFC 3339 time', () => {
    expect(refusalOf({ expires: [IN_A_DAY] })).toBe('promotions[0].expires is not an RFC 3339 time');
  });
});

describe('a promotion that names one image under two digests', () => {
  // Only the same image AND digest twice makes a document that does not parse
  // (docs/fleet-promotion.md, "The gate on the edges"); two builds of one image,
  // or one digest under two images, are distinct entries.
  it('parses on a ring-1 edge and opens the build it names', async () => {
    const edge = await aSteadyRingOneEdge();
    edge.world.publish(JM, JM3);
    edge.publishPromotion([
      { image: 'jobs-manager', digest: JM2, ring: 1 },
      { image: 'jobs-manager', digest: JM3, ring: 1 },
      { image: 'pods-monitor', digest: JM3, ring: 1 },
    ]);
    const outcome = await edge.tick();
    expect(outcome.promotion?.state).toBe('verified');
    expect(outcome.result).toBe('complete');
    expect(edge.world.annotations[JM_RECORD]).toBe(JM3);
  });
});

describe('what a tick reports of the promotion', () => {
  // docs/fleet-promotion.md, "404, a promotion kept": withdrawn, and the
  // report (outcome, `status`, metrics) names the digest whose record goes.
  it('a withdrawn promotion is reported with the digest that was kept', async () => {
    const edge = await aSteadyRingOneEdge();
    const kept = edge.publishPromotion([{ image: 'jobs-manager', digest: JM2, ring: 1 }]);
    await edge.tick();
    edge.withdrawPromotion();
    const outcome = await edge.tick();
    expect(outcome.promotion).toEqual({ state: 'withdrawn', reference: REF, digest: kept, why: null });
  });
  // docs/fleet-promotion.md: the report is of a reading; a tick that ends
  // before the promotion phase read nothing, so it reports nothing.
  it('a tick that skipped before the promotion phase reports no promotion', async () => {
    const edge = await aSteadyRingOneEdge();
    edge.world.setBehaviour('jobs-manager', 'neverReady');
    const outcome = await edge.tick();
    expect(outcome.result).toBe('skipped');
    expect(outcome.promotion).toBeUndefined();
  });
});

describe('I13: an image that only pinned workloads run', () => {
  /** The shop of docs/profiles.md, its agent DaemonSet (the only one running the agent image) pinnable on its own. */
  const PINNED_SHOP: Profile = {
    ...SHOP_PROFILE,
    workloads: SHOP_PROFILE.workloads.map((w) => (w.id === 'agent' ? { ...w, pinnedBy: 'AGENT_PINNED' } : w)),
  };

  it('is not asked about, though the image itself is not pinned: it costs no registry request', () => {
    const config = simConfig({ AGENT_PINNED: '1' }, PINNED_SHOP);
    expect(resolveRequests(config).map((r) => r.repo)).toEqual(['shop/web', 'shop/log']);
    const answer = E.right({ digest: DIGEST, rateLimitRemaining: O.none });
    expect(acceptResolutions(config, [answer, answer]).map((r) => [r.image, r._tag])).toEqual([
      ['web', 'Resolved'],
      ['log', 'Resolved'],
      ['agent', 'Pinned'],
    ]);
  });

  it('is asked about again once its workload is unpinned', () => {
    const config = simConfig({ AGENT_PINNED: '0' }, PINNED_SHOP);
    expect(resolveRequests(config).map((r) => r.repo)).toEqual(['shop/web', 'shop/log', 'shop/agent']);
  });
});
