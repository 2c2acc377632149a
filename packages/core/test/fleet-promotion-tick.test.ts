import * as E from 'fp-ts/lib/Either.js';
import { describe, expect, it } from 'vitest';
import { parseTickConfig } from '../src/config/parse-config.js';
import { runTick } from '../src/run-tick.js';
import {
  SIM_HALT_ENVIRONMENT,
  SIM_HALT_REPO,
  SIM_HALT_TAG,
  SimWorld,
  simConfig,
  simDigest,
  simHaltDocument,
  simPorts,
} from '../src/sim/index.js';
import { SIM_ENVIRONMENT } from '../src/sim/sim-config.js';
import { SIM_EPOCH_MS } from '../src/sim/sim-ports.js';
import { ANNOTATION } from './support/chart.js';
import { aPromotionEdge, HOUR } from './support/promotion-edge.js';

// FLEET_PROMOTION_REF on a simulated edge (docs/fleet-promotion.md): what a
// ring-1 tick asks, writes, says and exits with for each thing the registry
// can answer under the promotion's tag — none, a promotion that names the
// change for this ring or not, one that cannot be verified, one known, one
// withdrawn, one expired — and that a halt always wins over it.

const JM = 'tracebloc/jobs-manager';
const JM1 = simDigest(`${JM}#1`);
const JM2 = simDigest(`${JM}#2`);
const JM3 = simDigest(`${JM}#3`);
const JM_RECORD = 'tracebloc.io/last-refreshed-jobs-manager-digest';
const PROMOTION_KEYS = [ANNOTATION.fleetPromotionDigest, ANNOTATION.fleetPromotionDocument];
const waitingLine = (digest: string, ring: number) => `waiting for promotion of jobs-manager@${digest} to ring ${ring}`;

/** A ring-1 edge that recorded build 1 of everything, watching the promotion tag (none published yet). */
const aSteadyRingOneEdge = async (env: Record<string, string> = {}) => {
  const edge = aPromotionEdge(env);
  expect((await edge.tick()).exitCode).toBe(0);
  expect(edge.world.annotations[JM_RECORD]).toBe(JM1);
  return edge;
};

describe('FLEET_PROMOTION_REF unset, or on a canary: the clock’s rings', () => {
  it('a ring-1 edge without it waits ROLLOUT_RING × RING_DELAY and reads no promotion', async () => {
    const world = new SimWorld(simConfig({ ROLLOUT_RING: '1', RING_DELAY: '2h' }));
    await runTick(world.config, simPorts(world));
    world.publish(JM, JM2);
    world.calls.length = 0;
    const first = await runTick(world.config, simPorts(world));
    expect(first.result).toBe('soaking');
    expect(world.calls.filter((c) => c.detail.includes('fleet-control'))).toEqual([]);
  });

  it('ring 0 with it set reads nothing of it and acts as the canary it is', async () => {
    const edge = aPromotionEdge({ ROLLOUT_RING: '0' });
    await edge.tick();
    edge.world.publish(JM, JM2);
    const outcome = await edge.tick();
    expect(outcome.result).toBe('complete');
    expect(edge.world.annotations[JM_RECORD]).toBe(JM2);
    expect(edge.world.calls.filter((c) => c.detail.includes('fleet-control'))).toEqual([]);
    expect(outcome.promotion).toBeUndefined();
  });
});

