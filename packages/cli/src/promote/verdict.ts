import { formatDuration } from '@image-refresh/core';
import { type Evidence, FRESH_MS, type GroupEvidence, type RollbackEvidence } from './evidence-queries.js';

// The verdict of `image-refresh promote` (docs/fleet-promotion.md, "The
// rules"), pure: evidence rows and the question in, the verdict out, every
// row with the reasons it says what it says. No clock (nowMs is given), no
// I/O: every rule is held by a test of its own (test/promote/verdict.test.ts).

export interface Question {
  readonly image: string;
  readonly digest: string;
  /** The ring to promote to: the evidence is that of rings 0..ring-1. */
  readonly ring: number;
  readonly forMs: number;
  readonly minEdges: number;
  readonly nowMs: number;
}

/** What one grouping says: yes; no; no, not yet (it has not run the digest long enough); or it is not counted. */
export type RowVerdict = 'yes' | 'no' | 'not yet' | 'not counted';

export interface Row {
  readonly group: GroupEvidence;
  readonly verdict: RowVerdict;
  /** Why, in an operator's words: at least one reason. */
  readonly why: readonly string[];
}

export type Outcome = 'promote' | 'no' | 'not yet' | 'thin';

export interface Verdict {
  readonly outcome: Outcome;
  /** 0 promote, 1 the evidence says no (or not yet), 3 too thin to say. */
  readonly exitCode: 0 | 1 | 3;
  /** The verdict in a line. */
  readonly summary: string;
  /** Every grouping of rings < N, and every grouping not counted whatever its ring: the table. */
  readonly rows: readonly Row[];
  /** The distinct edges whose groupings were counted. */
  readonly countedEdges: readonly string[];
  /** Every rollback of the digest, of any ring, by any grouping (an edge label or not): each says no. */
  readonly rollbacks: readonly RollbackEvidence[];
  /** Groupings of rings ≥ N, consistent and labelled: not asked. */
  readonly higherRings: number;
}

export const shortDigest = (digest: string): string => digest.slice(0, 19);

/** An age as a line says it: whole seconds under a minute (0s, not 0ms), whole minutes above (3h7m, not 3h7.502s). */
export const age = (ms: number): string =>
  ms < 1_000 ? '0s' : formatDuration(ms < 60_000 ? Math.floor(ms / 1_000) * 1_000 : Math.floor(ms / 60_000) * 60_000);

export const rfc3339 = (ms: number): string =>
  new Date(Math.floor(ms / 1_000) * 1_000).toISOString().replace('.000Z', 'Z');

/** Why a grouping is not counted at all, whatever the digest, or undefined when it may be. */
const notCounted = (
  group: GroupEvidence,
  ringsOfEdge: ReadonlyMap<string, ReadonlySet<number>>,
): string | undefined => {
  // docs/fleet-promotion.md, "The evidence": the edge label is the edge's identity.
  if (group.edge === undefined) return 'no edge label (METRICS_GROUPING needs edge=<id>)';
  if (group.ring === undefined) return 'pushes no image_refresh_rollout_ring';
  if (group.ringChanged) return 'its ring changed within the last hour';
  const rings = ringsOfEdge.get(group.edge);
  if (rings !== undefined && rings.size > 1)
    return `edge ${group.edge} is pushed with rings ${[...rings].sort((a, b) => a - b).join(' and ')} by different groupings`;
  return undefined;
};

const stale = (group: GroupEvidence, nowMs: number): string | undefined => {
  if (group.pushedAtMs === undefined) return 'no push_time_seconds';
  if (group.pushedAtMs < nowMs - FRESH_MS)
    return `last pushed ${rfc3339(group.pushedAtMs)} (${age(nowMs - group.pushedAtMs)} ago), more than 1h`;
  return undefined;
};

/** What a counted grouping says of the digest, and why. */
const judge = (
  group: GroupEvidence,
  question: Question,
  rollbacks: readonly RollbackEvidence[],
): { verdict: 'yes' | 'no' | 'not yet'; why: string[] } => {
  const window = formatDuration(question.forMs);
  const no: string[] = rollbacks
    .filter((r) => r.key === group.key)
    .map(
      (r) => `rolled ${shortDigest(question.digest)}… back and quarantined it (${r.repository}) at ${rfc3339(r.atMs)}`,
    );
  const notYet: string[] = [];
  const recorded = group.recorded;
  // docs/fleet-promotion.md, "The rules": the run is counted up to the edge's
  // last push, the last time it said anything; a silent edge's evidence ends there.
  const lastSaidMs = Math.min(group.pushedAtMs ?? question.nowMs, question.nowMs);
  const ran = (sinceMs: number): { ms: number; said: string } => {
    const ms = Math.max(0, lastSaidMs - sinceMs);
    return { ms, said: `ran it ${age(ms)} to its last push (${age(question.nowMs - lastSaidMs)} ago)` };
  };
  if (recorded === undefined) notYet.push(`has recorded no digest of ${question.image}`);
  else if (recorded.digest !== question.digest) notYet.push(`runs ${shortDigest(recorded.digest)}…, not this digest`);
  else {
    const { ms, said } = ran(recorded.sinceMs);
    if (ms < question.forMs)
      notYet.push(`recorded it ${age(question.nowMs - recorded.sinceMs)} ago, ${said}, needs ${window}`);
    // Failures count while it runs the digest: a failed tick of another build is not this build's.
    if (group.failedExitCode !== undefined) no.push(`a tick exited ${group.failedExitCode} within the last ${window}`);
    if (group.rolledBack !== undefined)
      no.push(`a tick rolled back ${group.rolledBack} workload(s) within the last ${window}`);
    if (group.lockedOut) no.push(`flap-locked-out within the last ${window}`);
    // An unsettled gate skips the tick and exits 0 until MAX_SKIP_TICKS: a crash-looping build looks clean otherwise.
    if (group.skipStreak !== undefined)
      no.push(`its gate was unsettled — skipped ticks, up to ${group.skipStreak} in a row — within the last ${window}`);
    if (group.frozen) no.push(`frozen — its gate unsettled for MAX_SKIP_TICKS ticks — within the last ${window}`);
  }
  if (no.length > 0) return { verdict: 'no', why: [...no, ...notYet] };
  if (notYet.length > 0) return { verdict: 'not yet', why: notYet };
  return { verdict: 'yes', why: [`${ran(recorded?.sinceMs ?? lastSaidMs).said}, clean`] };
};

