import { expectedRollouts, type TickConfig, windowStateAt } from '@image-refresh/core';

// `status` on MAINTENANCE_WINDOW (docs/behaviour.md §3.4d): where the edge
// stands in its windows now, and what each workload is expected to take here
// (the longest recorded rollout, or the bounds where none is) — what the next
// tick would size a plan by.

/** The window as status reports it; absent with MAINTENANCE_WINDOW unset. */
export interface WindowFacts {
  readonly windows: string;
  readonly open: boolean;
  /** RFC 3339: when the window open now closes, or when the next opens. */
  readonly until: string;
  /** Per workload: seconds expected, and whether measured here. */
  readonly expected: readonly { readonly workload: string; readonly seconds: number; readonly measured: boolean }[];
}

/** RFC 3339 to the second; a window that opens in none of the two weeks looked at is said so. */
const rfc3339 = (ms: number): string =>
  Number.isFinite(ms)
    ? new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z')
    : 'none in the next two weeks';

export const windowFacts = (
  config: TickConfig,
  annotations: Readonly<Record<string, string>>,
  nowMs: number,
): WindowFacts | undefined => {
  const window = config.maintenanceWindow;
  if (window === undefined) return undefined;
  const state = windowStateAt(window.windows, nowMs);
  return {
    windows: window.windows.map((w) => w.text).join('; '),
    open: state._tag === 'Open',
    until: rfc3339(state._tag === 'Open' ? state.closesMs : state.opensMs),
    expected: expectedRollouts(
      config,
      config.topology.workloads.map((w) => w.id),
      annotations,
    ).map((r) => ({ workload: r.workload, seconds: Math.round(r.ms / 1000), measured: r.measured })),
  };
};

const minutes = (seconds: number): string => (seconds < 60 ? `${seconds}s` : `${Math.ceil(seconds / 60)}m`);

/** The lines `status` prints: the state, then what each workload is expected to take. */
export const windowStatusLines = (facts: WindowFacts): string[] => [
  facts.open ? `open until ${facts.until} (${facts.windows})` : `outside, next opens ${facts.until} (${facts.windows})`,
  `expected rollouts here: ${facts.expected
    .map((e) => `${e.workload} ~${minutes(e.seconds)}${e.measured ? '' : ' (none recorded: the bounds)'}`)
    .join(', ')}`,
];
