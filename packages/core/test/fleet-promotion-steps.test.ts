import { describe, expect, it } from 'vitest';
import type { Digest } from '../src/domain/digest.js';
import { promotionReportOf, withPromotionHolds } from '../src/domain/promotion-admission.js';
import { parseRecordedAt } from '../src/domain/recorded-at.js';
import { promotionVerdictLines } from '../src/machine/fleet-promotion/messages.js';
import { readFleetPromotion } from '../src/read-fleet-promotion.js';
import { runTick } from '../src/run-tick.js';
import { SIM_HALT_REPO, simDigest } from '../src/sim/index.js';
import { SIM_EPOCH_MS } from '../src/sim/sim-ports.js';
import { ANNOTATION } from './support/chart.js';
import { aPromotionEdge, aSteadyPromotionEdge, HOUR } from './support/promotion-edge.js';

// Each step of reading the fleet promotion on a simulated ring-1 edge
// (docs/fleet-promotion.md, "The gate on the edges"), as the tick says it:
// the artifact it reads and checks, every step that cannot be taken (fail
// closed, named), a write that fails, and `status`'s reading of it.

const JM = 'tracebloc/jobs-manager';
const JM2 = simDigest(`${JM}#2`) as Digest;
const REF = 'docker.io/tracebloc/fleet-control:stg-promotion';

const unverifiedLine = (edge: ReturnType<typeof aPromotionEdge>) => edge.lines('FLEET_PROMOTION_UNVERIFIED')[0] ?? '';

describe('reading a new promotion', () => {
  it('says it reads it, reads its artifact and checks the signature of that very digest, keeps it', async () => {
    const edge = await aSteadyPromotionEdge();
    const digest = edge.publishPromotion([{ image: 'jobs-manager', digest: JM2, ring: 1 }]);
    const outcome = await edge.tick();
    expect(edge.lines('FLEET_PROMOTION_READ')).toEqual([
      `fleet promotion: ${REF} answers ${digest.slice(0, 19)}…, not verified here before: reading and verifying it`,
    ]);
    expect(edge.lines('FLEET_PROMOTION_VERIFIED')).toEqual([
      `fleet promotion: ${REF} answers ${digest.slice(0, 19)}…, signature verified: 1 promotion(s)`,
    ]);
    const detail = (op: string) => edge.world.calls.filter((c) => c.op === op).map((c) => c.detail);
    expect(detail('readFleetPromotion')).toEqual([`${SIM_HALT_REPO}@${digest}`]);
    expect(detail('verifySignature')).toEqual([`${SIM_HALT_REPO}@${digest}`]);
    expect(outcome.promotion).toEqual({ state: 'verified', reference: REF, digest, why: null });
    expect(edge.world.annotations[ANNOTATION.fleetPromotionDocument]).toBe(
      JSON.stringify(JSON.parse(edge.world.haltDocuments.get(digest) ?? '')),
    );
  });

  it('seen before: no write at all, and no line that it reads it', async () => {
    const edge = await aSteadyPromotionEdge();
    edge.publishPromotion([{ image: 'jobs-manager', digest: JM2, ring: 1 }]);
    await edge.tick();
    await edge.tick();
    expect(edge.world.calls.filter((c) => c.op === 'patchBookkeeping')).toEqual([]);
    expect(edge.lines('FLEET_PROMOTION_READ')).toEqual([]);
  });

  it('a kept document that no longer parses is read again, and says why', async () => {
    const edge = await aSteadyPromotionEdge();
    const digest = edge.publishPromotion([{ image: 'jobs-manager', digest: JM2, ring: 1 }]);
    await edge.tick();
    edge.world.setAnnotation(ANNOTATION.fleetPromotionDocument, '{"version":2}');
    await edge.tick();
    expect(edge.lines('FLEET_PROMOTION_READ')).toEqual([
      `fleet promotion: ${REF} answers ${digest.slice(0, 19)}…; the kept document no longer parses (version 2 is not 1): reading and verifying it`,
    ]);
  });
});

