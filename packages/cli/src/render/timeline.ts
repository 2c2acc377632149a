import { ANNOTATION, formatDuration, IMAGES, shortDigest, type TickConfig } from '@image-refresh/core';
import type { TimelineRow } from '@image-refresh/core/sim';
import { decisionOf, jobsManagerState } from './decision.js';

// `image-refresh simulate`: one row per tick, wide enough to read in a
// terminal, plain text so it pastes into an issue or the README.

// The jobs-manager record key, as core spells it (its bookkeeping keys live in one file there).
const JM_RECORD = IMAGES.find((image) => image.name === 'jobs-manager')?.recordKey ?? '';

const column = (text: string, width: number): string =>
  text.length > width ? `${text.slice(0, width - 1)}…` : text.padEnd(width);

const COLUMNS = [
  ['tick', 4],
  ['world event', 50],
  ['jobs-manager', 12],
  ['decision', 50],
  ['exit', 4],
  ['streak', 6],
  ['attempt', 7],
  ['flap', 4],
  ['recorded jobs-manager', 21],
  ['kubernetes events', 60],
] as const;

export const renderTimeline = (config: TickConfig, rows: readonly TimelineRow[]): string => {
  const header = COLUMNS.map(([title, width]) => column(title, width)).join('  ');
  const lines = rows.map((row) => {
    const a = row.annotations;
    const cells = [
      String(row.tick),
      // Issue 17: a scenario of several edges names the edge of each row.
      row.edge === undefined ? row.event : `[${row.edge}] ${row.event}`,
      jobsManagerState(row.outcome),
      decisionOf(row.outcome),
      String(row.outcome.exitCode),
      a[ANNOTATION.skipStreak] === undefined ? '-' : `${a[ANNOTATION.skipStreak]}/${config.maxSkipTicks}`,
      a[ANNOTATION.refreshAttempt] === undefined ? '-' : `${a[ANNOTATION.refreshAttempt]}/${config.maxRefreshAttempts}`,
      a[ANNOTATION.flapDetected] ?? '-',
      a[JM_RECORD] === undefined ? '-' : shortDigest(a[JM_RECORD]),
      row.kubeEvents.length === 0 ? '-' : row.kubeEvents.join(', '),
    ];
    return cells
      .map((cell, i) => column(cell, COLUMNS[i]?.[1] ?? 10))
      .join('  ')
      .trimEnd();
  });
  return [header.trimEnd(), ...lines].join('\n');
};

/**
 * Under the timeline: how long the re-imaged workloads' pods were
 * unavailable — the rollout waits (a rollback's too) while new pods waited
 * for their image and started — per edge; nothing when no rollout waited.
 * `slow-link` compares it with and without PREPULL (docs/behaviour.md §3.5a).
 */
export const unavailabilityLine = (rows: readonly TimelineRow[]): string | undefined => {
  const byEdge = new Map<string, number>();
  for (const row of rows) byEdge.set(row.edge ?? '', (byEdge.get(row.edge ?? '') ?? 0) + row.unavailableMs);
  if ([...byEdge.values()].every((ms) => ms === 0)) return undefined;
  const said = [...byEdge].map(
    ([edge, ms]) => `${edge === '' ? '' : `[${edge}] `}${ms === 0 ? '0s' : formatDuration(ms)}`,
  );
  return `time with pods unavailable (rollout waits of re-imaged workloads): ${said.join(', ')}`;
};
