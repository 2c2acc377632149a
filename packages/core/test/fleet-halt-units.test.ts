import * as E from 'fp-ts/lib/Either.js';
import * as O from 'fp-ts/lib/Option.js';
import { describe, expect, it } from 'vitest';
import { recordedDigestsOf } from '../src/domain/bookkeeping.js';
import type { Digest } from '../src/domain/digest.js';
import { type FleetHalt, parseFleetHalt, renderFleetHalt } from '../src/domain/fleet-halt.js';
import {
  admitByFleetHalt,
  admitUnderHalt,
  answersAfterHalt,
  haltScopeOf,
  holdEveryAnswer,
  isHaltedFor,
  withoutHaltPins,
} from '../src/domain/fleet-halt-admission.js';
import {
  HALT_OFF,
  type HaltReading,
  haltDocumentRead,
  haltInForce,
  haltReportOf,
  haltSignatureJudged,
  haltStepFailed,
  haltTargetOf,
  haltWriteOf,
  hasHaltSignatureToCheck,
  hasHaltToRecord,
  isHaltLifted,
  isHaltUnverified,
  judgeHaltAnswer,
  needsHaltDocument,
} from '../src/domain/fleet-halt-reading.js';
import type { ImageResolution } from '../src/domain/plan.js';
import { transport } from '../src/domain/port-error.js';
import { failedHaltAnswer, haltAnswerOf, hasNothingToJudge, resolveRequests } from '../src/domain/resolutions.js';
import { judgeSignature, signatureSubjectsOf } from '../src/domain/signature-admission.js';
import { isFleetHaltOff, isSignatureCheckOff } from '../src/domain/switches.js';
import * as say from '../src/machine/fleet-halt/messages.js';
import { readFleetHalt } from '../src/read-fleet-halt.js';
import { SIM_HALT_ENVIRONMENT, SIM_HALT_REPO, SIM_HALT_TAG, SimWorld, simConfig, simPorts } from '../src/sim/index.js';
import { ANNOTATION } from './support/chart.js';

/** The chart's topology: what the halt names repositories of. */
const TOPOLOGY = simConfig().topology;

// The fleet halt's decisions one by one (docs/behaviour.md §3.4b), each with
// the case that tells it apart: what the HEAD's answer means against the
// bookkeeping, what a document read and a signature answer make of a
// reading, what the tick writes and reports, and what a halt in force does
// to each answer — the cases a whole tick rarely reaches.

const NOW = Date.parse('2026-12-02T12:00:00Z');
const JM = 'tracebloc/jobs-manager';
const d = (c: string) => `sha256:${c.repeat(64)}` as Digest;
const [G, B, C, F] = [d('1'), d('2'), d('3'), d('4')];
const watching = simConfig(SIM_HALT_ENVIRONMENT);
const blind = simConfig();

const doc = (repositories: Record<string, unknown>, expires = '2026-12-03T12:00:00Z') =>
  JSON.stringify({ version: 1, reason: 'stop', expires, repositories });
const haltOf = (repositories: Record<string, unknown>): FleetHalt => {
  const halt = parseFleetHalt(doc(repositories), NOW);
  if (E.isLeft(halt)) throw new Error(halt.left);
  return halt.right;
};
const resolved = (image: ImageResolution['image'], digest: string): ImageResolution => ({
  _tag: 'Resolved',
  image,
  digest: digest as never,
  rateLimitRemaining: O.none,
});
const answer = (digest: string) => E.right({ digest, rateLimitRemaining: O.none });
const kept = (digest: string, document: string) => ({
  [ANNOTATION.fleetHaltDigest]: digest,
  [ANNOTATION.fleetHaltDocument]: document,
});