describe('a step that cannot be taken fails closed, named', () => {
  it('the document read fails', async () => {
    const edge = await aSteadyPromotionEdge();
    edge.publishPromotion([{ image: 'jobs-manager', digest: JM2, ring: 1 }]);
    edge.world.injectHaltDocumentFault('Forbidden');
    const outcome = await edge.tick();
    expect(outcome.exitCode).toBe(1);
    expect(unverifiedLine(edge)).toMatch(
      new RegExp(`^ERROR: PROMOTION UNVERIFIED: ${REF}: its document could not be read \\(.*\\); no changed digest`),
    );
    expect(outcome.promotion?.state).toBe('unverified');
  });

  it('the signature check fails as a call', async () => {
    const edge = await aSteadyPromotionEdge();
    edge.publishPromotion([{ image: 'jobs-manager', digest: JM2, ring: 1 }]);
    edge.world.injectSignatureFault(SIM_HALT_REPO, 'Transport');
    await edge.tick();
    expect(unverifiedLine(edge)).toContain(': its signature could not be checked (');
  });

  it('no clock: a promotion’s expiry cannot be judged', async () => {
    const edge = await aSteadyPromotionEdge();
    const { clock: _none, ...ports } = edge.ports;
    const outcome = await runTick(edge.config, ports);
    expect(outcome.exitCode).toBe(1);
    expect(outcome.events.find((e) => e.code === 'FLEET_PROMOTION_UNVERIFIED')?.message).toContain(
      'there is no clock to judge its expiry by',
    );
  });

  it('no promotion port: unverified, nothing moves', async () => {
    const edge = await aSteadyPromotionEdge();
    edge.publishPromotion([{ image: 'jobs-manager', digest: JM2, ring: 1 }]);
    edge.world.publish(JM, JM2);
    const { fleetPromotion: _none, ...ports } = edge.ports;
    const outcome = await runTick(edge.config, ports);
    expect(outcome.result).toBe('promotionUnverified');
    expect(outcome.reimages).toEqual([]);
    expect(outcome.events.find((e) => e.code === 'FLEET_PROMOTION_UNVERIFIED')?.message).toContain(
      'its document could not be read (',
    );
  });
});

describe('a write that fails', () => {
  it('recording a verified promotion: a WARN, it counts this tick, the next reads it again', async () => {
    const edge = await aSteadyPromotionEdge();
    edge.world.publish(JM, JM2);
    edge.publishPromotion([{ image: 'jobs-manager', digest: JM2, ring: 1 }]);
    edge.world.injectClusterFault('patchBookkeeping', 'Forbidden', 1, `${ANNOTATION.fleetPromotionDigest}=`);
    const outcome = await edge.tick();
    expect(outcome.result).toBe('complete');
    expect(edge.lines('FLEET_PROMOTION_WRITE_FAILED')[0]).toMatch(
      /^WARN: could not record the verified fleet promotion on .*; it counts this tick, and the next tick reads and verifies it again\.$/,
    );
  });

  it('removing a withdrawn one’s record: a WARN, it opens nothing', async () => {
    const edge = await aSteadyPromotionEdge();
    edge.publishPromotion([{ image: 'jobs-manager', digest: JM2, ring: 1 }]);
    await edge.tick();
    edge.withdrawPromotion();
    edge.world.injectClusterFault('patchBookkeeping', 'Forbidden', 1, `${ANNOTATION.fleetPromotionDigest}-`);
    const outcome = await edge.tick();
    expect(outcome.promotion?.state).toBe('withdrawn');
    expect(edge.lines('FLEET_PROMOTION_WITHDRAWN')[0]).toMatch(
      new RegExp(
        `^fleet promotion withdrawn: ${REF} answers 404; the promotion sha256:[0-9a-f]{12}… no longer opens ring 1`,
      ),
    );
    expect(edge.lines('FLEET_PROMOTION_WRITE_FAILED')[0]).toMatch(
      /^WARN: could not remove the record of the withdrawn fleet promotion on .*; it opens nothing, and the next tick tries again\.$/,
    );
  });
});

