import type { TickConfig } from '../config/tick-config.js';
import type { ImageResolution } from './plan.js';

// I7b: every re-image makes the kubelets pull (a DaemonSet: one pull
// per node); with the registry's pull budget nearly spent, a rollout dies of
// ImagePullBackOff — the churn the flap guard exists to prevent. The budget
// is judged once from this tick's answers, and the verdict carries its
// reasons, as kubectl's Status() does: the guard asks `low`, the
// REGISTRY_BUDGET_LOW line only words `reasons`.

/** Why the budget is low: a 429 this tick, or a reported remainder below REGISTRY_BUDGET_FLOOR. */
export type BudgetReason =
  | { readonly _tag: 'RateLimited' }
  | { readonly _tag: 'BelowFloor'; readonly remaining: number; readonly floor: number };

export interface RegistryBudget {
  /** True iff there is a reason: no re-image starts this tick. */
  readonly low: boolean;
  readonly reasons: readonly BudgetReason[];
}

/** Before the registry answered: nothing known to be low. */
export const BUDGET_UNKNOWN: RegistryBudget = { low: false, reasons: [] };

/** The lowest `ratelimit-remaining` the registry reported this tick, if any did. */
export const lowestRateLimitRemaining = (resolutions: readonly ImageResolution[]): number | undefined => {
  const reported = resolutions.flatMap((r) =>
    r._tag === 'Resolved' && r.rateLimitRemaining._tag === 'Some' ? [r.rateLimitRemaining.value] : [],
  );
  return reported.length === 0 ? undefined : Math.min(...reported);
};

export const wasRateLimited = (resolutions: readonly ImageResolution[]): boolean =>
  resolutions.some((r) => r._tag === 'Unresolved' && r.error._tag === 'RateLimited');

/** Any 429 this tick, or a reported budget below REGISTRY_BUDGET_FLOOR; never with REGISTRY_BUDGET_FLOOR=off (the script has no such guard). */
export const registryBudgetOf = (config: TickConfig, resolutions: readonly ImageResolution[]): RegistryBudget => {
  // Only an explicit REGISTRY_BUDGET_FLOOR=off turns the guard off; a config without the field keeps it (fail closed).
  if (config.registryBudgetGuard === false) return BUDGET_UNKNOWN;
  // No budget reported is no budget known to be low.
  const lowest = lowestRateLimitRemaining(resolutions) ?? Number.POSITIVE_INFINITY;
  const reasons: BudgetReason[] = [
    ...(wasRateLimited(resolutions) ? [{ _tag: 'RateLimited' } as const] : []),
    ...(lowest < config.registryBudgetFloor
      ? [{ _tag: 'BelowFloor', remaining: lowest, floor: config.registryBudgetFloor } as const]
      : []),
  ];
  return { low: reasons.length > 0, reasons };
};

export const isRegistryBudgetLow = (config: TickConfig, resolutions: readonly ImageResolution[]): boolean =>
  registryBudgetOf(config, resolutions).low;
