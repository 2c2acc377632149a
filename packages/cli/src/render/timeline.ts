import { formatDuration, imageOf, shortDigest, type TickConfig } from '@image-refresh/core';
import type { TimelineRow } from '@image-refresh/core/sim';
import { decisionOf, gateState } from './decision.js';

// `image-refresh simulate`: one row per tick, wide enough to read in a
// terminal, plain text so it pastes into an issue or the README. The gate's
// settledness has a column, and so does the record of the gate's first image.

const column = (text: string, width: number): string =>
  text.length > width ? `${text.slice(0, width - 1)}…` : text.padEnd(width);

/** The columns' titles and widths; the gate's and its first image's are named after them. */
const columnsOf = (config: TickConfig): readonly (readonly [string, number])[] => {
  const { gate } = config.topology;
  return [
    ['tick', 4],
    ['world event', 50],
    [gate.id, Math.max(12, gate.id.length)],
    ['decision', 50],
    ['exit', 4],
    ['streak', 6],
    ['attempt', 7],
    ['flap', 4],
    [`recorded ${gate.containers[0]?.image ?? ''}`, 21],
    ['kubernetes events', 60],
  ];
};

export const renderTimeline = (config: TickConfig, rows: readonly TimelineRow[]): string => {
  const { gate, keys } = config.topology;
  const record = imageOf(config.topology, gate.containers[0]?.image ?? '').recordKey;
  const columns = columnsOf(config);
  const header = columns.map(([title, width]) => column(title, width)).join('  ');
  const lines = rows.map((row) => {
    const a = row.annotations;
    const recorded = a[record];
    const cells = [
      String(row.tick),
      // A scenario of several edges names the edge of each row.
      row.edge === undefined ? row.event : `[${row.edge}] ${row.event}`,
      gateState(row.outcome),
      decisionOf(row.outcome, gate.id),
      String(row.outcome.exitCode),
      a[keys.skipStreak] === undefined ? '-' : `${a[keys.skipStreak]}/${config.maxSkipTicks}`,
      a[keys.refreshAttempt] === undefined ? '-' : `${a[keys.refreshAttempt]}/${config.maxRefreshAttempts}`,
      a[keys.flapDetected] ?? '-',
      recorded === undefined ? '-' : shortDigest(recorded),
      row.kubeEvents.length === 0 ? '-' : row.kubeEvents.join(', '),
    ];
    return cells
      .map((cell, i) => column(cell, columns[i]?.[1] ?? 10))
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
