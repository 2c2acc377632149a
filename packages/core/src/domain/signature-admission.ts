import type { Either } from 'fp-ts/lib/Either.js';
import type { Topology } from '../config/profile/topology.js';
import type { SignatureMode } from '../config/signature-config.js';
import { type Holds, unheldVerdicts, withHold } from './admission.js';
import type { RecordedDigests } from './bookkeeping.js';
import type { Digest } from './digest.js';
import type { HaltPins } from './fleet-halt-admission.js';
import type { ImageResolution } from './plan.js';
import type { RegistryError } from './port-error.js';
import type { SignatureFormat, SignatureVerdict } from './signature-verdict.js';
import { imageOf } from './workloads.js';

// docs/behaviour.md §3.4a step 3, as data: which digests the
// signature check asks about, and what each answer does. A changed digest
// is gated: under `enforce` only a Verified one may go on; a registry
// failure holds it under `warn` and `enforce` alike (never a rejection,
// never "verified"). A first observation is checked report-only: recording
// a baseline rolls no pod (I8), so nothing needs admitting, and a fresh
// install on an edge already running an unsigned image must not fail every
// tick for something it did not deploy.

/** One digest the signature check asks about. */
export interface SignatureSubject {
  readonly image: string;
  /** The registry host (`docker.io` for Docker Hub). */
  readonly host: string;
  readonly repo: string;
  readonly digest: Digest;
  /** A changed digest (gated); false: a first observation, checked report-only. */
  readonly gated: boolean;
  /**
   * The fleet halt's pin (docs/behaviour.md §3.4b): checked whatever
   * VERIFY_SIGNATURES says, and judged as under `enforce` (I38).
   */
  readonly pin?: true;
}

/** What the check said of one digest: for the log, the re-image Event and `status`. */
export type SignatureResult =
  | { readonly _tag: 'Verified'; readonly by: string; readonly format: SignatureFormat }
  | { readonly _tag: 'NotVerified'; readonly why: string }
  /** A registry failure left no verdict. */
  | { readonly _tag: 'CheckFailed'; readonly error: RegistryError };

/** One digest's check, as the tick outcome reports it. */
export interface SignatureCheckReport {
  readonly image: string;
  readonly repo: string;
  readonly digest: Digest;
  readonly gated: boolean;
  /** The fleet halt's pin: judged as under `enforce` (docs/behaviour.md §3.4b). */
  readonly pin?: true;
  readonly result: SignatureResult;
}

/**
 * The digests to check this tick, in the images' order: every changed digest
 * no earlier admission check held back, and every first observation
 * (report-only). An unchanged digest was checked when it changed.
 */
export const signatureSubjects = (
  topology: Topology,
  resolutions: readonly ImageResolution[],
  recorded: RecordedDigests,
  holds: Holds,
): readonly SignatureSubject[] =>
  unheldVerdicts(resolutions, recorded, holds).flatMap((verdict): SignatureSubject[] => {
    if (verdict._tag === 'Unchanged') return [];
    const digest = verdict._tag === 'Drift' ? verdict.to : verdict.digest;
    const { host, repo } = imageOf(topology, verdict.image);
    return [{ image: verdict.image, host, repo, digest, gated: verdict._tag === 'Drift' }];
  });

/**
 * The digests the check asks about, the fleet halt's pins among them
 * (docs/behaviour.md §3.4b): with VERIFY_SIGNATURES=off only the pins, each
 * marked so that it is judged as under `enforce`.
 */
export const signatureSubjectsOf = (
  topology: Topology,
  mode: SignatureMode,
  resolutions: readonly ImageResolution[],
  recorded: RecordedDigests,
  holds: Holds,
  pins: HaltPins,
): readonly SignatureSubject[] =>
  signatureSubjects(topology, resolutions, recorded, holds).flatMap((subject): SignatureSubject[] => {
    const isPin = subject.gated && pins[subject.image]?.to === subject.digest;
    if (isPin) return [{ ...subject, pin: true }];
    return mode === 'off' ? [] : [subject];
  });

/** The port's answer (a missing one is no verdict: fail closed) as a result. */
export const signatureResultOf = (answer: Either<RegistryError, SignatureVerdict> | undefined): SignatureResult => {
  if (answer === undefined) {
    return {
      _tag: 'CheckFailed',
      error: { _tag: 'Malformed', message: 'the signature port gave no answer for this digest' },
    };
  }
  if (answer._tag === 'Left') return { _tag: 'CheckFailed', error: answer.left };
  return answer.right._tag === 'Verified'
    ? { _tag: 'Verified', by: answer.right.by, format: answer.right.format }
    : { _tag: 'NotVerified', why: answer.right.why };
};

