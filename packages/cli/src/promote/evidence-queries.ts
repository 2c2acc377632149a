import type { PromSample } from './prometheus-client.js';

// The PromQL `image-refresh promote` asks, and the evidence rows it makes of
// the answers (docs/fleet-promotion.md, "The queries"). Two instant queries,
// one round-trip each, whatever the number of edges: the edges' own state
// (ring, its changes, the last push, failed ticks, rollbacks, the flap
// lockout, an unsettled gate), and what they recorded and quarantined of the one image and
// digest asked about. Each query is an `or` of vectors told apart by a
// `promote_evidence` label; rows are joined here, in the client, on a
// grouping's labels — every series of one Pushgateway grouping carries the
// same grouping labels (`honor_labels: true`), so no PromQL join has to know
// which labels a fleet groups by.

/** The label that tells the parts of one query's answer apart. */
export const PART = 'promote_evidence';

/** Labels of a series that are not its grouping's: the part, the metric's name, the gauges' own labels. */
const NOT_GROUPING = new Set(['__name__', PART, 'image', 'digest', 'repository', 'state', 'outcome']);

/** A grouping pushed within this long counts (push_time_seconds): the gateway keeps a group forever. */
export const FRESH_MS = 60 * 60 * 1_000;

/** How far back a rollback of the digest is looked for: the --for window, but at least a day. */
export const rollbackLookbackMs = (forMs: number): number => Math.max(forMs, 24 * 60 * 60 * 1_000);

const seconds = (ms: number): string => `${Math.max(1, Math.ceil(ms / 1_000))}s`;

const part = (name: string, vector: string): string => `label_replace(${vector}, "${PART}", "${name}", "", "")`;

/**
 * The edges' state, every grouping that pushes a ring: its ring, whether it
 * changed in the last hour, its last push, and over the --for window its
 * worst exit code, most workloads rolled back, any flap lockout and any
 * unsettled gate — skipped ticks or a frozen one (each only where it is not
 * 0, so a clean fleet answers little).
 */
export const edgesQuery = (forMs: number): string =>
  [
    part('ring', 'image_refresh_rollout_ring'),
    part('ring_changed', `changes(image_refresh_rollout_ring[${seconds(FRESH_MS)}]) > 0`),
    // `and` without `on`: the same grouping labels, so push_time_seconds of image-refresh's groups only.
    part('pushed', 'push_time_seconds and image_refresh_rollout_ring'),
    part('failed_tick', `max_over_time(image_refresh_exit_code[${seconds(forMs)}]) != 0`),
    part('rolled_back', `max_over_time(image_refresh_rolled_back[${seconds(forMs)}]) > 0`),
    part('locked_out', `max_over_time(image_refresh_flap_locked_out[${seconds(forMs)}]) > 0`),
    // One part, two series: the skip streak's, and the frozen outcome's (told apart by its `outcome` label).
    part(
      'unsettled',
      `(max_over_time(image_refresh_skip_streak[${seconds(forMs)}]) > 0 or max_over_time(image_refresh_tick_outcome{outcome="frozen"}[${seconds(forMs)}]) > 0)`,
    ),
  ].join(' or ');

/**
 * What every grouping recorded of `image` (digest and since when), and every
 * quarantine of `digest` within the lookback with the time Prometheus first
 * saw it: a subquery's earliest sample, or — for one younger than the
 * subquery's last step — the current sample's time.
 */
export const imageQuery = (image: string, digest: string, forMs: number): string => {
  // Both are checked by the options (a DNS-1123 label, sha256:<hex>): nothing to escape.
  const quarantine = `image_refresh_quarantined_digest{digest="${digest}"} > 0`;
  const lookback = rollbackLookbackMs(forMs);
  // At most ~5,760 steps per quarantined series: only series of this digest are evaluated.
  const step = Math.max(15_000, Math.ceil(lookback / 5_760));
  return [
    part('recorded', `image_refresh_digest_recorded_timestamp_seconds{image="${image}"}`),
    part(
      'quarantined',
      `(min_over_time(timestamp(${quarantine})[${seconds(lookback)}:${seconds(step)}]) or timestamp(${quarantine}))`,
    ),
  ].join(' or ');
};

/** One Pushgateway grouping, as the queries saw it. */
export interface GroupEvidence {
  /** Its grouping labels, sorted (instance included): its identity. */
  readonly key: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly edge: string | undefined;
  readonly ring: number | undefined;
  /** image_refresh_rollout_ring changed in the last hour. */
  readonly ringChanged: boolean;
  readonly pushedAtMs: number | undefined;
  /** What it recorded of the image: the digest and since when; undefined when it pushes none. */
  readonly recorded: { readonly digest: string; readonly sinceMs: number } | undefined;
  /** The worst exit code of a tick in the --for window, where one was not 0. */
  readonly failedExitCode: number | undefined;
  /** The most workloads a tick rolled back in the --for window, where any did. */
  readonly rolledBack: number | undefined;
  readonly lockedOut: boolean;
  /** The longest skip streak (unsettled ticks in a row) in the --for window, where one was > 0. */
  readonly skipStreak: number | undefined;
  /** A tick in the --for window ended frozen (unsettled for MAX_SKIP_TICKS ticks). */
  readonly frozen: boolean;
}

