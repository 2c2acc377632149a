import { describe, expect, it } from 'vitest';
import type { Evidence, GroupEvidence, RollbackEvidence } from '../../src/promote/evidence-queries.js';
import { type Question, verdictOf } from '../../src/promote/verdict.js';
import { D, OLD } from './support/run-promote.js';

// The verdict's rules (docs/fleet-promotion.md, "The rules"), one test each,
// on evidence rows made by hand: break a rule in verdict.ts and its test goes red.

const NOW = Date.parse('2026-12-01T12:00:00Z');
const HOUR = 3_600_000;
const Q: Question = { image: 'web', digest: D, ring: 1, forMs: 2 * HOUR, minEdges: 1, nowMs: NOW };

const group = (edge: string | undefined, over: Partial<GroupEvidence> = {}): GroupEvidence => {
  const labels = { job: 'image-refresh', ...(edge === undefined ? { namespace: 'orphan' } : { edge }) };
  return {
    key: JSON.stringify(labels),
    labels,
    edge,
    ring: 0,
    ringChanged: false,
    pushedAtMs: NOW - 60_000,
    recorded: { digest: D, sinceMs: NOW - 3 * HOUR },
    failedExitCode: undefined,
    rolledBack: undefined,
    lockedOut: false,
    skipStreak: undefined,
    frozen: false,
    ...over,
  };
};
const rollback = (g: GroupEvidence, atMs = NOW - HOUR): RollbackEvidence => ({
  key: g.key,
  labels: g.labels,
  edge: g.edge,
  repository: 'shop/web',
  atMs,
});
const of = (groups: GroupEvidence[], rollbacks: RollbackEvidence[] = []): Evidence => ({ groups, rollbacks });
const rowOf = (v: ReturnType<typeof verdictOf>, edge: string) => v.rows.find((r) => r.group.edge === edge);

