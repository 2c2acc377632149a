import { describe, expect, it } from 'vitest';
import type { Digest } from '../src/domain/digest.js';
import { promotionVerdictLines } from '../src/machine/fleet-promotion/messages.js';
import type { TickEvent } from '../src/machine/tick-event.js';
import type { TickOutcome } from '../src/machine/tick-outcome.js';
import { runTick } from '../src/run-tick.js';
import { SIM_HALT_REPO, SIM_PROMOTION_ENVIRONMENT, simConfig, simDigest } from '../src/sim/index.js';
import { ANNOTATION } from './support/chart.js';
import { aSteadyPromotionEdge } from './support/promotion-edge.js';

// The fleet promotion phase on a ring-1 edge (docs/fleet-promotion.md): the writes
// it hands the gate, the level, code and whole line of each verdict it says, and
// which steps it takes (or does not) for each thing the registry answers.

const JM = 'tracebloc/jobs-manager';
const JM2 = simDigest(`${JM}#2`) as Digest;
const REF = 'docker.io/tracebloc/fleet-control:stg-promotion';
const GATE = 'deployment/stg-jobs-manager';
const DIGEST_KEY = ANNOTATION.fleetPromotionDigest;
const DOCUMENT_KEY = ANNOTATION.fleetPromotionDocument;
const short = (digest: string) => `${digest.slice(0, 19)}…`;

/** The events of one code this tick, whole: level, code, message (and hints). */
const said = (outcome: TickOutcome, code: TickEvent['code']) => outcome.events.filter((e) => e.code === code);

const HINT =
  'a promotion is written by `image-refresh promote --out`, published with `oras push` and signed with `cosign sign` by a key (or identity) in SIGNATURE_PUBLIC_KEYS / SIGNATURE_IDENTITY; `image-refresh status` shows what this edge reads.';
const unverified = (why: string) => ({
  level: 'error',
  code: 'FLEET_PROMOTION_UNVERIFIED',
  message: `ERROR: PROMOTION UNVERIFIED: ${REF}: ${why}; no changed digest is acted on this tick (a promotion that cannot be verified opens no ring)`,
  hints: [HINT],
});

describe('a promotion verified this tick', () => {
  it('is said as read, then verified, at info level, and kept with one write of kind recordFleetPromotion', async () => {
    const edge = await aSteadyPromotionEdge();
    const digest = edge.publishPromotion([{ image: 'jobs-manager', digest: JM2, ring: 1 }]);
    const outcome = await edge.tick();
    expect(said(outcome, 'FLEET_PROMOTION_READ')).toEqual([
      {
        level: 'info',
        code: 'FLEET_PROMOTION_READ',
        message: `fleet promotion: ${REF} answers ${short(digest)}, not verified here before: reading and verifying it`,
      },
    ]);
    expect(said(outcome, 'FLEET_PROMOTION_VERIFIED')).toEqual([
      {
        level: 'info',
        code: 'FLEET_PROMOTION_VERIFIED',
        message: `fleet promotion: ${REF} answers ${short(digest)}, signature verified: 1 promotion(s)`,
      },
    ]);
    // The outcome's writes are those the port accepted: the digest and the document as published.
    expect(outcome.writes).toEqual([
      {
        kind: 'recordFleetPromotion',
        annotations: {
          [DIGEST_KEY]: digest,
          [DOCUMENT_KEY]: JSON.stringify(JSON.parse(edge.world.haltDocuments.get(digest) ?? '')),
        },
      },
    ]);
    expect(edge.world.annotations[DIGEST_KEY]).toBe(digest);
  });

  it('is read from the host and repository FLEET_PROMOTION_REF names, document and signature alike', async () => {
    const edge = await aSteadyPromotionEdge();
    const digest = edge.publishPromotion([{ image: 'jobs-manager', digest: JM2, ring: 1 }]);
    const asked: unknown[] = [];
    const { fleetPromotion, signatures } = edge.ports;
    const outcome = await runTick(edge.config, {
      ...edge.ports,
      fleetPromotion: {
        readDocument: (target) => {
          asked.push({ read: target });
          return fleetPromotion?.readDocument(target) ?? (() => Promise.reject(new Error('no port')));
        },
      },
      signatures: {
        verify: (target) => {
          asked.push({ verify: target });
          return signatures?.verify(target) ?? (() => Promise.reject(new Error('no port')));
        },
      },
    });
    expect(outcome.promotion?.state).toBe('verified');
    expect(asked).toEqual([
      { read: { host: 'docker.io', repo: SIM_HALT_REPO, digest } },
      { verify: { host: 'docker.io', repo: SIM_HALT_REPO, digest } },
    ]);
  });
});

