import { ApplicationFailure } from '@temporalio/common';
import { priceUnknownFailure, pricedUsage } from '../../src/activities/model-cost';
import { loadModelConfig, ConfigError } from '../../src/config';
import { addUsage, subtractUsage, ZERO_USAGE } from '../../src/shared/messages';
import { costOf, priceOf, type PriceTable } from '../../src/shared/prices';
import { parseAgentInput } from '../../src/shared/agent-input';
import { findCostBreach } from '../../src/workflows/rules/cost-budget';

const prices: PriceTable = {
  'gpt-4o': { inputPerMTok: 2.5, outputPerMTok: 10 },
  cheap: { inputPerMTok: 0.1, outputPerMTok: 0.4 },
};
const usage = (promptTokens: number, completionTokens: number, costUsd?: number) => ({
  promptTokens,
  completionTokens,
  totalTokens: promptTokens + completionTokens,
  ...(costUsd === undefined ? {} : { costUsd }),
});

describe('prices', () => {
  test("a call costs its prompt and completion tokens at the model's prices per million", () => {
    expect(costOf(usage(1_000_000, 0), prices['gpt-4o']!)).toBe(2.5);
    expect(costOf(usage(2_000, 500), prices['gpt-4o']!)).toBeCloseTo(0.01, 12);
  });

  test('a model is found by the name asked for, else by the name the provider answered with; never on the prototype', () => {
    expect(priceOf(prices, 'cheap')).toEqual(prices.cheap);
    expect(priceOf(prices, 'gpt-4o-latest', 'gpt-4o')).toEqual(prices['gpt-4o']);
    expect(priceOf(prices, 'other', 'other-2024')).toBeUndefined();
    expect(priceOf(prices, 'constructor')).toBeUndefined();
    expect(priceOf(undefined, 'cheap')).toBeUndefined();
  });

  test('pricedUsage adds costUsd when the model has a price, and leaves unpriced usage as it was', () => {
    expect(pricedUsage(usage(1_000, 1_000), prices, 'cheap')).toEqual({ ...usage(1_000, 1_000), costUsd: 0.0005 });
    expect(pricedUsage(usage(1_000, 1_000), prices, 'unknown')).toEqual(usage(1_000, 1_000));
  });

  test('an unpriced model under a cost budget is a non-retryable ModelCall.PriceUnknown naming the fix', () => {
    const failure = priceUnknownFailure('mystery', prices);
    expect(failure).toBeInstanceOf(ApplicationFailure);
    expect(failure.type).toBe('ModelCall.PriceUnknown');
    expect(failure.nonRetryable).toBe(true);
    expect(failure.message).toContain('no price for model "mystery" (priced: cheap, gpt-4o)');
    expect(failure.message).toContain('AGENT_MODEL_PRICES');
  });
});

describe('usage with cost', () => {
  test('addUsage sums costUsd where either side has one; unpriced usage stays without one', () => {
    expect(addUsage(usage(1, 1, 0.1), usage(2, 2, 0.2))).toEqual(usage(3, 3, 0.3));
    expect(addUsage(ZERO_USAGE, usage(2, 2, 0.25))).toEqual(usage(2, 2, 0.25));
    expect(addUsage(usage(1, 1), usage(2, 2))).toEqual(usage(3, 3));
    expect('costUsd' in addUsage(usage(1, 1), usage(2, 2))).toBe(false);
  });

  test('subtractUsage takes the cost of a part of the run', () => {
    expect(subtractUsage(usage(3, 3, 0.3), usage(1, 1, 0.1))).toEqual(usage(2, 2, 0.2));
    expect(subtractUsage(usage(3, 3), usage(1, 1))).toEqual(usage(2, 2));
  });
});

describe('findCostBreach', () => {
  test('holds once the spending reaches maxUsd; never without a budget', () => {
    expect(findCostBreach(usage(1, 1, 0.05), { maxUsd: 0.1 })).toBeUndefined();
    expect(findCostBreach(usage(1, 1, 0.1), { maxUsd: 0.1 })).toEqual({ spentUsd: 0.1, maxUsd: 0.1 });
    expect(findCostBreach(usage(1, 1, 5), undefined)).toBeUndefined();
    expect(findCostBreach(ZERO_USAGE, { maxUsd: 0.1 })).toBeUndefined();
  });
});

describe('costBudget in the input', () => {
  test('takes a positive maxUsd and nothing else', () => {
    expect(parseAgentInput({ tools: [], message: 'hi', costBudget: { maxUsd: 0.5 } })).toMatchObject({
      ok: true,
      input: { costBudget: { maxUsd: 0.5 } },
    });
    for (const costBudget of [{ maxUsd: 0 }, { maxUsd: -1 }, { maxUsd: '1' }, {}, { maxUsd: 1, currency: 'EUR' }]) {
      const parsed = parseAgentInput({ tools: [], message: 'hi', costBudget });
      expect(parsed.ok).toBe(false);
      if (!parsed.ok) expect(parsed.problems.join('\n')).toContain('costBudget');
    }
  });
});

describe('AGENT_MODEL_PRICES', () => {
  const base = { OPENAI_API_KEY: 'sk-test-key' };
  test("is read as the worker's price table", () => {
    expect(loadModelConfig({ ...base, AGENT_MODEL_PRICES: JSON.stringify(prices) }).prices).toEqual(prices);
    expect(loadModelConfig(base).prices).toBeUndefined();
  });

  test('a table that is not JSON, or not prices, fails the worker at start naming the variable', () => {
    expect(() => loadModelConfig({ ...base, AGENT_MODEL_PRICES: '{gpt-4o: 1}' })).toThrow(ConfigError);
    expect(() => loadModelConfig({ ...base, AGENT_MODEL_PRICES: '{gpt-4o: 1}' })).toThrow(
      /AGENT_MODEL_PRICES=.*expected JSON/,
    );
    expect(() =>
      loadModelConfig({ ...base, AGENT_MODEL_PRICES: JSON.stringify({ m: { inputPerMTok: -1, outputPerMTok: 1 } }) }),
    ).toThrow(/AGENT_MODEL_PRICES/);
  });
});