describe('a ring-1 edge under FLEET_PROMOTION_REF', () => {
  it('a steady tick costs one HEAD more, in the same resolve batch, and a clock read; writes nothing; exit 0', async () => {
    const edge = await aSteadyRingOneEdge();
    const outcome = await edge.tick();
    expect(outcome.exitCode).toBe(0);
    expect(edge.ops()).toEqual([
      'observeJobsManager',
      'readSkipStreak',
      'resolveDigest',
      'resolveDigest',
      'resolveDigest',
      'resolveDigest',
      'readRecordedDigests',
      'readClock',
    ]);
    expect(edge.world.calls.filter((c) => c.op === 'resolveDigest').at(-1)?.detail).toBe(`${SIM_HALT_REPO}`);
    expect(edge.lines('FLEET_PROMOTION_NONE')).toEqual([
      'fleet promotion: none published under docker.io/tracebloc/fleet-control:stg-promotion; ring 1 waits for one',
    ]);
    expect(outcome.promotion).toEqual({
      state: 'none',
      reference: 'docker.io/tracebloc/fleet-control:stg-promotion',
      digest: null,
      why: null,
    });
  });

  it('with no promotion a changed digest waits, says for what, spends no signature request: exit 0, awaitingPromotion', async () => {
    const edge = await aSteadyRingOneEdge({ VERIFY_SIGNATURES: 'enforce' });
    edge.world.publish(JM, JM2);
    const outcome = await edge.tick();
    expect(outcome.exitCode).toBe(0);
    expect(outcome.result).toBe('awaitingPromotion');
    expect(outcome.reimages).toEqual([]);
    expect(edge.world.annotations[JM_RECORD]).toBe(JM1);
    expect(edge.ops().filter((op) => op === 'verifySignature' || op === 'setImages')).toEqual([]);
    expect(outcome.held).toEqual([{ image: 'jobs-manager', digest: JM2, reason: 'awaitingPromotion' }]);
    expect(edge.lines('DIGEST_CHANGED').join('\n')).toContain(waitingLine(JM2, 1));
  });

  it('a signed promotion naming the digest for ring 1 lets it through at once, RING_DELAY notwithstanding', async () => {
    const edge = await aSteadyRingOneEdge({ RING_DELAY: '24h' });
    edge.world.publish(JM, JM2);
    const promotion = edge.publishPromotion([{ image: 'jobs-manager', digest: JM2, ring: 1 }]);
    const outcome = await edge.tick();
    expect(outcome.result).toBe('complete');
    expect(outcome.exitCode).toBe(0);
    expect(edge.world.annotations[JM_RECORD]).toBe(JM2);
    expect(edge.ops()).toContain('readFleetPromotion');
    expect(edge.ops()).toContain('recordFleetPromotion');
    expect(edge.world.annotations[ANNOTATION.fleetPromotionDigest]).toBe(promotion);
    expect(outcome.promotion?.state).toBe('verified');
  });

  it('a promotion seen before costs only its HEAD: no document read, no signature check, no write', async () => {
    const edge = await aSteadyRingOneEdge();
    edge.publishPromotion([{ image: 'jobs-manager', digest: JM2, ring: 1 }]);
    await edge.tick();
    const outcome = await edge.tick();
    expect(outcome.exitCode).toBe(0);
    expect(
      edge.ops().filter((op) => ['readFleetPromotion', 'verifySignature', 'recordFleetPromotion'].includes(op)),
    ).toEqual([]);
    expect(outcome.promotion?.state).toBe('verified');
  });

  it('a promotion to ring 1 does not open ring 2; one to ring 2 opens ring 1', async () => {
    const ringTwo = await aSteadyRingOneEdge({ ROLLOUT_RING: '2' });
    ringTwo.world.publish(JM, JM2);
    ringTwo.publishPromotion([{ image: 'jobs-manager', digest: JM2, ring: 1 }]);
    expect((await ringTwo.tick()).result).toBe('awaitingPromotion');
    expect(ringTwo.lines('DIGEST_CHANGED').join('\n')).toContain(waitingLine(JM2, 2));

    const ringOne = await aSteadyRingOneEdge();
    ringOne.world.publish(JM, JM2);
    ringOne.publishPromotion([{ image: 'jobs-manager', digest: JM2, ring: 2 }]);
    expect((await ringOne.tick()).result).toBe('complete');
  });

  it('a promotion of another digest, or of another image, or expired, opens nothing for this one', async () => {
    const edge = await aSteadyRingOneEdge();
    edge.world.publish(JM, JM3);
    edge.publishPromotion([
      { image: 'jobs-manager', digest: JM2, ring: 1 },
      { image: 'pods-monitor', digest: JM3, ring: 1 },
    ]);
    expect((await edge.tick()).result).toBe('awaitingPromotion');

    const expired = await aSteadyRingOneEdge();
    expired.world.publish(JM, JM2);
    expired.publishPromotion([{ image: 'jobs-manager', digest: JM2, ring: 1 }], { expiresInMs: 1_000 });
    expired.world.clockMs += HOUR;
    expect((await expired.tick()).result).toBe('awaitingPromotion');
  });

  it('MIN_DIGEST_AGE still applies: a promoted digest soaks first', async () => {
    const edge = await aSteadyRingOneEdge({ MIN_DIGEST_AGE: '1h' });
    edge.world.publish(JM, JM2);
    edge.publishPromotion([{ image: 'jobs-manager', digest: JM2, ring: 1 }]);
    expect((await edge.tick()).result).toBe('soaking');
    edge.world.clockMs += 2 * HOUR;
    expect((await edge.tick()).result).toBe('complete');
    expect(edge.world.annotations[JM_RECORD]).toBe(JM2);
  });
});