describe('a promotion withdrawn (404 where one was kept)', () => {
  it('is said at info level, and its record removed with one write of kind withdrawFleetPromotion', async () => {
    const edge = await aSteadyPromotionEdge();
    const digest = edge.publishPromotion([{ image: 'jobs-manager', digest: JM2, ring: 1 }]);
    await edge.tick();
    edge.withdrawPromotion();
    const outcome = await edge.tick();
    expect(said(outcome, 'FLEET_PROMOTION_WITHDRAWN')).toEqual([
      {
        level: 'info',
        code: 'FLEET_PROMOTION_WITHDRAWN',
        message: `fleet promotion withdrawn: ${REF} answers 404; the promotion ${short(digest)} no longer opens ring 1, and its record on ${GATE} is removed`,
      },
    ]);
    expect(outcome.writes).toEqual([
      { kind: 'withdrawFleetPromotion', annotations: { [DIGEST_KEY]: null, [DOCUMENT_KEY]: null } },
    ]);
  });

  it('with only its document kept (no digest), the line names no promotion and only the document goes', async () => {
    const edge = await aSteadyPromotionEdge();
    edge.world.setAnnotation(DOCUMENT_KEY, '{"version":1,"promotions":[]}');
    const outcome = await edge.tick();
    expect(said(outcome, 'FLEET_PROMOTION_WITHDRAWN')).toEqual([
      {
        level: 'info',
        code: 'FLEET_PROMOTION_WITHDRAWN',
        message: `fleet promotion withdrawn: ${REF} answers 404, and its record on ${GATE} is removed`,
      },
    ]);
    expect(outcome.writes).toEqual([{ kind: 'withdrawFleetPromotion', annotations: { [DOCUMENT_KEY]: null } }]);
    expect(edge.world.annotations[DOCUMENT_KEY]).toBeUndefined();
  });
});

describe('no promotion published', () => {
  it('is said at info level, naming the ring that waits; nothing is written', async () => {
    const edge = await aSteadyPromotionEdge();
    const outcome = await edge.tick();
    expect(said(outcome, 'FLEET_PROMOTION_NONE')).toEqual([
      {
        level: 'info',
        code: 'FLEET_PROMOTION_NONE',
        message: `fleet promotion: none published under ${REF}; ring 1 waits for one`,
      },
    ]);
    expect(outcome.writes).toEqual([]);
  });
});

describe('recording a verified promotion fails', () => {
  it('is a warn-level line naming the gate and the error; the tick goes on', async () => {
    const edge = await aSteadyPromotionEdge();
    edge.publishPromotion([{ image: 'jobs-manager', digest: JM2, ring: 1 }]);
    edge.world.injectClusterFault('patchBookkeeping', 'Forbidden', 1, `${DIGEST_KEY}=`);
    const outcome = await edge.tick();
    expect(outcome.exitCode).toBe(0);
    expect(said(outcome, 'FLEET_PROMOTION_WRITE_FAILED')).toEqual([
      {
        level: 'warn',
        code: 'FLEET_PROMOTION_WRITE_FAILED',
        message: `WARN: could not record the verified fleet promotion on ${GATE} (Forbidden (HTTP 403): simulated Forbidden on patchBookkeeping); it counts this tick, and the next tick reads and verifies it again.`,
      },
    ]);
    expect(outcome.writes).toEqual([]);
  });
});

describe('fail closed: nothing of an unverified promotion is kept', () => {
  it('unsigned: the whole PROMOTION UNVERIFIED line with its hint, and no write after the signature check', async () => {
    const edge = await aSteadyPromotionEdge();
    const digest = edge.publishPromotion([{ image: 'jobs-manager', digest: JM2, ring: 1 }], { signed: false });
    const outcome = await edge.tick();
    expect(outcome.exitCode).toBe(1);
    expect(said(outcome, 'FLEET_PROMOTION_UNVERIFIED')).toEqual([
      unverified(
        `its signature did not verify: no signature of ${digest} in either format (.sig tag, sigstore bundle)`,
      ),
    ]);
    // From the signature check on: only its finding's Event, no patch of the gate.
    const calls = edge.calls();
    expect(calls.slice(calls.indexOf(`verifySignature ${SIM_HALT_REPO}@${digest}`))).toEqual([
      `verifySignature ${SIM_HALT_REPO}@${digest}`,
      'recordEvent Warning RefreshPromotionUnverified',
    ]);
    expect(outcome.writes).toEqual([]);
  });

  it('a document that does not parse: its signature is never checked, nothing is written', async () => {
    const edge = await aSteadyPromotionEdge();
    edge.publishRawPromotion('{"version":1,"promotions":[{"image":"jobs-manager"}]}');
    const outcome = await edge.tick();
    expect(outcome.result).toBe('promotionUnverified');
    expect(edge.ops()).toContain('readFleetPromotion');
    expect(edge.ops()).not.toContain('verifySignature');
    expect(outcome.writes).toEqual([]);
  });

  it('a signature port that fails as a whole: unverified, naming the signature step; exit 1, nothing moves', async () => {
    const edge = await aSteadyPromotionEdge();
    edge.world.publish(JM, JM2);
    edge.publishPromotion([{ image: 'jobs-manager', digest: JM2, ring: 1 }]);
    const outcome = await runTick(edge.config, {
      ...edge.ports,
      signatures: { verify: () => () => Promise.reject(new Error('boom')) },
    });
    expect(outcome.exitCode).toBe(1);
    expect(outcome.result).toBe('promotionUnverified');
    expect(outcome.reimages).toEqual([]);
    expect(said(outcome, 'FLEET_PROMOTION_UNVERIFIED')).toEqual([
      unverified('its signature could not be checked (Transport: unexpected failure: Error: boom)'),
    ]);
    expect(outcome.writes).toEqual([]);
  });
});

describe('the verdict’s words on a canary’s configuration', () => {
  it('name the variable itself, as no promotion is read there (ring 0, docs/fleet-promotion.md)', () => {
    const canary = simConfig({ ...SIM_PROMOTION_ENVIRONMENT, ROLLOUT_RING: '0' });
    expect(promotionVerdictLines(canary, { _tag: 'None' })).toEqual([
      {
        level: 'info',
        code: 'FLEET_PROMOTION_NONE',
        message: 'fleet promotion: none published under FLEET_PROMOTION_REF; ring 0 waits for one',
      },
    ]);
  });
});