describe('readFleetPromotion, for status', () => {
  it('judges as a tick of this ring would, writes nothing; nothing on a canary', async () => {
    const edge = await aSteadyPromotionEdge();
    edge.world.calls.length = 0;
    const now = SIM_EPOCH_MS + edge.world.clockMs;
    expect(await readFleetPromotion(edge.config, edge.ports, {}, now)).toEqual({
      state: 'none',
      reference: REF,
      digest: null,
      why: null,
      recordedDigest: null,
      promotions: null,
    });
    const digest = edge.publishPromotion([{ image: 'jobs-manager', digest: JM2, ring: 2 }]);
    const view = await readFleetPromotion(edge.config, edge.ports, {}, now);
    expect(view).toMatchObject({ state: 'verified', digest, recordedDigest: null });
    expect(view?.promotions?.map((p) => [p.image, p.digest, p.ring])).toEqual([['jobs-manager', JM2, 2]]);
    const { signatures: _s, ...unsigned } = edge.ports;
    expect(await readFleetPromotion(edge.config, unsigned, {}, now)).toMatchObject({
      state: 'unverified',
      why: 'its signature could not be checked (Transport: no signature port to check it with)',
      promotions: null,
    });
    const { fleetPromotion: _p, ...unread } = edge.ports;
    expect((await readFleetPromotion(edge.config, unread, {}, now))?.why).toBe(
      'its document could not be read (Transport: no fleet promotion port to read it with)',
    );
    const canary = aPromotionEdge({ ROLLOUT_RING: '0' });
    expect(await readFleetPromotion(canary.config, canary.ports, {}, now)).toBeUndefined();
    expect(edge.world.calls.filter((c) => c.op === 'patchBookkeeping')).toEqual([]);
  });
});

describe('readFleetPromotion asks no more than it needs', () => {
  it('with nothing published, only the tag; of a promotion this edge recorded, no document and no signature again', async () => {
    const edge = await aSteadyPromotionEdge();
    const now = () => SIM_EPOCH_MS + edge.world.clockMs;
    const asked = () => edge.world.calls.map((c) => c.op).filter((op) => op !== 'resolveDigest');
    edge.world.calls.length = 0;
    expect((await readFleetPromotion(edge.config, edge.ports, edge.world.annotations, now()))?.state).toBe('none');
    expect(asked()).toEqual([]);
    edge.publishPromotion([{ image: 'jobs-manager', digest: JM2, ring: 1 }]);
    expect((await edge.tick()).exitCode).toBe(0);
    edge.world.calls.length = 0;
    expect((await readFleetPromotion(edge.config, edge.ports, edge.world.annotations, now()))?.state).toBe('verified');
    expect(asked()).toEqual([]);
  });
});

describe('the record time’s spelling', () => {
  it('reads back `<digest> <RFC 3339>` only', () => {
    expect(parseRecordedAt(`${JM2} 2026-01-01T00:00:00Z`)).toEqual({
      digest: JM2,
      recordedAtMs: Date.UTC(2026, 0, 1),
    });
    for (const bad of ['2026-01-01T00:00:00Z', `${JM2}`, `not-a-digest 2026-01-01T00:00:00Z`, `${JM2} yesterday`])
      expect(parseRecordedAt(bad)).toBeUndefined();
    expect(HOUR).toBe(3_600_000);
  });
});

describe('a reading stopped before its verdict', () => {
  it('is unverified in the report and the lines, and holds every answer; no clock holds too', async () => {
    const edge = aPromotionEdge();
    const fetching = { _tag: 'Fetching', digest: JM2 } as const;
    expect(promotionReportOf(edge.config, fetching)).toEqual({
      state: 'unverified',
      reference: REF,
      digest: JM2,
      why: 'the promotion was not read to the end',
    });
    expect(promotionVerdictLines(edge.config, fetching).map((e) => e.message)).toEqual([
      `ERROR: PROMOTION UNVERIFIED: ${REF}: the promotion was not read to the end; no changed digest is acted on this tick (a promotion that cannot be verified opens no ring)`,
    ]);
    expect(promotionVerdictLines(edge.config, { _tag: 'Off' })).toEqual([]);
    expect(promotionReportOf(edge.config, { _tag: 'Off' })).toBeUndefined();
    const verified = {
      _tag: 'Verified',
      digest: JM2,
      text: '',
      document: {
        promotions: [{ image: 'jobs-manager', digest: JM2, ring: 1, expires: '', expiresAtMs: Infinity, evidence: '' }],
      },
      known: true,
    } as const;
    const change = [{ image: 'jobs-manager', to: JM2 }];
    expect(withPromotionHolds(edge.config, {}, change, verified, SIM_EPOCH_MS)).toEqual({});
    expect(withPromotionHolds(edge.config, {}, change, verified, undefined)).toEqual({
      'jobs-manager': { _tag: 'AwaitingPromotion', image: 'jobs-manager', digest: JM2, ring: 1, unverified: true },
    });
    expect(withPromotionHolds(edge.config, {}, change, fetching, SIM_EPOCH_MS)['jobs-manager']).toMatchObject({
      unverified: true,
    });
  });
});
