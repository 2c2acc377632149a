import { signatureModeOf } from '../../config/signature-config.js';
import { changedDigests } from '../../domain/admission.js';
import type { Annotations } from '../../domain/bookkeeping.js';
import { decideDigestAges, requiredDigestAgeMs, withSoakingHolds, withUnjudgedHolds } from '../../domain/digest-age.js';
import {
  admitUnderHalt,
  answersAfterHalt,
  holdEveryAnswer,
  withoutHaltPins,
} from '../../domain/fleet-halt-admission.js';
import { platformReportsOf, platformSubjects, withPlatformHolds } from '../../domain/platforms.js';
import type { PortError } from '../../domain/port-error.js';
import { quarantinedThisTick, withQuarantineHolds } from '../../domain/quarantine.js';
import {
  admitSignatures,
  type SignatureCheckReport,
  signatureReportsOf,
  signatureSubjectsOf,
} from '../../domain/signature-admission.js';
import { planTick } from '../../domain/tick-plan.js';
import type { PlatformAnswers, SignatureAnswers } from '../tick-actors.js';
import { tickAssign } from '../tick-assign.js';
import { said, type TickContext } from '../tick-context.js';
import { planInputsOf } from '../tick-wide/plan-inputs.js';
import * as say from './messages.js';

// The admit phase's named actions (docs/behaviour.md §3.4a, §3.4): each check
// adds its holds (the first check to hold an image wins), says what it found,
// and the plan is made once, after the last.

/** The answers every check after the fleet halt judges: an image sent back carries the halt's pin (§3.4b). */
const answersOf = ({ resolve, admit }: TickContext) => answersAfterHalt(resolve.resolutions, admit.haltPins);

/** The changed digests no earlier check held back: what the digest-age check judges (a halt's pin does not soak). */
const changedOf = (context: TickContext) =>
  withoutHaltPins(
    changedDigests(answersOf(context), context.resolve.recorded, context.admit.holds),
    context.admit.haltPins,
  );

/** Hold what may not go on, say what each check found, and keep the reports for the outcome. */
const signaturesJudged = (context: TickContext, reports: readonly SignatureCheckReport[]) => {
  const { holds, judged } = admitSignatures(signatureModeOf(context.config), context.admit.holds, reports);
  return {
    admit: { ...context.admit, holds, signatureChecks: [...context.admit.signatureChecks, ...reports] },
    events: said(context, ...judged.map((j) => say.announceSignatureCheck(j.judgement, j))),
  };
};

const subjectsOf = (context: TickContext) =>
  signatureSubjectsOf(
    signatureModeOf(context.config),
    answersOf(context),
    context.resolve.recorded,
    context.admit.holds,
    context.admit.haltPins,
  );

/** docs/behaviour.md §3.4a step 4: each changed digest judged from its two manifests' answers, held or admitted. */
const platformsJudged = (context: TickContext, answerOf: (index: number) => PlatformAnswers[number] | undefined) => {
  const { resolve, admit } = context;
  const reports = platformReportsOf(
    platformSubjects(answersAfterHalt(resolve.resolutions, admit.haltPins), resolve.recorded, admit.holds),
    answerOf,
  );
  return {
    admit: { ...admit, holds: withPlatformHolds(admit.holds, reports) },
    events: said(context, ...reports.map(say.announcePlatformCheck)),
  };
};

