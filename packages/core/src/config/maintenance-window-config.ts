import { formatDuration } from './duration.js';
import { type DurationLimit, judgeDuration, MAX_TICK_DURATION_MS } from './duration-limit.js';
import type { Environment } from './environment.js';
import { type MaintenanceWindow, parseMaintenanceWindows } from './maintenance-window-grammar.js';
import { read } from './read-environment.js';
import { STAGING_ENV } from './staging-config.js';
import type { ConfigError } from './tick-config.js';

// Maintenance windows (docs/behaviour.md §3.4d): MAINTENANCE_WINDOW says when
// a re-image may start, WINDOW_MARGIN how much room beyond a plan's expected
// duration it must leave. Unset, a re-image may start at any time — the
// script's behaviour — and the other variable is not looked at: a tick reads
// no clock and writes no duration for it.

/** The variables, by meaning: a contract, as ENV's names are. */
export const WINDOW_ENV = {
  maintenanceWindow: 'MAINTENANCE_WINDOW',
  windowMargin: 'WINDOW_MARGIN',
  prepullOutsideWindow: 'PREPULL_OUTSIDE_WINDOW',
} as const;

export const WINDOW_DEFAULTS = { windowMargin: '0s', prepullOutsideWindow: 'off' } as const;

/** MAINTENANCE_WINDOW set: the windows, and the margin a plan must leave. */
export interface MaintenanceWindowConfig {
  readonly windows: readonly MaintenanceWindow[];
  /** WINDOW_MARGIN: added to a plan's expected duration before it is compared with the time left. */
  readonly marginMs: number;
  /**
   * PREPULL_OUTSIDE_WINDOW=on (with PREPULL=on): a plan the window holds is
   * staged now, so that only the switch needs the window (docs/behaviour.md §3.4d).
   */
  readonly stageOutside: boolean;
}

const MARGIN_LIMIT: DurationLimit = {
  ms: MAX_TICK_DURATION_MS,
  problem: `must be at most ${formatDuration(MAX_TICK_DURATION_MS)} (room kept inside a window beyond a plan's expected duration)`,
};

/** PREPULL_OUTSIDE_WINDOW: `on` stages ahead, which only PREPULL=on does (a stage nothing pulls would say nothing true). */
const stageOutsideOf = (env: Environment, problems: ConfigError[]): boolean => {
  const value = read(env, WINDOW_ENV.prepullOutsideWindow) ?? WINDOW_DEFAULTS.prepullOutsideWindow;
  if (value === 'off') return false;
  if (value !== 'on') {
    problems.push({ variable: WINDOW_ENV.prepullOutsideWindow, value, problem: 'must be "off" (the default) or "on"' });
    return false;
  }
  if (read(env, STAGING_ENV.prepull) !== 'on') {
    problems.push({
      variable: WINDOW_ENV.prepullOutsideWindow,
      value,
      problem: 'stages a held plan ahead of the window, which needs PREPULL=on (staging is off)',
    });
    return false;
  }
  return true;
};

/** MAINTENANCE_WINDOW, WINDOW_MARGIN and PREPULL_OUTSIDE_WINDOW: every problem at once, each naming its variable and value. */
export const parseMaintenanceWindowConfig = (
  env: Environment,
): { readonly config: MaintenanceWindowConfig | undefined; readonly problems: readonly ConfigError[] } => {
  const text = read(env, WINDOW_ENV.maintenanceWindow);
  if (text === undefined) return { config: undefined, problems: [] };
  const problems: ConfigError[] = [];
  const parsed = parseMaintenanceWindows(text);
  if ('problems' in parsed) {
    for (const problem of parsed.problems)
      problems.push({ variable: WINDOW_ENV.maintenanceWindow, value: text, problem });
  }
  const margin = read(env, WINDOW_ENV.windowMargin) ?? WINDOW_DEFAULTS.windowMargin;
  // The same judge as every duration (duration-limit.ts); 0s, no margin.
  const judged = judgeDuration(margin, 'allowed', MARGIN_LIMIT);
  if (!('ms' in judged)) problems.push({ variable: WINDOW_ENV.windowMargin, value: margin, problem: judged.problem });
  const stageOutside = stageOutsideOf(env, problems);
  if (problems.length > 0 || 'problems' in parsed || !('ms' in judged)) return { config: undefined, problems };
  return { config: { windows: parsed.windows, marginMs: judged.ms, stageOutside }, problems };
};

/** The windows' settings; undefined without MAINTENANCE_WINDOW (the default: any time). */
export const maintenanceWindowOf = (config: {
  readonly maintenanceWindow?: MaintenanceWindowConfig;
}): MaintenanceWindowConfig | undefined => config.maintenanceWindow;