describe('judgeHaltAnswer: the HEAD against the bookkeeping', () => {
  it('no answer from the port is unverified, never "no halt"', () => {
    expect(judgeHaltAnswer(ANNOTATION, undefined, {}, NOW)).toEqual({
      _tag: 'Unverified',
      why: 'the registry port gave no answer for the halt tag',
    });
  });

  it('404 is no halt; with a record, or only a kept document, it is lifted', () => {
    const gone = E.left({ _tag: 'NotFound' as const, message: 'manifest unknown', status: 404 });
    expect(judgeHaltAnswer(ANNOTATION, gone, {}, NOW)).toEqual({ _tag: 'None' });
    expect(judgeHaltAnswer(ANNOTATION, gone, { [ANNOTATION.fleetHaltDigest]: F }, NOW)).toEqual({
      _tag: 'Withdrawn',
      digest: F,
    });
    expect(judgeHaltAnswer(ANNOTATION, gone, { [ANNOTATION.fleetHaltDocument]: '{}' }, NOW)).toEqual({
      _tag: 'Withdrawn',
      digest: undefined,
    });
  });

  it('a digest that is not an OCI digest is unverified, quoting at most 100 characters of it', () => {
    const reading = judgeHaltAnswer(ANNOTATION, answer(`x${'y'.repeat(200)}`), {}, NOW);
    expect(reading).toEqual({
      _tag: 'Unverified',
      why: `the registry answered "x${'y'.repeat(99)}" for the halt tag, which is not an OCI digest`,
    });
  });

  it('the kept digest with a kept document that parses: verified, known; another digest, or none kept: read it', () => {
    const text = doc({ [JM]: { digests: [B] } });
    expect(judgeHaltAnswer(ANNOTATION, answer(F), kept(F, text), NOW)).toMatchObject({
      _tag: 'Verified',
      digest: F,
      known: true,
    });
    expect(judgeHaltAnswer(ANNOTATION, answer(C), kept(F, text), NOW)).toEqual({ _tag: 'Fetching', digest: C });
    expect(judgeHaltAnswer(ANNOTATION, answer(F), { [ANNOTATION.fleetHaltDigest]: F }, NOW)).toEqual({
      _tag: 'Fetching',
      digest: F,
    });
    expect(judgeHaltAnswer(ANNOTATION, answer(F), kept(F, '{garbage'), NOW)).toMatchObject({
      _tag: 'Fetching',
      digest: F,
      note: expect.stringMatching(/^the kept document no longer parses \(not JSON/),
    });
  });
});

describe('a document read, a signature answered', () => {
  const fetching: HaltReading = { _tag: 'Fetching', digest: F };
  const text = doc({ [JM]: { digests: [B] } });

  it('only a reading that is fetching takes a document; only one that was read takes a signature', () => {
    expect(haltDocumentRead(HALT_OFF, E.right({ _tag: 'Document', text }), NOW)).toBe(HALT_OFF);
    expect(haltSignatureJudged(fetching, E.right({ _tag: 'Verified', by: 'k', format: 'cosign-sig-tag' }))).toBe(
      fetching,
    );
  });

  it('without a clock the document cannot be judged', () => {
    expect(haltDocumentRead(fetching, E.right({ _tag: 'Document', text }), undefined)).toEqual({
      _tag: 'Unverified',
      why: 'there is no clock to judge its expiry by',
    });
  });

  it('a document is kept on one line; its signature verified makes the halt, not yet known', () => {
    const read = haltDocumentRead(
      fetching,
      E.right({ _tag: 'Document', text: renderFleetHalt(JSON.parse(text)) }),
      NOW,
    );
    expect(read).toMatchObject({ _tag: 'Read', digest: F, text });
    expect(haltSignatureJudged(read, undefined)).toEqual({
      _tag: 'Unverified',
      why: 'the signature port gave no answer for the halt',
    });
    expect(haltSignatureJudged(read, E.right({ _tag: 'Verified', by: 'k', format: 'cosign-sig-tag' }))).toMatchObject({
      _tag: 'Verified',
      digest: F,
      known: false,
      text,
    });
  });

  it('a step that could not be taken names the step', () => {
    const e = transport('socket hang up');
    expect(haltStepFailed('clock', e)).toEqual({
      _tag: 'Unverified',
      why: 'there is no clock to judge its expiry by (Transport: socket hang up)',
    });
    expect(haltStepFailed('document', e)).toEqual({
      _tag: 'Unverified',
      why: 'its document could not be read (Transport: socket hang up)',
    });
    expect(haltStepFailed('signature', e)).toEqual({
      _tag: 'Unverified',
      why: 'its signature could not be checked (Transport: socket hang up)',
    });
  });

  it('the guards ask one thing each of the reading', () => {
    const halt = haltOf({ [JM]: { digests: [B] } });
    const read: HaltReading = { _tag: 'Read', digest: F, text, document: halt };
    const verifiedNow: HaltReading = { _tag: 'Verified', digest: F, text, document: halt, known: false };
    const known: HaltReading = { _tag: 'Verified', digest: F, text, document: halt, known: true };
    const lifted: HaltReading = { _tag: 'Withdrawn', digest: F };
    const all = [HALT_OFF, { _tag: 'None' } as const, lifted, fetching, read, verifiedNow, known];
    expect(all.map(needsHaltDocument)).toEqual([false, false, false, true, false, false, false]);
    expect(all.map(hasHaltSignatureToCheck)).toEqual([false, false, false, false, true, false, false]);
    expect(all.map(hasHaltToRecord)).toEqual([false, false, false, false, false, true, false]);
    expect(all.map(isHaltLifted)).toEqual([false, false, true, false, false, false, false]);
    expect([...all, { _tag: 'Unverified', why: 'x' } as const].map(isHaltUnverified)).toEqual([
      false,
      false,
      false,
      true,
      true,
      false,
      false,
      true,
    ]);
  });
});

describe('what a reading writes, reports and targets', () => {
  const halt = haltOf({ [JM]: { digests: [B] } });
  const verified = (known: boolean): HaltReading => ({ _tag: 'Verified', digest: F, text: 'T', document: halt, known });

  it('a halt verified now is kept; a known one writes nothing; a lifted one removes only what is there', () => {
    expect(haltWriteOf(ANNOTATION, verified(false), {})).toEqual({
      [ANNOTATION.fleetHaltDigest]: F,
      [ANNOTATION.fleetHaltDocument]: 'T',
    });
    expect(haltWriteOf(ANNOTATION, verified(true), kept(F, 'T'))).toEqual({});
    expect(haltWriteOf(ANNOTATION, { _tag: 'None' }, kept(F, 'T'))).toEqual({});
    expect(haltWriteOf(ANNOTATION, { _tag: 'Withdrawn', digest: F }, kept(F, 'T'))).toEqual({
      [ANNOTATION.fleetHaltDigest]: null,
      [ANNOTATION.fleetHaltDocument]: null,
    });
    expect(
      haltWriteOf(ANNOTATION, { _tag: 'Withdrawn', digest: undefined }, { [ANNOTATION.fleetHaltDocument]: 'T' }),
    ).toEqual({
      [ANNOTATION.fleetHaltDocument]: null,
    });
  });

  it('in force only while verified and unexpired at a clock read', () => {
    expect(haltInForce(verified(true), NOW)).toBe(halt);
    expect(haltInForce(verified(true), undefined)).toBeUndefined();
    expect(haltInForce(verified(true), halt.expiresAtMs)).toBeUndefined();
    expect(haltInForce({ _tag: 'Read', digest: F, text: 'T', document: halt }, NOW)).toBeUndefined();
  });

  it('the report: nothing while unset or off, each state otherwise', () => {
    const base = {
      reference: SIM_HALT_ENVIRONMENT.FLEET_HALT_REF,
      digest: null,
      reason: null,
      expires: null,
      why: null,
    };
    expect(haltReportOf(blind, { _tag: 'None' }, NOW)).toBeUndefined();
    expect(haltReportOf(watching, HALT_OFF, NOW)).toBeUndefined();
    expect(haltReportOf(watching, { _tag: 'None' }, NOW)).toEqual({ ...base, state: 'none' });
    expect(haltReportOf(watching, { _tag: 'Withdrawn', digest: undefined }, NOW)).toEqual({ ...base, state: 'lifted' });
    expect(haltReportOf(watching, { _tag: 'Withdrawn', digest: F }, NOW)).toEqual({
      ...base,
      state: 'lifted',
      digest: F,
    });
    expect(haltReportOf(watching, verified(true), NOW)).toEqual({
      ...base,
      state: 'inForce',
      digest: F,
      reason: 'stop',
      expires: '2026-12-03T12:00:00Z',
    });
    expect(haltReportOf(watching, verified(true), halt.expiresAtMs)?.state).toBe('expired');
    expect(haltReportOf(watching, { _tag: 'Unverified', why: 'w' }, NOW)).toEqual({
      ...base,
      state: 'unverified',
      why: 'w',
    });
    expect(haltReportOf(watching, { _tag: 'Fetching', digest: F }, NOW)).toEqual({
      ...base,
      state: 'unverified',
      digest: F,
      why: 'the halt was not read to the end',
    });
  });

  it('the target: FLEET_HALT_REF’s repository and the digest being read, nothing otherwise', () => {
    expect(haltTargetOf(watching, { _tag: 'Fetching', digest: F })).toEqual({
      host: 'docker.io',
      repo: SIM_HALT_REPO,
      digest: F,
    });
    expect(haltTargetOf(watching, { _tag: 'Read', digest: C, text: 'T', document: halt })).toEqual({
      host: 'docker.io',
      repo: SIM_HALT_REPO,
      digest: C,
    });
    expect(haltTargetOf(watching, { _tag: 'Withdrawn', digest: F })).toEqual({
      host: 'docker.io',
      repo: SIM_HALT_REPO,
      digest: '',
    });
    expect(haltTargetOf(blind, HALT_OFF)).toEqual({ host: '', repo: '', digest: '' });
  });
});

describe('a halt in force, answer by answer', () => {
  const recorded = (jm: string | undefined) =>
    recordedDigestsOf(TOPOLOGY, jm === undefined ? {} : { 'tracebloc.io/last-refreshed-jobs-manager-digest': jm });

  it('an image already held by an earlier check, or not resolved, is neither held again nor sent back', () => {
    const halt = haltOf({ [JM]: { digests: [B], pin: G } });
    const earlier = {
      'jobs-manager': { _tag: 'Quarantined' as const, image: 'jobs-manager' as const, digest: C as never },
    };
    const decision = admitByFleetHalt(TOPOLOGY, [resolved('jobs-manager', C)], recorded(B), earlier, halt);
    expect([decision.holds, decision.pins, decision.stranded, decision.halted]).toEqual([earlier, {}, [], []]);
    const unresolved: ImageResolution = { _tag: 'Unresolved', image: 'jobs-manager', error: transport('503') };
    expect(admitByFleetHalt(TOPOLOGY, [unresolved], recorded(B), {}, halt).pins).toEqual({});
  });

  it('`*` with a pin does not send back an image with no record (a fresh install is never re-imaged, I8)', () => {
    const halt = haltOf({ [JM]: { digests: '*', pin: G } });
    const decision = admitByFleetHalt(TOPOLOGY, [resolved('jobs-manager', C)], recorded(undefined), {}, halt);
    expect(decision.pins).toEqual({});
    expect(decision.holds['jobs-manager']).toEqual({
      _tag: 'Halted',
      image: 'jobs-manager',
      digest: C,
      reason: 'stop',
    });
  });

  it('an image on a halted build whose tag answers another halted build goes to the pin, and is not held', () => {
    const halt = haltOf({ [JM]: { digests: [B, C], pin: G } });
    const decision = admitByFleetHalt(TOPOLOGY, [resolved('jobs-manager', C)], recorded(B), {}, halt);
    expect(decision.pins).toEqual({ 'jobs-manager': { image: 'jobs-manager', from: B, to: G } });
    expect(decision.holds).toEqual({});
    expect(decision.halted).toEqual([]);
  });

  it('without a pin: stranded on its build while the tag answers it or another halted one; free to move to a fixed build', () => {
    const halt = haltOf({ [JM]: { digests: [B, C] } });
    expect(admitByFleetHalt(TOPOLOGY, [resolved('jobs-manager', B)], recorded(B), {}, halt).stranded).toEqual([
      { image: 'jobs-manager', digest: B },
    ]);
    expect(admitByFleetHalt(TOPOLOGY, [resolved('jobs-manager', C)], recorded(B), {}, halt).stranded).toEqual([
      { image: 'jobs-manager', digest: B },
    ]);
    const fixed = admitByFleetHalt(TOPOLOGY, [resolved('jobs-manager', F)], recorded(B), {}, halt);
    expect([fixed.stranded, fixed.holds, fixed.pins]).toEqual([[], {}, {}]);
  });

  it('admitUnderHalt: a halt that is not in force decides nothing', () => {
    const holds = {
      'jobs-manager': { _tag: 'HaltUnverified' as const, image: 'jobs-manager' as const, digest: C as never },
    };
    expect(admitUnderHalt(TOPOLOGY, [resolved('jobs-manager', B)], recorded(G), holds, HALT_OFF, NOW)).toEqual({
      holds,
      pins: {},
      halted: [],
      stranded: [],
      reason: '',
    });
  });

  it('unverified: every changed or first-observed answer held; an unchanged one is not an answer to hold', () => {
    const holds = holdEveryAnswer(
      [resolved('jobs-manager', B), resolved('pods-monitor', C), resolved('resource-monitor', F)],
      recordedDigestsOf(TOPOLOGY, {
        'tracebloc.io/last-refreshed-jobs-manager-digest': G,
        'tracebloc.io/last-refreshed-resource-monitor-digest': F,
      }),
      {},
    );
    expect(Object.keys(holds)).toEqual(['jobs-manager', 'pods-monitor']);
  });

  it('the pin replaces the tag’s answer of its image only; the soak does not judge it', () => {
    const pins = { 'jobs-manager': { image: 'jobs-manager' as const, from: B as never, to: G as never } };
    expect(
      answersAfterHalt([resolved('jobs-manager', C), resolved('pods-monitor', C)], pins).map((r) =>
        r._tag === 'Resolved' ? r.digest : r._tag,
      ),
    ).toEqual([G, C]);
    const unresolved: ImageResolution = { _tag: 'Unresolved', image: 'jobs-manager', error: transport('503') };
    expect(answersAfterHalt([unresolved], pins)).toEqual([unresolved]);
    const changes = [
      { image: 'jobs-manager' as const, from: B, to: G as never },
      { image: 'pods-monitor' as const, from: B, to: C as never },
    ];
    expect(withoutHaltPins(changes, pins).map((c) => c.image)).toEqual(['pods-monitor']);
  });

  it('the plan’s view: the halt in force, and whether nothing may move', () => {
    const halt = haltOf({ [JM]: { digests: [B] } });
    expect(haltScopeOf({ _tag: 'Unverified', why: 'w' }, NOW)).toEqual({ inForce: undefined, stopsEveryReimage: true });
    expect(haltScopeOf({ _tag: 'Verified', digest: F, text: 'T', document: halt, known: true }, NOW)).toEqual({
      inForce: halt,
      stopsEveryReimage: false,
    });
    expect(isHaltedFor(TOPOLOGY, undefined, 'jobs-manager', B)).toBe(false);
    expect(isHaltedFor(TOPOLOGY, halt, 'jobs-manager', B)).toBe(true);
    expect(isHaltedFor(TOPOLOGY, halt, 'pods-monitor', B)).toBe(false);
  });
});

describe('the resolve batch, the switches', () => {
  const images = [answer(G), answer(C), answer(F)];

  it('the halt tag rides last in the batch and its answer is the one after the images’; unset, neither', () => {
    expect(resolveRequests(watching).at(-1)).toEqual({ host: 'docker.io', repo: SIM_HALT_REPO, tag: SIM_HALT_TAG });
    expect(resolveRequests(blind).map((r) => r.repo)).not.toContain(SIM_HALT_REPO);
    expect(haltAnswerOf(watching, [...images, answer(B)])).toEqual(answer(B));
    expect(haltAnswerOf(blind, [...images, answer(B)])).toBeUndefined();
    expect(haltAnswerOf(watching, images)).toBeUndefined();
    expect(failedHaltAnswer(blind, transport('x'))).toBeUndefined();
    expect(failedHaltAnswer(watching, transport('x'))).toEqual(E.left(transport('x')));
  });

  it('nothing resolved ends the tick only without a halt to judge', () => {
    expect(hasNothingToJudge(blind, [])).toBe(true);
    expect(hasNothingToJudge(watching, [])).toBe(false);
    expect(hasNothingToJudge(blind, [resolved('jobs-manager', G)])).toBe(false);
  });

  it('the signature check is off only with VERIFY_SIGNATURES=off and no halt pin', () => {
    const pins = { 'jobs-manager': { image: 'jobs-manager' as const, from: B as never, to: G as never } };
    expect(isSignatureCheckOff(blind)).toBe(true);
    expect(isSignatureCheckOff(watching, pins)).toBe(false);
    expect(isSignatureCheckOff(simConfig({ VERIFY_SIGNATURES: 'warn', SIGNATURE_PUBLIC_KEYS: '/k' }))).toBe(false);
    expect([isFleetHaltOff(blind), isFleetHaltOff(watching)]).toEqual([true, false]);
  });
});

describe('the signature check’s subjects with a halt’s pins', () => {
  const pins = { 'jobs-manager': { image: 'jobs-manager' as const, from: B, to: G } };
  const answers = [resolved('jobs-manager', G), resolved('pods-monitor', C), resolved('resource-monitor', F)];
  const records = recordedDigestsOf(TOPOLOGY, {
    'tracebloc.io/last-refreshed-jobs-manager-digest': B,
    'tracebloc.io/last-refreshed-pods-monitor-digest': G,
  });

  it('off: only the pin, marked; on: every changed digest and first observation, the pin marked', () => {
    expect(signatureSubjectsOf(TOPOLOGY, 'off', answers, records, {}, pins)).toEqual([
      { image: 'jobs-manager', host: 'docker.io', repo: JM, digest: G, gated: true, pin: true },
    ]);
    expect(signatureSubjectsOf(TOPOLOGY, 'off', answers, records, {}, {})).toEqual([]);
    expect(signatureSubjectsOf(TOPOLOGY, 'warn', answers, records, {}, pins)).toEqual([
      { image: 'jobs-manager', host: 'docker.io', repo: JM, digest: G, gated: true, pin: true },
      { image: 'pods-monitor', host: 'docker.io', repo: 'tracebloc/pods-monitor', digest: C, gated: true },
      { image: 'resource-monitor', host: 'docker.io', repo: 'tracebloc/resource-monitor', digest: F, gated: false },
    ]);
  });

  it('a first observation of the pin’s own digest is no pin (only a drift to it is)', () => {
    expect(
      signatureSubjectsOf(TOPOLOGY, 'warn', [resolved('jobs-manager', G)], recordedDigestsOf(TOPOLOGY, {}), {}, pins),
    ).toEqual([{ image: 'jobs-manager', host: 'docker.io', repo: JM, digest: G, gated: false }]);
  });

  it('a pin is judged as under enforce; any other changed digest under the mode', () => {
    const notVerified = { _tag: 'NotVerified' as const, why: 'unsigned' };
    expect(judgeSignature('warn', { gated: true, pin: true, result: notVerified })).toEqual({
      _tag: 'Rejected',
      why: 'unsigned',
    });
    expect(judgeSignature('warn', { gated: true, result: notVerified })).toEqual({
      _tag: 'Unverified',
      why: 'unsigned',
    });
  });
});

describe('the verdict’s lines', () => {
  it('off says nothing; a reading stopped half-way is unverified; a config without the reference names the variable', () => {
    expect(say.haltVerdictLines(watching, HALT_OFF, NOW)).toEqual([]);
    expect(say.haltVerdictLines(watching, { _tag: 'Read', digest: F, text: 'T', document: haltOf({}) }, NOW)).toEqual([
      say.haltUnverifiedLine(watching, 'the halt was not read to the end'),
    ]);
    expect(say.haltNone(blind).message).toBe('fleet halt: none published under FLEET_HALT_REF');
  });
});

describe('readFleetHalt: the halt as a tick would judge it, for status (nothing written)', () => {
  const world = () => new SimWorld(watching);
  const publish = (w: SimWorld, signed: boolean) =>
    w.publishHalt(doc({ [JM]: { digests: [B], pin: G } }, '2026-01-02T00:00:00Z'), {
      signed,
      repo: SIM_HALT_REPO,
      tag: SIM_HALT_TAG,
    });
  const at = Date.UTC(2026, 0, 1);

  it('unset: undefined, and no request', async () => {
    const w = new SimWorld(blind);
    expect(await readFleetHalt(blind, simPorts(w), {}, at)).toBeUndefined();
    expect(w.calls).toEqual([]);
  });

  it('a signed halt: in force, what it halts, the kept digest beside it; no write', async () => {
    const w = world();
    const digest = publish(w, true);
    const view = await readFleetHalt(watching, simPorts(w), { [ANNOTATION.fleetHaltDigest]: C }, at);
    expect(view).toMatchObject({
      state: 'inForce',
      digest,
      recordedDigest: C,
      repositories: { [JM]: { digests: [B], pin: G } },
    });
    expect(w.calls.map((c) => c.op)).toEqual(['resolveDigest', 'readFleetHalt', 'verifySignature']);
  });

  it('a kept one is not read again; an unsigned one is unverified; without the ports it cannot be read', async () => {
    const w = world();
    const digest = publish(w, false);
    const text = w.haltDocuments.get(digest) ?? '';
    const known = await readFleetHalt(watching, simPorts(w), kept(digest, JSON.stringify(JSON.parse(text))), at);
    expect(known).toMatchObject({ state: 'inForce', recordedDigest: digest });
    expect(w.calls.map((c) => c.op)).toEqual(['resolveDigest']);
    expect(await readFleetHalt(watching, simPorts(w), {}, at)).toMatchObject({
      state: 'unverified',
      why: expect.stringMatching(/^its signature did not verify/),
      repositories: null,
    });
    const { fleetHalt: _f, signatures: _s, ...bare } = simPorts(w);
    expect(await readFleetHalt(watching, bare, {}, at)).toMatchObject({
      state: 'unverified',
      why: 'its document could not be read (Transport: no fleet halt port to read it with)',
    });
    const { signatures: _only, ...noSignatures } = simPorts(w);
    expect(await readFleetHalt(watching, noSignatures, {}, at)).toMatchObject({
      state: 'unverified',
      why: 'its signature could not be checked (Transport: no signature port to check it with)',
    });
  });
});
