import { describe, expect, it } from 'vitest';
import type { Digest } from '../src/domain/digest.js';
import type { SignatureCheckReport } from '../src/domain/signature-admission.js';
import { kubernetesEventsFor } from '../src/machine/kubernetes-events.js';
import type { EventCode, TickEvent } from '../src/machine/tick-event.js';
import type { TickOutcome } from '../src/machine/tick-outcome.js';
import { simDigest } from '../src/sim/index.js';
import { aSteadyEdge, JM } from './support/edge.js';

// Each event code's Kubernetes Event type and reason is a contract an operator
// alerts on (docs/events.md): a code mapped to another reason, or to none, is a
// silent break. The bookkeeping codes share their reasons on purpose.

const aQuietOutcome = async (): Promise<TickOutcome> => ({ ...(await (await aSteadyEdge()).tick()), events: [] });

const eventsOf = (outcome: TickOutcome, code: EventCode) => {
  const event: TickEvent = { level: 'warn', code, message: `the ${code} line` };
  return kubernetesEventsFor({ ...outcome, events: [event] });
};

const CONTRACT: ReadonlyArray<readonly [EventCode, 'Normal' | 'Warning', string]> = [
  ['INTERRUPTED', 'Warning', 'RefreshInterrupted'],
  ['QUARANTINE_WRITE_FAILED', 'Warning', 'RefreshBookkeepingWriteFailed'],
  ['DIGEST_SOAK_STARTED', 'Normal', 'RefreshDigestSoakStarted'],
  ['DIGEST_SOAKED', 'Normal', 'RefreshDigestSoaked'],
  ['PENDING_DIGEST_UNREADABLE', 'Warning', 'RefreshBookkeepingUnreadable'],
  ['PENDING_DIGEST_UNPARSABLE', 'Warning', 'RefreshBookkeepingUnreadable'],
  ['PENDING_DIGEST_WRITE_FAILED', 'Warning', 'RefreshBookkeepingWriteFailed'],
  ['CLOCK_UNAVAILABLE', 'Warning', 'RefreshClockUnavailable'],
  ['START_JITTER_FAILED', 'Warning', 'RefreshClockUnavailable'],
];

describe('Kubernetes Event reason per event code', () => {
  it.each(CONTRACT)('%s becomes a %s %s Event carrying its line', async (code, type, reason) => {
    const outcome = await aQuietOutcome();
    expect(eventsOf(outcome, code)).toEqual([{ type, reason, message: `the ${code} line` }]);
  });

  it('the re-image Event names the key that verified that digest, not another digest’s nor a failed check', async () => {
    const edge = await aSteadyEdge();
    const next = simDigest(`${JM}#2`) as Digest;
    edge.world.publish(JM, next);
    const outcome = await edge.tick();
    const check = (digest: Digest, result: SignatureCheckReport['result']): SignatureCheckReport => ({
      image: 'jobs-manager',
      repo: JM,
      digest,
      gated: true,
      result,
    });
    const signatureChecks = [
      check(simDigest('another image') as Digest, { _tag: 'Verified', by: 'another-key', format: 'cosign-sig-tag' }),
      check(next, { _tag: 'NotVerified', why: 'no signature' }),
      check(next, { _tag: 'Verified', by: 'the-right-key', format: 'sigstore-bundle' }),
    ];
    const reimaged = kubernetesEventsFor({ ...outcome, events: [], signatureChecks }).find(
      (e) => e.reason === 'RefreshReimaged',
    );
    const verifiedBy = [...(reimaged?.message ?? '').matchAll(/\(signature verified by ([^)]+)\)/g)].map((m) => m[1]);
    expect(verifiedBy).toEqual(['the-right-key', 'the-right-key']);
  });
});

// EVENT_REASONS is the table docs/events.md is rendered from (the CLI's test holds the file to it);
// here it is held to kubernetesEventsFor, which records the Events. Loaded inside the test: a table
// that throws while it is built fails it by name (variables-table.test.ts says why).
describe('the table of Event reasons', () => {
  it('lists each reason once, with exactly the codes kubernetesEventsFor records under it', async () => {
    const { EVENT_REASONS } = await import('../src/machine/kubernetes-events.js');
    const outcome = await aQuietOutcome();
    const keys = EVENT_REASONS.map((r) => `${r.type} ${r.reason}`);
    expect(new Set(keys).size).toBe(keys.length);
    const byCode = EVENT_REASONS.filter((r) => r.reason !== 'RefreshReimaged');
    // Every code the contract above names is in the table, so the table is not a subset of it.
    expect(byCode.flatMap((r) => r.codes)).toEqual(expect.arrayContaining(CONTRACT.map(([code]) => code)));
    for (const { reason, type, codes } of byCode) {
      expect(codes.length, reason).toBeGreaterThan(0);
      for (const code of codes) {
        expect(eventsOf(outcome, code), code).toEqual([{ type, reason, message: `the ${code} line` }]);
      }
    }
  });

  it('ends with RefreshReimaged, made per re-imaged workload rather than from a code', async () => {
    const { EVENT_REASONS } = await import('../src/machine/kubernetes-events.js');
    expect(EVENT_REASONS.at(-1)).toEqual({ reason: 'RefreshReimaged', type: 'Normal', codes: [] });
    expect(EVENT_REASONS.filter((r) => r.reason === 'RefreshReimaged')).toHaveLength(1);
  });
});
