import * as O from 'fp-ts/lib/Option.js';
import type { HeaderReader } from './http-transport.js';

// Docker Hub sends `ratelimit-limit: 100;w=21600` and `ratelimit-remaining:
// 76;w=21600` on manifest HEADs too (Docker Hub's rate-limit headers). The operator wants
// the remaining budget in the log before it runs out, not a 429 afterwards.

/** The pull budget a registry reported on a manifest HEAD (Docker Hub's `ratelimit-*` headers). */
export interface RateLimitBudget {
  /** The repository whose HEAD carried it. */
  readonly repo: string;
  /** Pulls left in the window for this client IP. */
  readonly remaining: number;
  /** Pulls allowed per window, when the registry said. */
  readonly limit: O.Option<number>;
  /** The `w=` window in seconds (21600 = 6 h on Docker Hub). */
  readonly windowSeconds: O.Option<number>;
}

const VALUE = /^\s*(\d+)\s*(?:;(.*))?$/;
const WINDOW = /(?:^|;)\s*w\s*=\s*(\d+)\s*(?:;|$)/;

interface Quota {
  readonly count: number;
  readonly windowSeconds: O.Option<number>;
}

const safeNumber = (digits: string | undefined): O.Option<number> => {
  const n = Number(digits);
  return digits !== undefined && Number.isSafeInteger(n) ? O.some(n) : O.none;
};

/** `100;w=21600` → 100 and a 21600 s window; anything else → none. */
export const parseQuota = (value: string | null): O.Option<Quota> => {
  const match = VALUE.exec(value ?? '');
  if (match === null) return O.none;
  const count = safeNumber(match[1]);
  if (O.isNone(count)) return O.none;
  const params = match[2] ?? '';
  return O.some({ count: count.value, windowSeconds: safeNumber(WINDOW.exec(params)?.[1]) });
};

export const rateLimitBudget = (headers: HeaderReader, repo: string): O.Option<RateLimitBudget> => {
  const remaining = parseQuota(headers.get('ratelimit-remaining'));
  if (O.isNone(remaining)) return O.none;
  const limit = parseQuota(headers.get('ratelimit-limit'));
  return O.some({
    repo,
    remaining: remaining.value.count,
    limit: O.map((q: Quota) => q.count)(limit),
    windowSeconds: O.isSome(remaining.value.windowSeconds)
      ? remaining.value.windowSeconds
      : O.flatMap((q: Quota) => q.windowSeconds)(limit),
  });
};

/** `ratelimit-remaining 0 of 100 per 21600 s` for an operator's log line. */
export const describeBudget = (budget: RateLimitBudget): string =>
  `ratelimit-remaining ${budget.remaining}` +
  (O.isSome(budget.limit) ? ` of ${budget.limit.value}` : '') +
  (O.isSome(budget.windowSeconds) ? ` per ${budget.windowSeconds.value} s` : '');
