import type { Option } from 'fp-ts/lib/Option.js';
import { counterValue } from './counter.js';

// docs/behaviour.md §3.2, an unsettled gate: the skip is counted on
// the streak read fail-closed, and the new streak is judged against
// MAX_SKIP_TICKS once — the verdict says which it is and by what numbers, the
// skip and FROZEN lines and a decoupled pass's result only read it (#1964).

/** The skip this tick counted: `Frozen` at or above MAX_SKIP_TICKS (a finding, I3, I5), else `Skipping`. */
export interface SkipCount {
  readonly _tag: 'Skipping' | 'Frozen';
  /** The streak this tick writes: the one read plus 1 (absent or garbage counts as 0). */
  readonly streak: number;
  readonly max: number;
}

/** Before the skip streak was read: nothing counted. */
export const NO_SKIP: SkipCount = { _tag: 'Skipping', streak: 0, max: 0 };

export const countSkip = (previous: Option<string>, maxSkipTicks: number): SkipCount => {
  const streak = counterValue(previous) + 1;
  return { _tag: streak >= maxSkipTicks ? 'Frozen' : 'Skipping', streak, max: maxSkipTicks };
};

/** The streak just written reached MAX_SKIP_TICKS: a finding, not a skip (I3, I5, #1964). */
export const isFrozen = (skip: SkipCount): boolean => skip._tag === 'Frozen';

/** How a tick whose skip was counted ends, a decoupled pass after it or not. */
export const skipResultOf = (skip: SkipCount): 'skipped' | 'frozen' => (isFrozen(skip) ? 'frozen' : 'skipped');
