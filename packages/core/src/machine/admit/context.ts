import type { AnsweredDigest, ChangedDigest, Holds } from '../../domain/admission.js';
import type { Annotations, BookkeepingChanges } from '../../domain/bookkeeping.js';
import { type HaltPins, NO_HALT_PINS } from '../../domain/fleet-halt-admission.js';
import { EMPTY_PLAN, type ImageResolution, type RefreshPlan } from '../../domain/plan.js';
import type { PlatformSubject } from '../../domain/platforms.js';
import type { SignatureCheckReport, SignatureSubject } from '../../domain/signature-admission.js';
import type { WindowJudgement } from '../../domain/window-room.js';

/**
 * What the admit phase decides (docs/behaviour.md §3.4a, §3.4): what is held
 * back and why, and the plan. Each check's candidates are found once, as the
 * check starts, and its guards, inputs and actions read them from here.
 */
export interface AdmitContext {
  /** Images the admission checks held back this tick, and why. */
  readonly holds: Holds;
  /** The answers every check after the fleet halt judges: an image it sends back carries the halt's pin (§3.4b). */
  readonly answers: readonly ImageResolution[];
  /** The answered digests that are the very digest quarantined for their image (I30). */
  readonly quarantined: readonly AnsweredDigest[];
  /** The changed digests the digest-age check judges: none held before it, no halt pin (§3.4a step 2). */
  readonly changed: readonly ChangedDigest[];
  /** The annotations the digest-age check read: its pending records (§3.4a step 2). */
  readonly ageBookkeeping: Annotations;
  /** The digest-age check's pending-record write; nothing when the check is off, had nothing to judge, or failed. */
  readonly pendingWrite: BookkeepingChanges;
  /** The digests the signature check asks about this tick, the halt's pins among them (§3.4a step 3). */
  readonly signatureSubjects: readonly SignatureSubject[];
  /** VERIFY_SIGNATURES ≠ off: what the signature check said of each digest it asked about (§3.4a step 3). */
  readonly signatureChecks: readonly SignatureCheckReport[];
  /** The changed digests the platform check compares with their recorded ones (§3.4a step 4). */
  readonly platformSubjects: readonly PlatformSubject[];
  /** The fleet halt (docs/behaviour.md §3.4b): the images it sends back to its pin, whose pin every later check judges. */
  readonly haltPins: HaltPins;
  /** The changed digests the maintenance window judges: none held before it, no halt pin (§3.4d). */
  readonly windowed: readonly ChangedDigest[];
  /** MAINTENANCE_WINDOW: the clock the plan's room is judged at (§3.4d); undefined until read. */
  readonly windowNowMs: number | undefined;
  /** MAINTENANCE_WINDOW: what the window said of this tick's re-images (§3.4d); undefined until judged. */
  readonly window: WindowJudgement | undefined;
  /** MAINTENANCE_WINDOW: the plan was judged by the window after it was made (§3.4d): once a tick. */
  readonly windowRoomJudged: boolean;
  /** PREPULL_OUTSIDE_WINDOW=on: the held plan was staged ahead of the window this tick (§3.4d). */
  readonly stagedAhead: boolean;
  /** The plan, made once after the last check; nothing to do until then. */
  readonly plan: RefreshPlan;
}

export const ADMITTED_NOTHING: AdmitContext = {
  holds: {},
  answers: [],
  quarantined: [],
  changed: [],
  ageBookkeeping: {},
  pendingWrite: {},
  signatureSubjects: [],
  signatureChecks: [],
  platformSubjects: [],
  haltPins: NO_HALT_PINS,
  windowed: [],
  windowNowMs: undefined,
  window: undefined,
  windowRoomJudged: false,
  stagedAhead: false,
  plan: EMPTY_PLAN,
};