describe('the verdict', () => {
  it('promotes when every counted edge of rings < N ran the digest for --for, clean', () => {
    const v = verdictOf(of([group('a'), group('b')]), Q);
    expect([v.outcome, v.exitCode]).toEqual(['promote', 0]);
    expect(v.countedEdges).toEqual(['a', 'b']);
    expect(rowOf(v, 'a')).toMatchObject({ verdict: 'yes', why: ['ran it 2h59m to its last push (1m ago), clean'] });
  });

  it('an edge that runs another digest says no, not yet (exit 1)', () => {
    const v = verdictOf(of([group('a'), group('b', { recorded: { digest: OLD, sinceMs: NOW - 9 * HOUR } })]), Q);
    expect([v.outcome, v.exitCode]).toEqual(['not yet', 1]);
    expect(rowOf(v, 'b')).toMatchObject({ verdict: 'not yet', why: ['runs sha256:000000000000…, not this digest'] });
  });

  it('an edge that recorded no digest of the image says no, not yet', () => {
    const v = verdictOf(of([group('a', { recorded: undefined })]), Q);
    expect([v.outcome, v.exitCode]).toEqual(['not yet', 1]);
    expect(rowOf(v, 'a')?.why).toEqual(['has recorded no digest of web']);
  });

  it('an edge that recorded it for less than --for says no, not yet; exactly --for is enough', () => {
    const short = verdictOf(of([group('a', { recorded: { digest: D, sinceMs: NOW - 2 * HOUR + 60_000 } })]), Q);
    expect([short.outcome, short.exitCode]).toEqual(['not yet', 1]);
    expect(rowOf(short, 'a')?.why).toEqual(['recorded it 1h59m ago, ran it 1h58m to its last push (1m ago), needs 2h']);
    const exact = verdictOf(of([group('a', { pushedAtMs: NOW, recorded: { digest: D, sinceMs: NOW - 2 * HOUR } })]), Q);
    expect(exact.outcome).toBe('promote');
  });

  it('a silent edge ran it only up to its last push: recorded 2h30m ago, last pushed 59m ago, is not yet', () => {
    const silent = group('a', { pushedAtMs: NOW - 59 * 60_000, recorded: { digest: D, sinceMs: NOW - 150 * 60_000 } });
    const v = verdictOf(of([silent]), Q);
    expect([v.outcome, v.exitCode]).toEqual(['not yet', 1]);
    expect(rowOf(v, 'a')?.why).toEqual(['recorded it 2h30m ago, ran it 1h31m to its last push (59m ago), needs 2h']);
    const covered = group('a', { pushedAtMs: NOW - 30 * 60_000, recorded: { digest: D, sinceMs: NOW - 150 * 60_000 } });
    expect(rowOf(verdictOf(of([covered]), Q), 'a')).toMatchObject({
      verdict: 'yes',
      why: ['ran it 2h to its last push (30m ago), clean'],
    });
  });

  it('an edge that pushed the instant it recorded it ran it 0s, not 0ms', () => {
    const v = verdictOf(of([group('a', { pushedAtMs: NOW - 500, recorded: { digest: D, sinceMs: NOW - 900 } })]), Q);
    expect(rowOf(v, 'a')?.why).toEqual(['recorded it 0s ago, ran it 0s to its last push (0s ago), needs 2h']);
  });

  it('a failed tick (exit ≠ 0) within --for says no', () => {
    const v = verdictOf(of([group('a'), group('b', { failedExitCode: 143 })]), Q);
    expect([v.outcome, v.exitCode]).toEqual(['no', 1]);
    expect(rowOf(v, 'b')).toMatchObject({ verdict: 'no', why: ['a tick exited 143 within the last 2h'] });
    expect(v.summary).toBe('NO: 1 of 2 edge(s) of rings < 1 say no (edge b: a tick exited 143 within the last 2h)');
  });

  it('a rollback (rolled_back > 0) within --for says no', () => {
    const v = verdictOf(of([group('a', { rolledBack: 2 })]), Q);
    expect([v.outcome, v.exitCode]).toEqual(['no', 1]);
    expect(rowOf(v, 'a')?.why).toEqual(['a tick rolled back 2 workload(s) within the last 2h']);
  });

  it('a flap lockout within --for says no', () => {
    const v = verdictOf(of([group('a', { lockedOut: true })]), Q);
    expect([v.outcome, v.exitCode]).toEqual(['no', 1]);
    expect(rowOf(v, 'a')?.why).toEqual(['flap-locked-out within the last 2h']);
  });

  it('an unsettled gate (skipped ticks) within --for says no', () => {
    const v = verdictOf(of([group('a'), group('b', { skipStreak: 3 })]), Q);
    expect([v.outcome, v.exitCode]).toEqual(['no', 1]);
    expect(rowOf(v, 'b')).toMatchObject({
      verdict: 'no',
      why: ['its gate was unsettled — skipped ticks, up to 3 in a row — within the last 2h'],
    });
  });

  it('a frozen tick (unsettled for MAX_SKIP_TICKS ticks) within --for says no', () => {
    const v = verdictOf(of([group('a', { frozen: true })]), Q);
    expect([v.outcome, v.exitCode]).toEqual(['no', 1]);
    expect(rowOf(v, 'a')?.why).toEqual(['frozen — its gate unsettled for MAX_SKIP_TICKS ticks — within the last 2h']);
  });

  it('failures of an edge that does not run the digest are not its: no, not yet', () => {
    const v = verdictOf(
      of([
        group('a', {
          recorded: { digest: OLD, sinceMs: NOW - HOUR },
          failedExitCode: 1,
          lockedOut: true,
          skipStreak: 2,
          frozen: true,
        }),
      ]),
      Q,
    );
    expect(v.outcome).toBe('not yet');
  });

  it('a quarantine of the digest says no, naming the edge, its ring and the tick — any ring, even a stale edge', () => {
    const canary = group('a');
    const v = verdictOf(of([canary, group('b')], [rollback(canary)]), Q);
    expect([v.outcome, v.exitCode]).toEqual(['no', 1]);
    expect(v.summary).toBe('NO: edge a (ring 0) rolled it back and quarantined it at 2026-12-01T11:00:00Z');
    expect(rowOf(v, 'a')).toMatchObject({
      verdict: 'no',
      why: ['rolled sha256:dddddddddddd… back and quarantined it (shop/web) at 2026-12-01T11:00:00Z'],
    });
    const high = group('h', { ring: 3 });
    const elsewhere = verdictOf(of([group('b'), high], [rollback(high)]), Q);
    expect([elsewhere.outcome, elsewhere.exitCode]).toEqual(['no', 1]);
    const old = group('s', { pushedAtMs: NOW - 5 * HOUR });
    expect(verdictOf(of([group('b'), old], [rollback(old)]), Q).outcome).toBe('no');
  });

  it('a quarantine by a grouping without an edge label says no too, naming the grouping by its labels', () => {
    const orphan = group(undefined);
    const v = verdictOf(of([group('a'), orphan], [rollback(orphan)]), Q);
    expect([v.outcome, v.exitCode]).toEqual(['no', 1]);
    expect(v.summary).toBe(
      'NO: grouping job=image-refresh,namespace=orphan (ring 0, no edge label) rolled it back and quarantined it at 2026-12-01T11:00:00Z',
    );
    expect(v.rollbacks).toHaveLength(1);
    expect(v.rows.find((r) => r.group.edge === undefined)).toMatchObject({
      verdict: 'not counted',
      why: ['no edge label (METRICS_GROUPING needs edge=<id>)'],
    });
  });

  it('fewer counted edges than --min-edges is too thin (exit 3)', () => {
    const v = verdictOf(of([group('a')]), { ...Q, minEdges: 2 });
    expect([v.outcome, v.exitCode]).toEqual(['thin', 3]);
    expect(v.summary).toBe(
      'TOO THIN: 1 edge(s) of rings < 1 pushed within the last hour and were counted, --min-edges is 2',
    );
    expect(verdictOf(of([]), Q)).toMatchObject({ outcome: 'thin', exitCode: 3 });
  });

  it('two groupings of one edge count it once', () => {
    const second = { ...group('a'), key: 'another', labels: { job: 'image-refresh', edge: 'a', namespace: 'x' } };
    const v = verdictOf(of([group('a'), second]), { ...Q, minEdges: 2 });
    expect(v.countedEdges).toEqual(['a']);
    expect(v.outcome).toBe('thin');
  });

  it('an edge that says no outweighs too few edges: no (1), not thin (3)', () => {
    const v = verdictOf(of([group('a', { lockedOut: true })]), { ...Q, minEdges: 5 });
    expect([v.outcome, v.exitCode]).toEqual(['no', 1]);
  });

  it('an edge that has not pushed within the hour is not counted, named with its last push', () => {
    const v = verdictOf(of([group('a'), group('s', { pushedAtMs: NOW - HOUR - 60_000 })]), Q);
    expect(v.outcome).toBe('promote');
    expect(v.countedEdges).toEqual(['a']);
    expect(rowOf(v, 's')).toMatchObject({
      verdict: 'not counted',
      why: ['last pushed 2026-12-01T10:59:00Z (1h1m ago), more than 1h'],
    });
    expect(verdictOf(of([group('s', { pushedAtMs: NOW - HOUR - 60_000 })]), Q).outcome).toBe('thin');
    expect(rowOf(verdictOf(of([group('p', { pushedAtMs: undefined })]), Q), 'p')?.why).toEqual([
      'no push_time_seconds',
    ]);
  });

  it('edges of rings ≥ N are not asked', () => {
    const v = verdictOf(of([group('a'), group('r1', { ring: 1, recorded: undefined })]), Q);
    expect(v.outcome).toBe('promote');
    expect(v.higherRings).toBe(1);
    expect(rowOf(v, 'r1')).toBeUndefined();
    const toTwo = verdictOf(of([group('a'), group('r1', { ring: 1, recorded: undefined })]), { ...Q, ring: 2 });
    expect(toTwo.outcome).toBe('not yet');
  });

  it('a grouping without an edge label is not counted, even when it would say no', () => {
    const v = verdictOf(of([group(undefined, { lockedOut: true })]), Q);
    expect([v.outcome, v.exitCode]).toEqual(['thin', 3]);
  });

  it('a grouping whose ring changed within the hour is refused', () => {
    const v = verdictOf(of([group('a'), group('f', { ringChanged: true, lockedOut: true })]), Q);
    expect(v.outcome).toBe('promote');
    expect(rowOf(v, 'f')).toMatchObject({ verdict: 'not counted', why: ['its ring changed within the last hour'] });
  });

  it('one edge label pushed with two rings by two groupings is refused in both', () => {
    const zero = group('a');
    const one = {
      ...group('a', { ring: 1 }),
      key: 'other',
      labels: { job: 'image-refresh', edge: 'a', namespace: 'x' },
    };
    const v = verdictOf(of([zero, one, group('b')]), Q);
    expect(v.outcome).toBe('promote');
    expect(v.countedEdges).toEqual(['b']);
    expect(v.rows.filter((r) => r.group.edge === 'a').map((r) => r.why)).toEqual([
      ['edge a is pushed with rings 0 and 1 by different groupings'],
      ['edge a is pushed with rings 0 and 1 by different groupings'],
    ]);
  });

  it('a grouping that pushes no ring is not counted', () => {
    const v = verdictOf(of([group('a', { ring: undefined })]), Q);
    expect(rowOf(v, 'a')).toMatchObject({ verdict: 'not counted', why: ['pushes no image_refresh_rollout_ring'] });
    expect(v.outcome).toBe('thin');
  });
});