describe('fail closed: a promotion that cannot be read or verified opens nothing', () => {
  it('unsigned: PROMOTION UNVERIFIED, exit 1, nothing re-imaged, nothing kept', async () => {
    const edge = await aSteadyRingOneEdge();
    edge.world.publish(JM, JM2);
    edge.publishPromotion([{ image: 'jobs-manager', digest: JM2, ring: 1 }], { signed: false });
    const outcome = await edge.tick();
    expect(outcome.exitCode).toBe(1);
    expect(outcome.result).toBe('promotionUnverified');
    expect(outcome.reimages).toEqual([]);
    expect(edge.lines('FLEET_PROMOTION_UNVERIFIED')[0]).toMatch(
      /^ERROR: PROMOTION UNVERIFIED: docker\.io\/tracebloc\/fleet-control:stg-promotion: its signature did not verify/,
    );
    expect(PROMOTION_KEYS.filter((k) => edge.world.annotations[k] !== undefined)).toEqual([]);
  });

  it('the tag failing (a transport error) is unverified even on a steady tick: exit 1', async () => {
    const edge = await aSteadyRingOneEdge();
    edge.world.injectRegistryFault(SIM_HALT_REPO, 'Transport');
    const outcome = await edge.tick();
    expect(outcome.exitCode).toBe(1);
    expect(outcome.result).toBe('promotionUnverified');
    expect(edge.lines('FLEET_PROMOTION_UNVERIFIED')[0]).toContain('the promotion tag could not be read');
  });

  it('a document that does not parse is unverified', async () => {
    const edge = await aSteadyRingOneEdge();
    edge.publishRawPromotion('{"version":1,"promotions":[{"image":"jobs-manager"}]}');
    const outcome = await edge.tick();
    expect(outcome.result).toBe('promotionUnverified');
    expect(edge.lines('FLEET_PROMOTION_UNVERIFIED')[0]).toContain('its document does not parse');
  });
});

describe('withdrawn, and beside a halt', () => {
  it('404 where a promotion was kept: its record removed, changes wait again', async () => {
    const edge = await aSteadyRingOneEdge();
    const kept = edge.publishPromotion([{ image: 'jobs-manager', digest: JM2, ring: 1 }]);
    await edge.tick();
    expect(edge.world.annotations[ANNOTATION.fleetPromotionDigest]).toBe(kept);
    edge.withdrawPromotion();
    edge.world.publish(JM, JM2);
    const outcome = await edge.tick();
    expect(outcome.result).toBe('awaitingPromotion');
    expect(edge.ops()).toContain('withdrawFleetPromotion');
    expect(PROMOTION_KEYS.filter((k) => edge.world.annotations[k] !== undefined)).toEqual([]);
  });

  it('a halt always wins: a digest both halted and promoted is held by the halt', async () => {
    const edge = await aSteadyRingOneEdge({ FLEET_HALT_REF: SIM_HALT_ENVIRONMENT.FLEET_HALT_REF });
    edge.world.publish(JM, JM2);
    edge.publishPromotion([{ image: 'jobs-manager', digest: JM2, ring: 1 }]);
    const now = SIM_EPOCH_MS + edge.world.clockMs;
    edge.world.publishHalt(simHaltDocument('bad build', now + HOUR, { [JM]: { digests: [JM2] } }), {
      signed: true,
      repo: SIM_HALT_REPO,
      tag: SIM_HALT_TAG,
    });
    const outcome = await edge.tick();
    expect(outcome.result).toBe('halted');
    expect(edge.world.annotations[JM_RECORD]).toBe(JM1);
  });
});

describe('configuration', () => {
  it('set without any trust: exit 2 naming FLEET_PROMOTION_REF and the trust, before any request', () => {
    const parsed = parseTickConfig({
      ...SIM_ENVIRONMENT,
      FLEET_PROMOTION_REF: 'docker.io/acme/fleet-control:stg-promotion',
    });
    expect(E.isLeft(parsed)).toBe(true);
    const problems = E.isLeft(parsed) ? parsed.left : [];
    const problem = problems.find((p) => p.variable === 'FLEET_PROMOTION_REF');
    expect(problem?.problem).toMatch(
      /a promotion opens a ring only once its signature verifies.*SIGNATURE_PUBLIC_KEYS/,
    );
  });

  it('a digest, or no tag, is refused with the promotion’s words', () => {
    const parsed = parseTickConfig({
      ...SIM_ENVIRONMENT,
      FLEET_PROMOTION_REF: 'docker.io/acme/fleet-control@sha256:00',
      SIGNATURE_PUBLIC_KEYS: '/k.pub',
    });
    const problems = E.isLeft(parsed) ? parsed.left : [];
    expect(problems.find((p) => p.variable === 'FLEET_PROMOTION_REF')?.problem).toContain(
      'the tag is what a promotion is published under',
    );
  });
});

