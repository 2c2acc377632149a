import {
  FLEET_HALT_MEDIA_TYPE,
  FLEET_PROMOTION_MEDIA_TYPE,
  type FleetHaltDraft,
  formatDuration,
  type PromotionDraft,
} from '@image-refresh/core';
import type { PrometheusError } from './prometheus-client.js';
import type { PromoteOptions } from './promote-options.js';
import { age, named, type Row, rfc3339, shortDigest, type Verdict } from './verdict.js';

// What `image-refresh promote` prints and writes, from a verdict
// (docs/fleet-promotion.md, "The table", "--json", "--out"): the table of
// evidence per edge, the one JSON object, the promotion entry and the halt
// drafts, and the publish recipe. Pure: the command writes the lines.

/** A grouping as a row names it: its edge, or its grouping labels where it has none. */
export const edgeName = (row: Row): string =>
  row.group.edge ??
  `(${Object.entries(row.group.labels)
    .filter(([name]) => name !== 'instance')
    .map(([name, value]) => `${name}=${value}`)
    .join(',')})`;

const since = (row: Row, nowMs: number): string =>
  row.group.recorded === undefined
    ? '-'
    : `${rfc3339(row.group.recorded.sinceMs)} (${age(nowMs - row.group.recorded.sinceMs)} ago)`;

const pad = (cells: readonly string[], widths: readonly number[]): string =>
  cells
    .map((cell, i) => (i === cells.length - 1 ? cell : cell.padEnd(widths[i] ?? 0)))
    .join('  ')
    .trimEnd();

/** The table: a header and one line per grouping of rings < N or not counted. */
export const tableLines = (verdict: Verdict, nowMs: number): string[] => {
  const header = ['EDGE', 'RING', 'RECORDED DIGEST', 'RECORDED SINCE', 'VERDICT', 'WHY'];
  const body = verdict.rows.map((row) => [
    edgeName(row),
    row.group.ring === undefined ? '-' : String(row.group.ring),
    row.group.recorded === undefined ? '-' : `${shortDigest(row.group.recorded.digest)}…`,
    since(row, nowMs),
    row.verdict,
    row.why.join('; '),
  ]);
  const widths = header.map((_, i) => Math.max(...[header, ...body].map((cells) => (cells[i] ?? '').length)));
  return [header, ...body].map((cells) => pad(cells, widths));
};

/** Each rollback, a line: who (an edge, or a grouping without an edge label), when, what a halt would name. */
export const rollbackLines = (verdict: Verdict, digest: string): string[] =>
  verdict.rollbacks.map(
    (r) =>
      `rollback: ${named(r)}${r.edge === undefined ? ' (no edge label)' : ''} rolled ${r.repository}@${shortDigest(digest)}… back and quarantined it; first seen ${rfc3339(r.atMs)}`,
  );

/** The promotion entry's evidence line (at most 512 characters, one line). */
export const evidenceLine = (verdict: Verdict, options: PromoteOptions, nowMs: number): string =>
  `${verdict.countedEdges.length} edge(s) of rings < ${options.ring} ran it for >= ${formatDuration(options.forMs)} clean (min ${options.minEdges}); ${options.prometheus.url} at ${rfc3339(nowMs)}`.slice(
    0,
    512,
  );

export const promotionEntry = (verdict: Verdict, options: PromoteOptions, nowMs: number): PromotionDraft => ({
  image: options.image,
  digest: options.digest,
  ring: options.ring,
  expires: options.promotionExpires,
  evidence: evidenceLine(verdict, options, nowMs),
});

/** The halt of a digest some edge rolled back: each rollback's repository, the digest, the first rollback named. */
export const haltDraft = (verdict: Verdict, options: PromoteOptions): FleetHaltDraft | undefined => {
  const first = verdict.rollbacks[0];
  if (first === undefined) return undefined;
  const repositories = Object.fromEntries(
    [...new Set(verdict.rollbacks.map((r) => r.repository))].map((repo) => [repo, { digests: [options.digest] }]),
  );
  return {
    reason:
      `${options.image}@${shortDigest(options.digest)}... rolled back and quarantined on ${named(first)} at ${rfc3339(first.atMs)} (image-refresh promote)`.slice(
        0,
        256,
      ),
    expires: options.haltExpires,
    repositories,
  };
};

/** How to publish and sign what was written, as halt render says it. */
export const publishLines = (file: string, kind: 'promotion' | 'halt'): string[] => {
  const media = kind === 'promotion' ? FLEET_PROMOTION_MEDIA_TYPE : FLEET_HALT_MEDIA_TYPE;
  const ref = kind === 'promotion' ? 'FLEET_PROMOTION_REF' : 'FLEET_HALT_REF';
  const tag = kind === 'promotion' ? 'stg-promotion' : 'stg-halt';
  return [
    `Then publish it under the tag ${ref} names and sign its digest with the key (or identity) the edges trust:`,
    `  oras push docker.io/tracebloc/fleet-control:${tag} ${file}:${media} --artifact-type ${media}`,
    '  cosign sign --key cosign.key docker.io/tracebloc/fleet-control@<digest oras printed>',
  ];
};

export interface Written {
  readonly file: string;
  readonly kind: 'promotion' | 'halt';
}

/**
 * The one JSON object of --json. Its exitCode is the process's: the
 * verdict's, or 1 when --out could not be written (docs/fleet-promotion.md,
 * "Exit codes").
 */
export const verdictJson = (
  options: PromoteOptions,
  nowMs: number,
  result:
    | { verdict: Verdict; written: Written | undefined; exitCode: number }
    | { error: PrometheusError; exitCode: number },
): string => {
  const question = {
    image: options.image,
    digest: options.digest,
    ring: options.ring,
    for: formatDuration(options.forMs),
    minEdges: options.minEdges,
    prometheus: options.prometheus.url,
    evaluatedAt: rfc3339(nowMs),
  };
  if ('error' in result)
    return JSON.stringify({
      verdict: 'unknown',
      exitCode: result.exitCode,
      summary: `no evidence: Prometheus ${result.error.kind}: ${result.error.message}`,
      ...question,
      error: { kind: result.error.kind, message: result.error.message },
    });
  const { verdict, written, exitCode } = result;
  return JSON.stringify({
    verdict: verdict.outcome,
    exitCode,
    summary: verdict.summary,
    ...question,
    edgesCounted: verdict.countedEdges.length,
    edges: verdict.rows.map((row) => ({
      edge: row.group.edge ?? null,
      grouping: row.group.labels,
      ring: row.group.ring ?? null,
      recordedDigest: row.group.recorded?.digest ?? null,
      recordedSince: row.group.recorded === undefined ? null : rfc3339(row.group.recorded.sinceMs),
      verdict: row.verdict,
      why: row.why,
    })),
    rollbacks: verdict.rollbacks.map((r) => ({
      edge: r.edge ?? null,
      grouping: r.labels,
      repository: r.repository,
      at: rfc3339(r.atMs),
    })),
    higherRings: verdict.higherRings,
    wrote: written ?? null,
  });
};
