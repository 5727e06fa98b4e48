import { ApplicationFailure } from '@temporalio/activity';
import { FailureType } from '../shared/failure-catalogue';
import { costOf, priceOf, pricesCachedAsInput, type PriceTable } from '../shared/prices';
import { type Usage } from '../shared/messages';
import type { ParsedCompletion } from './completion-response';

/**
 * `usage` with its cost, when `prices` has the model (by the name asked for, else the name the
 * provider answered with); as it was when it has not, so an unpriced call reports no `costUsd`.
 * Cached prompt tokens priced at the full input price (the model has no cached price) are flagged.
 */
export function pricedUsage(usage: Usage, prices: PriceTable | undefined, requested: string, answered?: string): Usage {
  const price = priceOf(prices, requested, answered);
  if (price === undefined) return usage;
  return {
    ...usage,
    costUsd: costOf(usage, price),
    ...(pricesCachedAsInput(usage, price) ? { cachedAtInputPrice: true as const } : {}),
  };
}

/**
 * A checked completion's usage: a count the provider left out is 0, the total
 * the sum of the others; a detail it left out (cached, reasoning) stays absent, and one
 * larger than the count it is a part of is cut to it. Priced as {@link pricedUsage} prices it.
 */
export function completionUsage(
  completion: ParsedCompletion,
  prices: PriceTable | undefined,
  requested: string,
): Usage {
  const {
    promptTokens = 0,
    completionTokens = 0,
    totalTokens = promptTokens + completionTokens,
    cachedPromptTokens,
    reasoningTokens,
  } = completion.usage;
  const usage: Usage = {
    promptTokens,
    completionTokens,
    totalTokens,
    ...(cachedPromptTokens === undefined ? {} : { cachedPromptTokens: Math.min(cachedPromptTokens, promptTokens) }),
    ...(reasoningTokens === undefined ? {} : { reasoningTokens: Math.min(reasoningTokens, completionTokens) }),
  };
  return pricedUsage(usage, prices, requested, completion.model);
}

/**
 * A run with a `costBudget` asked for a model the worker has no price for: not sent, not retried (the
 * worker's configuration will not change between attempts), naming the fix.
 */
export function priceUnknownFailure(model: string, prices: PriceTable | undefined): ApplicationFailure {
  const known = Object.keys(prices ?? {}).sort();
  return ApplicationFailure.create({
    type: FailureType.modelCallPriceUnknown,
    message:
      `The run has a costBudget, and this worker has no price for model "${model}" ` +
      `(priced: ${known.length === 0 ? 'none' : known.join(', ')}), so the call was not sent. ` +
      "Add the model to the worker's prices (`model.prices` of createAgentWorker, or AGENT_MODEL_PRICES), or run without costBudget.",
    nonRetryable: true,
    details: [{ model, priced: known }],
  });
}
