import { judgeDuration, TICK_WAIT } from './duration-limit.js';
import type { ConfigError } from './tick-config.js';

// "Stage, then switch" (docs/behaviour.md §3.4a step 4 and §3.5a): PLATFORM_CHECK
// refuses a changed digest that drops a platform the recorded one provides;
// PREPULL pulls a changed digest onto the nodes that will run it before any
// pod is switched. Both `off` by default, the script's behaviour; with `off`
// the other variables are not looked at (a tick reads and calls nothing of
// them: I43).

/** The environment variables of the two switches, by meaning: a contract, as ENV's names are. */
export const STAGING_ENV = {
  platformCheck: 'PLATFORM_CHECK',
  prepull: 'PREPULL',
  prepullTimeout: 'PREPULL_TIMEOUT',
  prepullParallel: 'PREPULL_PARALLEL',
} as const;

/** PREPULL=on: how long one tick waits for its images to be staged, and on how many nodes at once. */
export interface PrepullConfig {
  /** PREPULL_TIMEOUT (30m, at most 24h): the whole staging wait of one tick. */
  readonly timeoutMs: number;
  /** PREPULL_PARALLEL (1): nodes pulling at once, so a site's link carries one pull at a time by default. */
  readonly parallel: number;
}

/** What PLATFORM_CHECK and PREPULL say, parsed. */
export interface StagingConfig {
  readonly platformCheck: boolean;
  /** Absent: PREPULL=off (the default). */
  readonly prepull?: PrepullConfig;
}

export const STAGING_DEFAULTS = { prepullTimeout: '30m', prepullParallel: 1 } as const;

const readVar = (env: Readonly<Record<string, string | undefined>>, name: string): string | undefined => {
  const value = env[name];
  return value === '' ? undefined : value;
};

const onOff = (env: Readonly<Record<string, string | undefined>>, name: string, problems: ConfigError[]): boolean => {
  const value = readVar(env, name);
  if (value === undefined || value === 'off') return false;
  if (value === 'on') return true;
  problems.push({ variable: name, value, problem: 'must be "off" (the script\'s behaviour) or "on"' });
  return false;
};

const prepullTimeoutOf = (env: Readonly<Record<string, string | undefined>>, problems: ConfigError[]): number => {
  const value = readVar(env, STAGING_ENV.prepullTimeout) ?? STAGING_DEFAULTS.prepullTimeout;
  // A wait inside the tick, like ROLLOUT_TIMEOUT: the same judge, sentences and cap (duration-limit.ts).
  const judged = judgeDuration(value, 'refused', TICK_WAIT);
  if ('ms' in judged) return judged.ms;
  problems.push({ variable: STAGING_ENV.prepullTimeout, value, problem: judged.problem });
  return 0;
};

const WHOLE = /^[0-9]+$/;

const prepullParallelOf = (env: Readonly<Record<string, string | undefined>>, problems: ConfigError[]): number => {
  const value = readVar(env, STAGING_ENV.prepullParallel);
  if (value === undefined) return STAGING_DEFAULTS.prepullParallel;
  const parsed = Number(value);
  if (WHOLE.test(value) && Number.isSafeInteger(parsed) && parsed >= 1) return parsed;
  problems.push({
    variable: STAGING_ENV.prepullParallel,
    value,
    problem: 'must be a whole number of at least 1 (nodes pulling at once)',
  });
  return STAGING_DEFAULTS.prepullParallel;
};

/**
 * Parse PLATFORM_CHECK, PREPULL and (only with PREPULL=on) PREPULL_TIMEOUT and
 * PREPULL_PARALLEL: every problem at once, each naming its variable and value.
 */
export const parseStagingConfig = (
  env: Readonly<Record<string, string | undefined>>,
): { readonly config: StagingConfig; readonly problems: readonly ConfigError[] } => {
  const problems: ConfigError[] = [];
  const platformCheck = onOff(env, STAGING_ENV.platformCheck, problems);
  const prepull = onOff(env, STAGING_ENV.prepull, problems);
  if (!prepull) return { config: { platformCheck }, problems };
  const timeoutMs = prepullTimeoutOf(env, problems);
  const parallel = prepullParallelOf(env, problems);
  return { config: { platformCheck, prepull: { timeoutMs, parallel } }, problems };
};

/** PLATFORM_CHECK=on: a changed digest must provide every platform the recorded one does (§3.4a step 4). */
export const isPlatformCheckOn = (config: { readonly staging?: StagingConfig }): boolean =>
  config.staging?.platformCheck === true;

/** PREPULL=on: its settings; undefined with `off` (the default). */
export const prepullOf = (config: { readonly staging?: StagingConfig }): PrepullConfig | undefined =>
  config.staging?.prepull;
