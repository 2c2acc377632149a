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
import { promotionActions } from './promotion-actions.js';
import { windowActions } from './window-actions.js';

// The admit phase's named actions (docs/behaviour.md §3.4a, §3.4): each check
// finds its candidates once as it starts, adds its holds (the first check to
// hold an image wins) and says what it found; the plan is made once, after
// the last.

/** Hold what may not go on, say what each check found, and keep the reports for the outcome. */
const signaturesJudged = (context: TickContext, reports: readonly SignatureCheckReport[]) => {
  const { holds, judged } = admitSignatures(signatureModeOf(context.config), context.admit.holds, reports);
  return {
    admit: { ...context.admit, holds, signatureChecks: [...context.admit.signatureChecks, ...reports] },
    events: said(context, ...judged.map((j) => say.announceSignatureCheck(j.judgement, j))),
  };
};

/** docs/behaviour.md §3.4a step 4: each changed digest judged from its two manifests' answers, held or admitted. */
const platformsJudged = (context: TickContext, answerOf: (index: number) => PlatformAnswers[number] | undefined) => {
  const { admit } = context;
  const reports = platformReportsOf(admit.platformSubjects, answerOf);
  return {
    admit: { ...admit, holds: withPlatformHolds(admit.holds, reports) },
    events: said(context, ...reports.map(say.announcePlatformCheck)),
  };
};

export const admitActions = {
  ...windowActions,
  ...promotionActions,
  /** Admission starts from the registry's answers as they are; a halt in force may send some back to its pin. */
  takeAnswers: tickAssign(({ context }) => ({ admit: { ...context.admit, answers: context.resolve.resolutions } })),
  /** §3.4b — an unverified halt: every answer held, nothing moves or is recorded this tick (I37). */
  holdEveryAnswerForHalt: tickAssign(({ context }) => {
    const { resolve, admit } = context;
    return { admit: { ...admit, holds: holdEveryAnswer(resolve.resolutions, resolve.recorded, admit.holds) } };
  }),
  /** §3.4b — the halt's verdict on each answer: held, sent back to the pin, or left alone; each said. */
  admitByFleetHalt: tickAssign(({ context }) => {
    const { config, resolve, admit, halt } = context;
    const decision = admitUnderHalt(
      config.topology,
      resolve.resolutions,
      resolve.recorded,
      admit.holds,
      halt.reading,
      halt.nowMs,
    );
    return {
      admit: {
        ...admit,
        holds: decision.holds,
        haltPins: decision.pins,
        answers: answersAfterHalt(resolve.resolutions, decision.pins),
      },
      events: said(context, ...say.haltAdmissionLines(config, decision)),
    };
  }),
  /** §3.4a — the answered digests (changed, or first observed) that are the quarantined ones (I30). */
  findQuarantinedDigests: tickAssign(({ context: { config, resolve, admit } }) => ({
    admit: {
      ...admit,
      quarantined: quarantinedThisTick(
        config.topology,
        admit.answers,
        resolve.recorded,
        admit.holds,
        resolve.bookkeeping,
      ),
    },
  })),
  /** Each quarantined digest held and said; with none, nothing changes. */
  holdQuarantinedDigests: tickAssign(({ context }) => {
    const { admit } = context;
    return {
      admit: { ...admit, holds: withQuarantineHolds(admit.holds, admit.quarantined) },
      events: said(context, ...admit.quarantined.map((c) => say.digestQuarantined(context.config, c.image, c.to))),
    };
  }),
  /** §3.4a step 2 — the changed digests no earlier check held back: what the soak judges (a halt's pin does not soak). */
  findChangedDigests: tickAssign(({ context: { resolve, admit } }) => ({
    admit: {
      ...admit,
      changed: withoutHaltPins(changedDigests(admit.answers, resolve.recorded, admit.holds), admit.haltPins),
    },
  })),
  rememberAgeBookkeeping: tickAssign(({ context }, params: { annotations: Annotations }) => ({
    admit: { ...context.admit, ageBookkeeping: params.annotations },
  })),
  /** Judge every changed digest at `now`: too young → held (Soaking), said once; first sightings to be written. */
  judgeDigestAges: tickAssign(({ context }, params: { nowMs: number }) => {
    const { config, resolve, admit } = context;
    const decision = decideDigestAges(
      config.topology,
      admit.changed,
      admit.answers,
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
  /** The pending records or the clock could not be read: the soak holds every changed digest (fail closed). */
  holdEveryChangedDigest: tickAssign(({ context }) => ({
    admit: { ...context.admit, holds: withUnjudgedHolds(context.admit.holds, context.admit.changed) },
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
  /** §3.4a step 3 — the digests to check: every one changed or first observed that no check held, and the halt's pins. */
  findSignatureSubjects: tickAssign(({ context: { config, resolve, admit } }) => ({
    admit: {
      ...admit,
      signatureSubjects: signatureSubjectsOf(
        config.topology,
        signatureModeOf(config),
        admit.answers,
        resolve.recorded,
        admit.holds,
        admit.haltPins,
      ),
    },
  })),
  /** docs/behaviour.md §3.4a step 3: each answer held, warned or admitted, by mode. */
  admitBySignature: tickAssign(({ context }, params: { answers: SignatureAnswers }) =>
    signaturesJudged(
      context,
      signatureReportsOf(context.admit.signatureSubjects, (index) => params.answers[index]),
    ),
  ),
  /** The check failed as a whole (a defect of the port): no digest is verified, every one waits (fail closed). */
  holdUncheckedSignatures: tickAssign(({ context }, params: { error: PortError }) =>
    signaturesJudged(
      context,
      signatureReportsOf(context.admit.signatureSubjects, () => ({ _tag: 'Left', left: params.error })),
    ),
  ),
  /** §3.4a step 4 — the changed digests the earlier checks left: each is compared with its recorded one. */
  findPlatformSubjects: tickAssign(({ context: { config, resolve, admit } }) => ({
    admit: {
      ...admit,
      platformSubjects: platformSubjects(config.topology, admit.answers, resolve.recorded, admit.holds),
    },
  })),
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
