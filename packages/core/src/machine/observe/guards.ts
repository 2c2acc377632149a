import type { Option } from 'fp-ts/lib/Option.js';
import { isRecorded } from '../../domain/counter.js';
import { nextDecoupled } from '../../domain/decoupled-pass.js';
import { isSettled, type Settledness } from '../../domain/settledness.js';
import { isFrozen } from '../../domain/skip-streak.js';
import { isDecoupledRefreshOn, isPrivateMirror } from '../../domain/switches.js';
import type { GuardArgs } from '../tick-assign.js';

// The observe phase's named guards (docs/behaviour.md §3.1, §3.2), each one question to domain/.

export const observeGuards = {
  /** §3.1 — behind a private mirror a docker.io digest may be unpullable (I14, #569). */
  isMirrorRegistry: ({ context }: GuardArgs) => isPrivateMirror(context.config),
  /** §3.2 — only a settled gate lets the tick act (I1, #546). */
  isGateSettled: (_: GuardArgs, params: { settledness: Settledness }) => isSettled(params.settledness),
  /** §3.2 — the streak just written reached MAX_SKIP_TICKS: a finding, not a skip (I3, I5, #1964). */
  isAtSkipCeiling: ({ context }: GuardArgs) => isFrozen(context.observe.skip),
  /** §3.2 — only a streak that is there is cleared: a healthy edge is not patched every tick (I6). */
  hasRecordedSkipStreak: (_: GuardArgs, params: { streak: Option<string> }) => isRecorded(params.streak),
  /** DECOUPLED_REFRESH=1: refresh what is settled past an unsettled gate. */
  isDecoupledRefreshOn: ({ context }: GuardArgs) => isDecoupledRefreshOn(context.config),
  /** A decoupled workload with something to follow is still to be read (I24). */
  hasDecoupledWorkloadToObserve: ({ context }: GuardArgs) =>
    nextDecoupled(context.config.topology, context.observe.decoupled) !== undefined,
};
