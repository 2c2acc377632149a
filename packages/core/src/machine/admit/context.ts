import type { Holds } from '../../domain/admission.js';
import type { Annotations, BookkeepingChanges } from '../../domain/bookkeeping.js';
import { EMPTY_PLAN, type RefreshPlan } from '../../domain/plan.js';
import type { SignatureCheckReport } from '../../domain/signature-admission.js';

/** What the admit phase decides (docs/behaviour.md §3.4a, §3.4): what is held back and why, and the plan. */
export interface AdmitContext {
  /** Images the admission checks held back this tick, and why. */
  readonly holds: Holds;
  /** The annotations the digest-age check read: its pending records (issue 17). */
  readonly ageBookkeeping: Annotations;
  /** The digest-age check's pending-record write; nothing when the check is off, had nothing to judge, or failed. */
  readonly pendingWrite: BookkeepingChanges;
  /** VERIFY_SIGNATURES ≠ off: what the signature check said of each digest it asked about (issue 15). */
  readonly signatureChecks: readonly SignatureCheckReport[];
  /** The plan, made once after the last check; nothing to do until then. */
  readonly plan: RefreshPlan;
}

export const ADMITTED_NOTHING: AdmitContext = {
  holds: {},
  ageBookkeeping: {},
  pendingWrite: {},
  signatureChecks: [],
  plan: EMPTY_PLAN,
};
