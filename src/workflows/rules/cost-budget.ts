import type { CostBudget } from '../../shared/prices';
import type { Usage } from '../../shared/messages';

/**
 * `costBudget`: checked before each model call, as the token budget is. What
 * was spent, and the budget, when the spending has reached `budget.maxUsd`;
 * else undefined (also without a budget). A run with a budget has every call priced: the model
 * call refuses a model the worker has no price for (`ModelCall.PriceUnknown`),
 * so `usage.costUsd` is never silently short.
 */
export function findCostBreach(
  usage: Usage,
  budget: CostBudget | undefined,
): { spentUsd: number; maxUsd: number } | undefined {
  if (budget === undefined) return undefined;
  const spentUsd = usage.costUsd ?? 0;
  return spentUsd >= budget.maxUsd ? { spentUsd, maxUsd: budget.maxUsd } : undefined;
}

/** What a model call's input says under a cost budget: every call must be priced (`ModelCall.PriceUnknown` before it is sent). */
export function priceRequirement(input: { costBudget?: CostBudget }): { requirePrice?: true } {
  return input.costBudget === undefined ? {} : { requirePrice: true };
}