export const admitActions = {
  /** §3.4b — an unverified halt: every answer held, nothing moves or is recorded this tick (I37). */
  holdEveryAnswerForHalt: tickAssign(({ context }) => {
    const { resolve, admit } = context;
    return { admit: { ...admit, holds: holdEveryAnswer(resolve.resolutions, resolve.recorded, admit.holds) } };
  }),
  /** §3.4b — the halt's verdict on each answer: held, sent back to the pin, or left alone; each said. */
  admitByFleetHalt: tickAssign(({ context }) => {
    const { config, resolve, admit, halt } = context;
    const decision = admitUnderHalt(resolve.resolutions, resolve.recorded, admit.holds, halt.reading, halt.nowMs);
    return {
      admit: { ...admit, holds: decision.holds, haltPins: decision.pins },
      events: said(context, ...say.haltAdmissionLines(config, decision)),
    };
  }),
  holdQuarantinedDigests: tickAssign(({ context }) => {
    const { resolve, admit } = context;
    const held = quarantinedThisTick(answersOf(context), resolve.recorded, admit.holds, resolve.bookkeeping);
    return {
      admit: { ...admit, holds: withQuarantineHolds(admit.holds, held) },
      events: said(context, ...held.map((c) => say.digestQuarantined(context.config, c.image, c.to))),
    };
  }),
  rememberAgeBookkeeping: tickAssign(({ context }, params: { annotations: Annotations }) => ({
    admit: { ...context.admit, ageBookkeeping: params.annotations },
  })),
  /** Judge every changed digest at `now`: too young → held (Soaking), said once; first sightings to be written. */
  judgeDigestAges: tickAssign(({ context }, params: { nowMs: number }) => {
    const { resolve, admit } = context;
    const decision = decideDigestAges(
      changedOf(context),
      answersOf(context),
      resolve.recorded,
      admit.ageBookkeeping,
      params.nowMs,
      requiredDigestAgeMs(context.config),
    );
    return {
      admit: { ...admit, holds: withSoakingHolds(admit.holds, decision), pendingWrite: decision.changes },
      events: said(context, ...say.digestAgeLines(context.config, decision, params.nowMs)),
    };
  }),
  /** Fail closed (docs/behaviour.md §3.4a): an age that cannot be judged holds every changed digest back. */
  holdEveryChangedDigest: tickAssign(({ context }) => ({
    admit: { ...context.admit, holds: withUnjudgedHolds(context.admit.holds, changedOf(context)) },
  })),
  warnPendingDigestsUnreadable: tickAssign(({ context }, params: { error: PortError }) => ({
    events: said(context, say.pendingDigestsUnreadable(context.config, params.error)),
  })),
  warnClockUnavailable: tickAssign(({ context }, params: { error: PortError }) => ({
    events: said(context, say.clockUnavailable(params.error)),
  })),
  warnPendingDigestsWriteFailed: tickAssign(({ context }, params: { error: PortError }) => ({
    events: said(context, say.pendingDigestsWriteFailed(context.config, params.error)),
  })),
  /** docs/behaviour.md §3.4a step 3: each answer held, warned or admitted, by mode (issue 15). */
  admitBySignature: tickAssign(({ context }, params: { answers: SignatureAnswers }) =>
    signaturesJudged(
      context,
      signatureReportsOf(subjectsOf(context), (index) => params.answers[index]),
    ),
  ),
  /** The check failed as a whole (a defect of the port): no digest is verified, every one waits (fail closed). */
  holdUncheckedSignatures: tickAssign(({ context }, params: { error: PortError }) =>
    signaturesJudged(
      context,
      signatureReportsOf(subjectsOf(context), () => ({ _tag: 'Left', left: params.error })),
    ),
  ),
  /** PLATFORM_CHECK=on: each changed digest provides every platform of the recorded one, or is held. */
  admitByPlatform: tickAssign(({ context }, params: { answers: PlatformAnswers }) =>
    platformsJudged(context, (index) => params.answers[index]),
  ),
  /** The platform check failed as a whole (a defect of the port): no digest is admitted (fail closed). */
  holdUncheckedPlatforms: tickAssign(({ context }, params: { error: PortError }) =>
    platformsJudged(context, () => ({ _tag: 'Left', left: params.error })),
  ),
  planRefresh: tickAssign(({ context }) => {
    const { config, admit } = context;
    const plan = planTick(planInputsOf(context));
    return {
      admit: { ...admit, plan },
      events: said(context, ...say.planLines(config, plan, admit.holds, admit.haltPins)),
    };
  }),
};
