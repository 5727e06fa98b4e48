import { z } from 'zod';
import { builtOnce } from './built-once';
import type { Usage } from './messages';

/**
 * The worker's price table, US dollars per million tokens by model name: each call's `usage.costUsd` and a run's
 * `costBudget` count with it.
 */

/** One model's prices, in US dollars per million tokens. */
const modelPriceSchema = builtOnce('prices.modelPrice', () =>
  z.strictObject({
    /** Dollars per million prompt (input) tokens. */
    inputPerMTok: z.number().nonnegative().finite(),
    /** Dollars per million completion (output) tokens, reasoning tokens among them. */
    outputPerMTok: z.number().nonnegative().finite(),
    /**
     * Dollars per million prompt tokens read from the provider's prompt cache (`cachedPromptTokens`). Without it,
     * cached tokens are priced at `inputPerMTok` and the usage says so (`cachedAtInputPrice`).
     */
    cachedInputPerMTok: z.number().nonnegative().finite().optional(),
  }),
);
export type ModelPrice = z.infer<typeof modelPriceSchema>;

/** Prices by model name: the name a run asks for (or the worker's default), else the name the provider answers with. */
export const priceTableSchema = builtOnce('prices.priceTable', () => z.record(z.string().min(1), modelPriceSchema));
export type PriceTable = z.infer<typeof priceTableSchema>;

/** The price of `model` in `prices`: by the name asked for, else by the name the provider answered with. */
export function priceOf(prices: PriceTable | undefined, requested: string, answered?: string): ModelPrice | undefined {
  if (prices === undefined) return undefined;
  const own = (name: string | undefined) =>
    name !== undefined && Object.hasOwn(prices, name) ? prices[name] : undefined;
  return own(requested) ?? own(answered);
}

/** Dollars `usage` costs at `price`: cached prompt tokens at `cachedInputPerMTok` where the price has one. */
export function costOf(
  usage: Pick<Usage, 'promptTokens' | 'completionTokens' | 'cachedPromptTokens'>,
  price: ModelPrice,
): number {
  // A provider's count is untrusted: cached tokens are a part of the prompt's, never more than all of it.
  const cached =
    price.cachedInputPerMTok === undefined ? 0 : Math.min(usage.cachedPromptTokens ?? 0, usage.promptTokens);
  const input = (usage.promptTokens - cached) * price.inputPerMTok + cached * (price.cachedInputPerMTok ?? 0);
  return (input + usage.completionTokens * price.outputPerMTok) / 1_000_000;
}

/** Whether `costOf(usage, price)` priced cached prompt tokens at the full input price, for want of a cached price. */
export function pricesCachedAsInput(usage: Pick<Usage, 'cachedPromptTokens'>, price: ModelPrice): boolean {
  return price.cachedInputPerMTok === undefined && (usage.cachedPromptTokens ?? 0) > 0;
}

/**
 * A run's cost budget: before each model call, a run that has spent `maxUsd` or more fails with
 * `CostBudgetExceeded` (as `tokenBudget` does with `TokenBudgetExhausted`). Each call is priced by the
 * worker's table; a call whose model has no price fails the run (`ModelCall.PriceUnknown`) before it is sent.
 */
export const costBudgetSchema = builtOnce('prices.costBudget', () =>
  z.strictObject({
    /** US dollars the run may spend on model calls. */
    maxUsd: z.number().positive('maxUsd must be more than 0').finite(),
  }),
);
export type CostBudget = z.infer<typeof costBudgetSchema>;