describe('the record’s time (PUSHGATEWAY_URL set)', () => {
  it('is written beside each digest a tick rolled out, with a push, and never without one', async () => {
    const pushing = new SimWorld(simConfig({ PUSHGATEWAY_URL: 'http://127.0.0.1:9091' }));
    const silent = new SimWorld(simConfig());
    for (const world of [pushing, silent]) {
      await runTick(world.config, simPorts(world));
      world.publish(JM, JM2);
      await runTick(world.config, simPorts(world));
    }
    const at = (w: SimWorld) => w.annotations['tracebloc.io/last-refreshed-jobs-manager-at'];
    expect(at(pushing)).toMatch(new RegExp(`^${JM2} \\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}Z$`));
    expect(Date.parse(at(pushing)?.split(' ')[1] ?? '')).toBeLessThanOrEqual(SIM_EPOCH_MS + pushing.clockMs);
    expect(Object.keys(silent.annotations).filter((k) => k.endsWith('-at'))).toEqual([]);
  });
});

describe('the record’s time, without a push', () => {
  it('a time kept from an earlier digest is removed with the new record, never left beside it', async () => {
    const world = new SimWorld(simConfig());
    await runTick(world.config, simPorts(world));
    world.annotations['tracebloc.io/last-refreshed-jobs-manager-at'] = '2026-01-01T00:00:00Z';
    world.publish(JM, JM2);
    await runTick(world.config, simPorts(world));
    expect(world.annotations[JM_RECORD]).toBe(JM2);
    expect(world.annotations['tracebloc.io/last-refreshed-jobs-manager-at']).toBeUndefined();
  });
});

describe('a first observation under the gate', () => {
  it('where a record is a target (RECONCILE_LIVE=1): an unpromoted baseline is held, and nothing is re-pinned to it', async () => {
    const edge = aPromotionEdge({ RECONCILE_LIVE: '1' });
    // Build 1 was promoted to ring 1: its baseline is recorded.
    edge.publishPromotion([{ image: 'jobs-manager', digest: JM1, ring: 1 }]);
    await edge.tick();
    expect(edge.world.annotations[JM_RECORD]).toBe(JM1);
    // The record is lost (the gate re-created, a hand edit) while the tag moved to an unpromoted build.
    edge.world.setAnnotation(JM_RECORD, undefined);
    edge.world.publish(JM, JM2);
    const first = await edge.tick();
    expect(first.result).toBe('awaitingPromotion');
    expect(edge.world.annotations[JM_RECORD]).toBeUndefined();
    expect(edge.lines('FIRST_OBSERVATION').join('\n')).toContain(
      `held back waiting for promotion of jobs-manager@${JM2} to ring 1, not recorded`,
    );
    const second = await edge.tick();
    expect(second.reimages).toEqual([]);
    expect(edge.ops()).not.toContain('setImages');
  });

  it('where nothing is moved to a record (the defaults): the baseline is recorded as always, and moves nothing', async () => {
    const edge = await aSteadyRingOneEdge();
    edge.world.setAnnotation(JM_RECORD, undefined);
    edge.world.publish(JM, JM2);
    const outcome = await edge.tick();
    expect(outcome.result).toBe('complete');
    expect(outcome.reimages).toEqual([]);
    expect(edge.world.annotations[JM_RECORD]).toBe(JM2);
  });

  it('a first observation gets no record time even with a push: this edge does not run it on its say-so', async () => {
    const world = new SimWorld(simConfig({ PUSHGATEWAY_URL: 'http://127.0.0.1:9091' }));
    await runTick(world.config, simPorts(world));
    expect(Object.keys(world.annotations).filter((k) => k.endsWith('-at'))).toEqual([]);
  });
});

describe('a ring no promotion can name', () => {
  it('ROLLOUT_RING above 100 with FLEET_PROMOTION_REF set is refused, not left to wait forever', () => {
    const parsed = parseTickConfig({
      ...SIM_ENVIRONMENT,
      FLEET_PROMOTION_REF: 'docker.io/acme/fleet-control:stg-promotion',
      SIGNATURE_PUBLIC_KEYS: '/k.pub',
      ROLLOUT_RING: '101',
    });
    const problems = E.isLeft(parsed) ? parsed.left : [];
    expect(problems.find((p) => p.variable === 'ROLLOUT_RING')?.problem).toContain('at most 100');
    expect(E.isRight(parseTickConfig({ ...SIM_ENVIRONMENT, ROLLOUT_RING: '101' }))).toBe(true);
  });
});
