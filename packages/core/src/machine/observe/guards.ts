import type { Option } from 'fp-ts/lib/Option.js';
import { isRecorded } from '../../domain/counter.js';
import { nextDecoupled } from '../../domain/decoupled-pass.js';
import { isSettled, type Settledness } from '../../domain/settledness.js';
import { isFrozen } from '../../domain/skip-streak.js';
import { isDecoupledRefreshOn, isPrivateMirror } from '../../domain/switches.js';
import type { GuardArgs } from '../tick-assign.js';

// The observe phase's named guards (docs/behaviour.md §3.1, §3.2), each one question to domain/.

export const observeGuards = {
  /** checkingMirror: the tick goes inert (mirrorInert) before any call (#569). */
  isMirrorRegistry: ({ context }: GuardArgs) => isPrivateMirror(context.config),
  /** The gate's read answered settled: on to clearing the skip streak (#546). */
  isGateSettled: (_: GuardArgs, params: { settledness: Settledness }) => isSettled(params.settledness),
  /** After the streak write: the tick ends frozen, exit 1 (#1964) — or, with DECOUPLED_REFRESH, says so and goes on to the pass. */
  isAtSkipCeiling: ({ context }: GuardArgs) => isFrozen(context.observe.skip),
  /** §3.2 — only a streak that is there is cleared: a healthy edge is not patched every tick (I6). */
  hasRecordedSkipStreak: (_: GuardArgs, params: { streak: Option<string> }) => isRecorded(params.streak),
  /** After the streak write: on to the decoupled pass instead of ending skipped. */
  isDecoupledRefreshOn: ({ context }: GuardArgs) => isDecoupledRefreshOn(context.config),
  /** A decoupled workload with something to follow is still to be read (I24). */
  hasDecoupledWorkloadToObserve: ({ context }: GuardArgs) =>
    nextDecoupled(context.config.topology, context.observe.decoupled) !== undefined,
};
