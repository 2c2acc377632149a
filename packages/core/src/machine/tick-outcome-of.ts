import { haltReportOf } from '../domain/fleet-halt-reading.js';
import { heldDigestsOf, heldResultOf } from '../domain/held-result.js';
import { mirrorMismatchesOf } from '../domain/mirror.js';
import type { RefreshPlan } from '../domain/plan.js';
import { promotionReportOf } from '../domain/promotion-admission.js';
import { isRegistryUnreachable, unresolvedImagesOf } from '../domain/registry-silence.js';
import { failedReimageOf } from '../domain/reimage-run.js';
import { isFrozen, skipResultOf } from '../domain/skip-streak.js';
import type { TickContext } from './tick-context.js';
import { isFinding } from './tick-event.js';
import type { DigestChange, TickOutcome, TickResult } from './tick-outcome.js';

/** The drift a plan acts on: a held image's, or one a decoupled pass cannot record, is a verdict only. */
const digestChangesOf = (plan: RefreshPlan): DigestChange[] =>
  plan.verdicts.flatMap((v) =>
    // Stryker disable next-line ConditionalExpression: plan.drift holds only images whose verdict is Drift; the tag check narrows the type for from/to
    v._tag === 'Drift' && plan.drift[v.image] !== undefined ? [{ image: v.image, from: v.from, to: v.to }] : [],
  );

const failedReimageField = ({ act, admit }: TickContext) => {
  const failed = failedReimageOf(act.failure, admit.plan.changes, act.index, act.reimages);
  return failed === undefined ? {} : { failedReimage: failed };
};

/** I18: exit 1 iff the tick produced a finding; 0 otherwise (2 is the config parser's). */
export const outcomeOf = (reached: TickResult, context: TickContext): TickOutcome => {
  const { observe, resolve, admit, act, wayBack } = context;
  const halt = haltReportOf(context.config, context.halt.reading, context.halt.nowMs);
  const promotion = promotionReportOf(context.config, context.promotion.reading);
  const findings = context.events.filter(isFinding);
  const held = heldDigestsOf(
    admit.holds,
    context.config.topology.images.map((image) => image.name),
  );
  // A decoupled pass that ran through still ends as the skip it followed (a
  // freeze first); a registry silent past its ceiling is the tick's story
  // next (I46); a tick that ran through holding a digest back ends under the
  // hold's name.
  const unreachable = isRegistryUnreachable(resolve.silence);
  const result =
    reached !== 'complete'
      ? reached
      : observe.decoupled.begun && isFrozen(observe.skip)
        ? 'frozen'
        : unreachable
          ? 'registryUnreachable'
          : mirrorMismatchesOf(resolve.resolutions).length > 0
            ? 'mirrorMismatch'
            : observe.decoupled.begun
              ? skipResultOf(observe.skip)
              : (heldResultOf(held, halt?.state === 'unverified', promotion?.state === 'unverified') ?? 'complete');
  return {
    result,
    exitCode: findings.length > 0 ? 1 : 0,
    ...(observe.settledness === undefined ? {} : { settledness: observe.settledness }),
    events: context.events,
    findings,
    ...(resolve.resolutions.length > 0 ? { unresolved: unresolvedImagesOf(resolve.resolutions) } : {}),
    writes: context.writes,
    reimages: act.reimages,
    ...(wayBack.begun ? { reverts: wayBack.reverts } : {}),
    digestChanges: digestChangesOf(admit.plan),
    ...(admit.signatureChecks.length > 0 ? { signatureChecks: admit.signatureChecks } : {}),
    ...(held.length > 0 ? { held } : {}),
    ...failedReimageField(context),
    ...(halt === undefined ? {} : { halt }),
    ...(promotion === undefined ? {} : { promotion }),
    ...(admit.window === undefined ? {} : { window: admit.window }),
  };
};
