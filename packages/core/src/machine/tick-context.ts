import * as O from 'fp-ts/lib/Option.js';
import type { TickConfig } from '../config/tick-config.js';
import type { Holds } from '../domain/admission.js';
import type { Annotations, RecordedDigests } from '../domain/bookkeeping.js';
import type { DigestAgeDecision } from '../domain/digest-age.js';
import type { ImageResolution, RefreshPlan } from '../domain/plan.js';
import type { RevertPlan } from '../domain/revert.js';
import type { Settledness } from '../domain/settledness.js';
import type { SignatureCheckReport } from '../domain/signature-admission.js';
import type { LiveWorkload, WorkloadId } from '../domain/workloads.js';
import type { TickEvent } from './tick-event.js';
import type { AnnotationWrite, Reimage } from './tick-outcome.js';

export interface TickContext {
  readonly config: TickConfig;
  readonly settledness: O.Option<Settledness>;
  /** The streak this tick writes on an unsettled tick. */
  readonly skipStreak: number;
  readonly resolutions: readonly ImageResolution[];
  readonly recorded: O.Option<RecordedDigests>;
  /** The jobs-manager's annotations as the record read returned them: what the admission checks read (§3.4a). */
  readonly bookkeeping: Annotations;
  /** Images the admission checks held back this tick, and why (docs/behaviour.md §3.4a). */
  readonly holds: Holds;
  readonly plan: O.Option<RefreshPlan>;
  /** refresh-attempt as read this tick (absent or garbage = 0). */
  readonly attempt: number;
  /** Index into plan.changes of the workload being re-imaged. */
  readonly reimageIndex: number;
  readonly events: readonly TickEvent[];
  readonly writes: readonly AnnotationWrite[];
  readonly reimages: readonly Reimage[];
  /** RECONCILE_LIVE: what runs now, and which images image-refresh pinned. */
  readonly live: {
    readonly workloads: Readonly<Partial<Record<WorkloadId, LiveWorkload>>>;
    readonly pins: O.Option<RecordedDigests>;
  };
  /** DECOUPLED_REFRESH: set on an unsettled tick's decoupled pass, to the workloads that were settled themselves. */
  readonly decoupledSettled: O.Option<readonly WorkloadId[]>;
  /** How the skip streak ended this tick, when a decoupled pass followed it. */
  readonly skipResult: O.Option<'skipped' | 'frozen'>;
  /** ON_ROLLOUT_FAILURE=revert: the rollback planned once the rollout failed (issue 16). */
  readonly revert: O.Option<RevertPlan>;
  /** Index into revert.changes of the workload being rolled back. */
  readonly revertIndex: number;
  /** Why the rollout failed, for the ROLLED BACK line. */
  readonly revertWhy: string;
  /** What failed: a rollout (its workload's new digests are bad), or a refused patch (no build to blame). */
  readonly revertCause: 'rolloutFailed' | 'patchRefused';
  /** Workloads the rollback patched, with whether their rollout completed. */
  readonly reverts: readonly Reimage[];
  /** VERIFY_SIGNATURES ≠ off: what the signature check said of each digest it asked about (issue 15). */
  readonly signatureChecks: readonly SignatureCheckReport[];
  /** The jobs-manager Deployment's uid, from the settled guard's read: what START_JITTER is derived from (issue 17). */
  readonly jobsManagerUid: string;
  /** The annotations the digest-age check read, its pending records (issue 17). */
  readonly ageBookkeeping: Annotations;
  /** The digest-age check's decision this tick (issue 17); none when the check is off or had nothing to judge. */
  readonly ageDecision: O.Option<DigestAgeDecision>;
}

export const initialContext = (config: TickConfig): TickContext => ({
  config,
  settledness: O.none,
  skipStreak: 0,
  resolutions: [],
  recorded: O.none,
  bookkeeping: {},
  holds: {},
  plan: O.none,
  attempt: 0,
  reimageIndex: 0,
  events: [],
  writes: [],
  reimages: [],
  live: { workloads: {}, pins: O.none },
  decoupledSettled: O.none,
  skipResult: O.none,
  revert: O.none,
  revertIndex: 0,
  revertWhy: '',
  revertCause: 'rolloutFailed',
  reverts: [],
  signatureChecks: [],
  jobsManagerUid: '',
  ageBookkeeping: {},
  ageDecision: O.none,
});