/** A grouping that rolled the digest back and quarantined it. */
export interface RollbackEvidence {
  readonly key: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly edge: string | undefined;
  /** The image's repository as a fleet halt names it (the series' `repository` label). */
  readonly repository: string;
  /** When Prometheus first saw the quarantine: the tick that rolled it back, within a scrape interval. */
  readonly atMs: number;
}

export interface Evidence {
  readonly groups: readonly GroupEvidence[];
  readonly rollbacks: readonly RollbackEvidence[];
}

const groupingOf = (labels: Readonly<Record<string, string>>): Record<string, string> =>
  Object.fromEntries(
    Object.entries(labels)
      .filter(([name]) => !NOT_GROUPING.has(name))
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
  );

const keyOf = (grouping: Readonly<Record<string, string>>): string => JSON.stringify(grouping);

interface Building {
  labels: Record<string, string>;
  ring?: number;
  ringChanged: boolean;
  pushedAtMs?: number;
  recorded?: { digest: string; sinceMs: number };
  failedExitCode?: number;
  rolledBack?: number;
  lockedOut: boolean;
  skipStreak?: number;
  frozen: boolean;
}

/** The evidence rows of the two answers, one per grouping, in a stable order (edge, then key). */
export const evidenceOf = (edges: readonly PromSample[], image: readonly PromSample[]): Evidence => {
  const groups = new Map<string, Building>();
  const at = (labels: Readonly<Record<string, string>>): Building => {
    const grouping = groupingOf(labels);
    const key = keyOf(grouping);
    const found = groups.get(key);
    if (found !== undefined) return found;
    const fresh: Building = { labels: grouping, ringChanged: false, lockedOut: false, frozen: false };
    groups.set(key, fresh);
    return fresh;
  };
  const rollbacks: RollbackEvidence[] = [];
  for (const { labels, value } of [...edges, ...image]) {
    switch (labels[PART]) {
      case 'ring':
        at(labels).ring = value;
        break;
      case 'ring_changed':
        at(labels).ringChanged = true;
        break;
      case 'pushed':
        at(labels).pushedAtMs = value * 1_000;
        break;
      case 'failed_tick':
        at(labels).failedExitCode = value;
        break;
      case 'rolled_back':
        at(labels).rolledBack = value;
        break;
      case 'locked_out':
        at(labels).lockedOut = true;
        break;
      case 'unsettled':
        if (labels.outcome === 'frozen') at(labels).frozen = true;
        else at(labels).skipStreak = value;
        break;
      case 'recorded': {
        const group = at(labels);
        const sinceMs = value * 1_000;
        // One recorded digest per image is pushed; were there two, the later record is the current one.
        if (group.recorded === undefined || sinceMs > group.recorded.sinceMs)
          group.recorded = { digest: labels.digest ?? '', sinceMs };
        break;
      }
      case 'quarantined': {
        const grouping = groupingOf(labels);
        rollbacks.push({
          key: keyOf(grouping),
          labels: grouping,
          edge: grouping.edge,
          repository: labels.repository ?? '',
          atMs: value * 1_000,
        });
        break;
      }
      default:
        // A series the queries did not ask for (a proxy's or a recording rule's): not evidence.
        break;
    }
  }
  // By edge, the groupings without one last; then by grouping.
  const order = (a: { edge: string | undefined; key: string }, b: { edge: string | undefined; key: string }) =>
    (a.edge === undefined ? 1 : 0) - (b.edge === undefined ? 1 : 0) ||
    (a.edge ?? '').localeCompare(b.edge ?? '') ||
    a.key.localeCompare(b.key);
  return {
    groups: [...groups.entries()]
      .map(
        ([key, g]): GroupEvidence => ({
          key,
          labels: g.labels,
          edge: g.labels.edge,
          ring: g.ring,
          ringChanged: g.ringChanged,
          pushedAtMs: g.pushedAtMs,
          recorded: g.recorded,
          failedExitCode: g.failedExitCode,
          rolledBack: g.rolledBack,
          lockedOut: g.lockedOut,
          skipStreak: g.skipStreak,
          frozen: g.frozen,
        }),
      )
      .sort(order),
    rollbacks: rollbacks.sort((a, b) => a.atMs - b.atMs || order(a, b)),
  };
};
