import * as O from 'fp-ts/lib/Option.js';
import type { RecordedDigests } from '../../domain/bookkeeping.js';
import { type DecoupledPass, NO_DECOUPLED_PASS } from '../../domain/decoupled-pass.js';
import type { Settledness } from '../../domain/settledness.js';
import { NO_SKIP, type SkipCount } from '../../domain/skip-streak.js';
import type { LiveWorkload } from '../../domain/workloads.js';

/** What the observe phase learns (docs/behaviour.md §3.2): the gate as the settled guard saw it, and the skip. */
export interface ObserveContext {
  /** What the settled guard saw of the gate; undefined until its read answered. */
  readonly settledness: Settledness | undefined;
  /** The gate's uid, from the settled guard's read: what START_JITTER is derived from (§3.3). */
  readonly gateUid: string;
  /** What the gate runs, as the settled guard read it: the ownership check needs no second read of it. */
  readonly gate: LiveWorkload | undefined;
  /** The topology fingerprint the gate held when the settled guard read it (§3.4c); undefined: none. */
  readonly topologyFingerprint: string | undefined;
  /** The resolve-failure streak the gate held when the settled guard read it (I46). */
  readonly resolveFailureStreak: O.Option<string>;
  /** MIRROR_MODE=follow-upstream: the records the gate held then, which say what the mirror is asked (§3.3). */
  readonly mirrorRecords: RecordedDigests;
  /** The skip an unsettled tick counted, with its verdict against MAX_SKIP_TICKS. */
  readonly skip: SkipCount;
  /** DECOUPLED_REFRESH: the pass past an unsettled gate, and the workloads settled themselves (I24). */
  readonly decoupled: DecoupledPass;
}

export const OBSERVED_NOTHING: ObserveContext = {
  settledness: undefined,
  gateUid: '',
  gate: undefined,
  topologyFingerprint: undefined,
  resolveFailureStreak: O.none,
  mirrorRecords: {},
  skip: NO_SKIP,
  decoupled: NO_DECOUPLED_PASS,
};