/** An edge by its label; a grouping without one by its other labels (instance left out). */
export const named = (group: { edge: string | undefined; labels: Readonly<Record<string, string>> }): string =>
  group.edge !== undefined
    ? `edge ${group.edge}`
    : `grouping ${Object.entries(group.labels)
        .filter(([name]) => name !== 'instance')
        .map(([name, value]) => `${name}=${value}`)
        .join(',')}`;

/** The verdict the evidence gives on promoting `image@digest` to `ring`. */
export const verdictOf = (evidence: Evidence, question: Question): Verdict => {
  const ringsOfEdge = new Map<string, Set<number>>();
  for (const group of evidence.groups) {
    if (group.edge === undefined || group.ring === undefined) continue;
    const rings = ringsOfEdge.get(group.edge) ?? new Set<number>();
    rings.add(group.ring);
    ringsOfEdge.set(group.edge, rings);
  }
  const ringOf = new Map(evidence.groups.map((g) => [g.key, g.ring]));
  // docs/fleet-promotion.md, "The verdict": any rollback of the build says no, an edge label or not —
  // a grouping that lacks one is not counted, but what it rolled back was rolled back.
  const rollbacks = evidence.rollbacks;
  const rows: Row[] = [];
  let higherRings = 0;
  for (const group of evidence.groups) {
    const refused = notCounted(group, ringsOfEdge);
    if (refused !== undefined) {
      rows.push({ group, verdict: 'not counted', why: [refused] });
      continue;
    }
    if ((group.ring ?? 0) >= question.ring) {
      higherRings += 1;
      continue;
    }
    const old = stale(group, question.nowMs);
    if (old !== undefined) {
      rows.push({ group, verdict: 'not counted', why: [old] });
      continue;
    }
    rows.push({ group, ...judge(group, question, rollbacks) });
  }
  const counted = rows.filter((r) => r.verdict !== 'not counted');
  const countedEdges = [...new Set(counted.map((r) => r.group.edge ?? ''))];
  const saysNo = counted.filter((r) => r.verdict === 'no');
  const notYet = counted.filter((r) => r.verdict === 'not yet');
  const base = { rows, countedEdges, rollbacks, higherRings };
  const of = `${countedEdges.length} edge(s) of rings < ${question.ring}`;
  const first = rollbacks[0];
  if (first !== undefined) {
    return {
      ...base,
      outcome: 'no',
      exitCode: 1,
      summary: `NO: ${named(first)} (ring ${ringOf.get(first.key) ?? '?'}${first.edge === undefined ? ', no edge label' : ''}) rolled it back and quarantined it at ${rfc3339(first.atMs)}${rollbacks.length > 1 ? ` (and ${rollbacks.length - 1} more rollback(s))` : ''}`,
    };
  }
  if (saysNo.length > 0)
    return {
      ...base,
      outcome: 'no',
      exitCode: 1,
      summary: `NO: ${saysNo.length} of ${of} say no (${named(saysNo[0]?.group ?? { edge: undefined, labels: {} })}: ${saysNo[0]?.why[0] ?? ''})`,
    };
  if (notYet.length > 0)
    return {
      ...base,
      outcome: 'not yet',
      exitCode: 1,
      summary: `NO, NOT YET: ${notYet.length} of ${of} have not run it for ${formatDuration(question.forMs)}`,
    };
  if (countedEdges.length < question.minEdges)
    return {
      ...base,
      outcome: 'thin',
      exitCode: 3,
      summary: `TOO THIN: ${of} pushed within the last hour and were counted, --min-edges is ${question.minEdges}`,
    };
  return {
    ...base,
    outcome: 'promote',
    exitCode: 0,
    summary: `PROMOTE: ${of} ran it for at least ${formatDuration(question.forMs)}, clean`,
  };
};