/**
 * What the check's answer means for one digest under `mode`, with its
 * reason (docs/behaviour.md §3.4a step 3): a first observation is a
 * `Baseline`, reported only (I8); a changed digest is `Verified`, `Rejected`
 * (enforce: held, a finding), `Unverified` (warn: said loudly, re-imaged) or
 * `CheckFailed` (a registry failure left no verdict: held under either mode,
 * a resolution failure retried next tick). The hold and the operator's line
 * both read this one judgement.
 */
export type SignatureJudgement =
  | { readonly _tag: 'Baseline'; readonly result: SignatureResult }
  | { readonly _tag: 'Verified'; readonly by: string }
  | { readonly _tag: 'Rejected'; readonly why: string }
  | { readonly _tag: 'Unverified'; readonly why: string }
  | { readonly _tag: 'CheckFailed'; readonly error: RegistryError };

/** A changed (gated) digest's result under `mode`. */
export const judgeGated = (mode: SignatureMode, result: SignatureResult): SignatureJudgement => {
  switch (result._tag) {
    case 'Verified':
      return { _tag: 'Verified', by: result.by };
    case 'NotVerified':
      return mode === 'enforce' ? { _tag: 'Rejected', why: result.why } : { _tag: 'Unverified', why: result.why };
    case 'CheckFailed':
      return { _tag: 'CheckFailed', error: result.error };
  }
};

export const judgeSignature = (
  mode: SignatureMode,
  report: Pick<SignatureCheckReport, 'gated' | 'result' | 'pin'>,
): SignatureJudgement =>
  report.gated
    ? judgeGated(report.pin === true ? 'enforce' : mode, report.result)
    : { _tag: 'Baseline', result: report.result };

/** Why a judged digest is held back, or undefined when it may go on. */
const holdOfJudgement = (
  judgement: SignatureJudgement,
): { readonly why: string; readonly check: 'NotVerified' | 'CheckFailed' } | undefined => {
  if (judgement._tag === 'CheckFailed') {
    return { why: `${judgement.error._tag}: ${judgement.error.message}`, check: 'CheckFailed' };
  }
  return judgement._tag === 'Rejected' ? { why: judgement.why, check: 'NotVerified' } : undefined;
};

/** Why a gated digest is held back under `mode`, or undefined when it may go on. */
export const signatureHoldOf = (
  mode: SignatureMode,
  result: SignatureResult,
): { readonly why: string; readonly check: 'NotVerified' | 'CheckFailed' } | undefined =>
  holdOfJudgement(judgeGated(mode, result));

/** A report with its judgement. */
export type JudgedSignature = SignatureCheckReport & { readonly judgement: SignatureJudgement };

const withJudgedHolds = (holds: Holds, judged: readonly JudgedSignature[]): Holds =>
  judged.reduce((acc, { image, digest, judgement }) => {
    const hold = holdOfJudgement(judgement);
    return hold === undefined ? acc : withHold(acc, { _tag: 'SignatureNotVerified', image, digest, ...hold });
  }, holds);

const judgedUnder = (mode: SignatureMode, reports: readonly SignatureCheckReport[]): readonly JudgedSignature[] =>
  reports.map((report) => ({ ...report, judgement: judgeSignature(mode, report) }));

/** The holds the reports add: gated digests that may not go on (docs/behaviour.md §3.4a). */
export const signatureHolds = (mode: SignatureMode, holds: Holds, reports: readonly SignatureCheckReport[]): Holds =>
  withJudgedHolds(holds, judgedUnder(mode, reports));

/** Each subject with what the check said of it; a missing answer is no verdict (fail closed). */
export const signatureReportsOf = (
  subjects: readonly SignatureSubject[],
  answerOf: (index: number) => Either<RegistryError, SignatureVerdict> | undefined,
): readonly SignatureCheckReport[] =>
  subjects.map((subject, index) => ({ ...subject, result: signatureResultOf(answerOf(index)) }));

/** The check's reports judged: the holds they add and each judgement, in order (what the lines word). */
export const admitSignatures = (
  mode: SignatureMode,
  holds: Holds,
  reports: readonly SignatureCheckReport[],
): { readonly holds: Holds; readonly judged: readonly JudgedSignature[] } => {
  const judged = judgedUnder(mode, reports);
  return { holds: withJudgedHolds(holds, judged), judged };
};
