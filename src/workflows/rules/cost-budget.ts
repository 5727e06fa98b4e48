import type { CostBudget } from '../../shared/prices';
import type { Usage } from '../../shared/messages';

/**
 * `costBudget`, checked before each model call: the spending and budget once `budget.maxUsd` is reached, else
 * undefined. A run with a budget refuses unpriced models (`ModelCall.PriceUnknown`), so `costUsd` is never short.
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
