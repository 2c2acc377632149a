import type { RefreshPlan } from '../domain/plan.js';
import type { TickContext } from './tick-context.js';
import { isFinding } from './tick-event.js';
import type { DigestChange, TickOutcome, TickResult } from './tick-outcome.js';

/** The drift a plan acts on: a held image's, or one a decoupled pass cannot record, is a verdict only. */
const digestChangesOf = (plan: RefreshPlan): DigestChange[] =>
  plan.verdicts.flatMap((v) =>
    // Stryker disable next-line ConditionalExpression: plan.drift holds only images whose verdict is Drift; the tag check narrows the type for from/to
    v._tag === 'Drift' && plan.drift[v.image] !== undefined ? [{ image: v.image, from: v.from, to: v.to }] : [],
  );

/** I18: exit 1 iff the tick produced a finding; 0 otherwise (2 is the config parser's). */
export const outcomeOf = (reached: TickResult, context: TickContext): TickOutcome => {
  const findings = context.events.filter(isFinding);
  // A decoupled pass that ran through still ends as the skip it followed.
  const result = reached === 'complete' && context.skipResult._tag === 'Some' ? context.skipResult.value : reached;
  const observed = context.settledness._tag === 'Some' ? { settledness: context.settledness.value } : {};
  return {
    result,
    exitCode: findings.length > 0 ? 1 : 0,
    ...observed,
    events: context.events,
    findings,
    writes: context.writes,
    reimages: context.reimages,
    ...(context.revert._tag === 'Some' ? { reverts: context.reverts } : {}),
    digestChanges: context.plan._tag === 'None' ? [] : digestChangesOf(context.plan.value),
    ...(context.signatureChecks.length > 0 ? { signatureChecks: context.signatureChecks } : {}),
  };
};
