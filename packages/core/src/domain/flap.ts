import type { Option } from 'fp-ts/lib/Option.js';
import { counterValue } from './counter.js';

// docs/behaviour.md §3.5, the flap back-off (#563, #626): refresh-attempt,
// read fail-closed, counts the re-image ticks that failed in a row; at
// MAX_REFRESH_ATTEMPTS the tick stops and flags instead, and only a human
// clearing the counter re-arms it (no auto-resume, I10).

/** refresh-attempt as read (absent or garbage = 0, #626). */
export const attemptOf = (raw: Option<string>): number => counterValue(raw);

/** MAX_REFRESH_ATTEMPTS failed re-images in a row: stop and flag, no auto-resume (I10, #563). */
export const isFlapLockedOut = (attempt: number, maxRefreshAttempts: number): boolean => attempt >= maxRefreshAttempts;

/**
 * A decoupled pass (the gate unsettled) found refresh-attempt above 0:
 * failures before it — a flapping gate's, typically — are not its to
 * clear, so its success puts the count back instead (I25).
 */
export const keepsEarlierFailures = (decoupledPass: boolean, attempt: number): boolean => decoupledPass && attempt > 0;
