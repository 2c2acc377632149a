import type { Option } from 'fp-ts/lib/Option.js';
import * as O from 'fp-ts/lib/Option.js';

// docs/behaviour.md §2: a counter whose value is absent, empty or not a decimal integer
// counts as 0 — the reference's `case ''|*[!0-9]*) n=0`. A decimal too large to
// count exactly is still "very large", never 0: collapsing it would reset a
// streak that is certainly past its ceiling (#1964).
const DECIMAL = /^[0-9]+$/;
const LARGEST = Number.MAX_SAFE_INTEGER - 1;

/**
 * The value of a bookkeeping counter annotation (skip streak, refresh
 * attempt), read as the reference reads it (docs/behaviour.md §2): absent, empty or not a
 * decimal integer counts as 0; a decimal too large to count exactly is
 * capped, never collapsed to 0 (a streak past its ceiling stays past it, I5).
 */
export const counterValue = (raw: Option<string>): number =>
  O.match(
    () => 0,
    (value: string) => (DECIMAL.test(value) ? Math.min(Number.parseInt(value, 10), LARGEST) : 0),
  )(raw);

/** The streak is "recorded" when the annotation holds anything at all (reference: `[ -n "$skips" ]`). */
export const isRecorded = (raw: Option<string>): raw is Option<string> & { _tag: 'Some' } =>
  raw._tag === 'Some' && raw.value !== '';
