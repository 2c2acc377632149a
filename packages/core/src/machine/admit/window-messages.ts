import { formatDuration } from '../../config/duration.js';
import type { TickConfig } from '../../config/tick-config.js';
import { rfc3339 } from '../../domain/pending-digest.js';
import { describePortError, type PortError } from '../../domain/port-error.js';
import { expectedRollouts, type WindowJudgement } from '../../domain/window-room.js';
import { event } from '../operator-words.js';
import type { TickEvent } from '../tick-event.js';

// The maintenance window's operator lines (docs/behaviour.md §3.4d). The two
// waits keep the phrases the behaviour document quotes, which operators grep:
// `outside the maintenance window: next opens <RFC 3339 time>` and
// `not enough window left: needs ~42m, 9m left`.

const SECOND_MS = 1_000;

/** `~42m`, `~1h5m30s`: a need, to the second above. Rounded the same way as what is left, so the two compare as the check did. */
const needWords = (ms: number): string => `~${formatDuration(Math.ceil(ms / SECOND_MS) * SECOND_MS)}`;

/** `9m`, `2h59m58s`: what is left, to the second below. */
const leftWords = (ms: number): string => {
  const whole = Math.max(0, Math.floor(ms / SECOND_MS) * SECOND_MS);
  return whole === 0 ? '0s' : formatDuration(whole);
};

/** When a window opens, or that none does in the two weeks looked at (every window opens in two weeks). */
const opensWords = (ms: number): string => (Number.isFinite(ms) ? rfc3339(ms) : 'none in the next two weeks');

/** `web ~38m (longest recorded here), worker ~10m (no rollout recorded yet: the bounds)`: what the need is made of. */
const needParts = (c: TickConfig, workloads: readonly string[], bookkeeping: Readonly<Record<string, string>>) =>
  expectedRollouts(c, workloads, bookkeeping)
    .map(
      (r) =>
        `${r.workload} ${needWords(r.ms)} (${r.measured ? 'longest recorded here' : 'no rollout recorded yet: the bounds'})`,
    )
    .join(', ');

/** The window's word on this tick's plan, as lines: nothing for a plan that has room but one narrating line. */
export const windowLines = (
  c: TickConfig,
  judgement: WindowJudgement,
  workloads: readonly string[],
  bookkeeping: Readonly<Record<string, string>>,
): TickEvent[] => {
  const margin =
    (c.maintenanceWindow?.marginMs ?? 0) > 0
      ? ` with WINDOW_MARGIN=${formatDuration(c.maintenanceWindow?.marginMs ?? 0)}`
      : '';
  switch (judgement._tag) {
    case 'Closed':
      return [
        event('info', 'WINDOW_CLOSED', `outside the maintenance window: next opens ${opensWords(judgement.opensMs)}`),
      ];
    case 'NoRoom':
      return [
        {
          ...event(
            'info',
            'WINDOW_NO_ROOM',
            `not enough window left: needs ${needWords(judgement.needsMs)}, ${leftWords(judgement.leftMs)} left`,
          ),
          hints: [
            `${needParts(c, workloads, bookkeeping)}${margin}`,
            `the next window opens ${opensWords(judgement.opensMs)}`,
          ],
        },
      ];
    case 'TooShort':
      return [
        {
          ...event(
            'error',
            'WINDOW_TOO_SHORT',
            `ERROR: WINDOW TOO SHORT: the plan needs ${needWords(judgement.needsMs)}${margin}, and the longest maintenance window is ${leftWords(judgement.longestMs)} (MAINTENANCE_WINDOW="${judgement.windows}"): it can never start`,
          ),
          hints: [
            needParts(c, workloads, bookkeeping),
            'Lengthen a window, re-image fewer workloads at once (pin some with their pinnedBy variable), or lower ROLLOUT_TIMEOUT where no rollout is recorded yet.',
          ],
        },
      ];
    case 'Room':
      return [
        event(
          'info',
          'WINDOW_ROOM',
          `inside the maintenance window: needs ${needWords(judgement.needsMs)}${margin}, ${leftWords(judgement.leftMs)} left`,
        ),
      ];
    case 'Open':
    case 'Unread':
      return [];
  }
};

/** The clock could not be read: where the tick stands in its window is unknown, so nothing starts (fail closed). */
export const windowClockUnavailable = (e: PortError): TickEvent =>
  event(
    'warn',
    'CLOCK_UNAVAILABLE',
    `WARN: could not read the clock to judge the maintenance window (${describePortError(e)}); nothing is re-imaged this tick. Will retry next tick.`,
  );

/** A counted rollout the clock could not time: its duration is not recorded; the tick goes on. */
export const rolloutUntimed = (workload: string, e: PortError): TickEvent =>
  event(
    'warn',
    'CLOCK_UNAVAILABLE',
    `WARN: could not read the clock to time the rollout of ${workload} (${describePortError(e)}); its duration is not recorded for the maintenance window.`,
  );
