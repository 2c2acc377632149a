import type { Option } from 'fp-ts/lib/Option.js';
import type { TickConfig } from '../config/tick-config.js';
import { counterValue, isRecorded } from './counter.js';
import type { ImageResolution, MirrorMiss } from './plan.js';
import type { RegistryError } from './port-error.js';

// A registry that never answers is a finding, not a green tick forever
// (docs/behaviour.md §3.3, I46): the skip streak's lesson (#1964) applied to
// the registry. A tick in which some followed image could not be resolved
// counts one on the gate's resolve-failure streak; at MAX_RESOLVE_FAILURE_TICKS
// the tick says REGISTRY UNREACHABLE and exits 1; a tick in which every image
// it asked for answered ends the streak. A 429 is the pull budget's, with its
// own guard and lines (I7b): it neither counts nor ends the streak.

/** One image this tick asked for and the registry did not answer. */
export interface SilentImage {
  readonly image: string;
  readonly error: RegistryError;
  /** MIRROR_MODE=follow-upstream: the upstream answered, the mirror has not served the digest (§3.3). */
  readonly unservedBy?: MirrorMiss;
}

/** What this tick does with the resolve-failure streak. */
export type RegistrySilence =
  /** MAX_RESOLVE_FAILURE_TICKS=off, or nothing to count nor end: no write. */
  | { readonly _tag: 'Unchanged' }
  /** Some image went unanswered: the streak written, and whether it reached the ceiling. */
  | {
      readonly _tag: 'Silent';
      readonly streak: number;
      readonly max: number;
      readonly unreachable: boolean;
      readonly silent: readonly SilentImage[];
    }
  /** Every image asked for answered after a recorded streak: it is removed. */
  | { readonly _tag: 'Answering'; readonly after: number };

export const SILENCE_UNCHANGED: RegistrySilence = { _tag: 'Unchanged' };

/** The images asked for that did not answer, a 429 aside (the budget guard's, I7b). */
export const silentImagesOf = (resolutions: readonly ImageResolution[]): readonly SilentImage[] =>
  resolutions.flatMap((r) =>
    r._tag === 'Unresolved' && r.error._tag !== 'RateLimited'
      ? [{ image: r.image, error: r.error, ...(r.unservedBy === undefined ? {} : { unservedBy: r.unservedBy }) }]
      : [],
  );

/** Every image this tick asked the registry for answered with a digest (pinned and unasked ones aside). */
const everyImageAnswered = (resolutions: readonly ImageResolution[]): boolean =>
  resolutions.every((r) => r._tag !== 'Unresolved');

/** The images this tick did not resolve for any reason, 429 included: the summary's `unresolved=N`. */
export const unresolvedImagesOf = (resolutions: readonly ImageResolution[]): readonly string[] =>
  resolutions.flatMap((r) => (r._tag === 'Unresolved' ? [r.image] : []));

/**
 * This tick's verdict on the streak, from the registry's answers and the
 * streak the gate held when the settled guard read it.
 */
export const judgeRegistrySilence = (
  config: TickConfig,
  resolutions: readonly ImageResolution[],
  recorded: Option<string>,
): RegistrySilence => {
  const max = config.maxResolveFailureTicks;
  if (max === 'off') return SILENCE_UNCHANGED;
  const silent = silentImagesOf(resolutions);
  if (silent.length > 0) {
    const streak = counterValue(recorded) + 1;
    return { _tag: 'Silent', streak, max, unreachable: streak >= max, silent };
  }
  return everyImageAnswered(resolutions) && isRecorded(recorded)
    ? { _tag: 'Answering', after: counterValue(recorded) }
    : SILENCE_UNCHANGED;
};

/** The streak just written reached MAX_RESOLVE_FAILURE_TICKS: a finding (I46). */
export const isRegistryUnreachable = (silence: RegistrySilence): boolean =>
  silence._tag === 'Silent' && silence.unreachable;
