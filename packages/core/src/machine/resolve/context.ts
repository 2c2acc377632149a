import type { Either } from 'fp-ts/lib/Either.js';
import type { Annotations, RecordedDigests } from '../../domain/bookkeeping.js';
import type { MirrorQuestion } from '../../domain/mirror.js';
import type { ImageResolution } from '../../domain/plan.js';
import type { RegistryError } from '../../domain/port-error.js';
import type { Resolution } from '../../domain/registry-answer.js';
import { BUDGET_UNKNOWN, type RegistryBudget } from '../../domain/registry-budget.js';
import { type RegistrySilence, SILENCE_UNCHANGED } from '../../domain/registry-silence.js';
import { type LiveView, NOTHING_SEEN_LIVE } from '../../domain/tick-plan.js';

/** What the resolve phase learns (docs/behaviour.md §3.3, §5): the registry's answers, the records, what runs now. */
export interface ResolveContext {
  /** One per image: resolved, unresolved, pinned or not asked. */
  readonly resolutions: readonly ImageResolution[];
  /** The registry's pull budget as this tick's answers report it (I7b). */
  readonly budget: RegistryBudget;
  /** The digests recorded on the gate, read fail-closed: every later phase compares with them. */
  readonly recorded: RecordedDigests;
  /** The gate's annotations as the record read returned them: what the admission checks read (§3.4a). */
  readonly bookkeeping: Annotations;
  /** RECONCILE_LIVE: what runs now, and which images image-refresh pinned. */
  readonly live: LiveView;
  /** FLEET_HALT_REF: what the halt tag's HEAD answered in the same batch; undefined when unset (docs/behaviour.md §3.4b). */
  readonly haltAnswer: Either<RegistryError, Resolution> | undefined;
  /** FLEET_PROMOTION_REF on ring ≥ 1: what the promotion tag's HEAD answered in the same batch (docs/fleet-promotion.md). */
  readonly promotionAnswer: Either<RegistryError, Resolution> | undefined;
  /** MAX_RESOLVE_FAILURE_TICKS: what this tick does with the resolve-failure streak (I46). */
  readonly silence: RegistrySilence;
  /** MIRROR_MODE=follow-upstream: the changed digests the mirror is asked for this tick (§3.3). */
  readonly mirrorQuestions: readonly MirrorQuestion[];
}

export const RESOLVED_NOTHING: ResolveContext = {
  resolutions: [],
  budget: BUDGET_UNKNOWN,
  recorded: {},
  bookkeeping: {},
  live: NOTHING_SEEN_LIVE,
  haltAnswer: undefined,
  promotionAnswer: undefined,
  silence: SILENCE_UNCHANGED,
  mirrorQuestions: [],
};
