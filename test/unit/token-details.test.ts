import { CompletionAssembler } from '../../src/activities/completion-stream';
import { parseCompletion, readCompletion, type ParsedCompletion } from '../../src/activities/completion-response';
import { completionUsage, pricedUsage } from '../../src/activities/model-cost';
import { addUsage, subtractUsage, usageSchema, ZERO_USAGE, type Usage } from '../../src/shared/messages';
import { costOf, priceTableSchema, type PriceTable } from '../../src/shared/prices';
import { findLimitBreach } from '../../src/workflows/rules/limit-rules';
import { recordChildUsage, treeUsage } from '../../src/workflows/rules/nested-agents';

/**
 * Cached prompt tokens and reasoning tokens: read from a body or a stream's last chunk, kept absent when the
 * provider does not report them, summed where usage is summed, and cached input priced at its own rate.
 */

const completionWith = (usage: unknown) =>
  JSON.stringify({ model: 'gpt-x', choices: [{ message: { content: 'hi' }, finish_reason: 'stop' }], usage });

/** The usage parseCompletion reads from `body`, failing the test when it does not parse. */
function usageOf(body: string): ParsedCompletion['usage'] {
  const parsed = parseCompletion(body);
  if (!parsed.ok) throw new Error(`expected a completion, got the problem ${parsed.problem}`);
  return parsed.completion.usage;
}

const PRICES: PriceTable = {
  cached: { inputPerMTok: 2, outputPerMTok: 8, cachedInputPerMTok: 0.5 },
  plain: { inputPerMTok: 2, outputPerMTok: 8 },
};

const usage = (promptTokens: number, completionTokens: number, details: Partial<Usage> = {}): Usage => ({
  promptTokens,
  completionTokens,
  totalTokens: promptTokens + completionTokens,
  ...details,
});

describe('reading token details', () => {
  test('a body with prompt_tokens_details and completion_tokens_details', () => {
    const body = completionWith({
      prompt_tokens: 1000,
      completion_tokens: 300,
      total_tokens: 1300,
      prompt_tokens_details: { cached_tokens: 800, audio_tokens: 0 },
      completion_tokens_details: { reasoning_tokens: 200, accepted_prediction_tokens: 0 },
    });
    expect(usageOf(body)).toEqual({
      promptTokens: 1000,
      completionTokens: 300,
      totalTokens: 1300,
      cachedPromptTokens: 800,
      reasoningTokens: 200,
    });
  });

  test('details a provider leaves out, nulls or sends malformed stay absent, and the call still parses', () => {
    const counts = { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 };
    const bare = { promptTokens: 10, completionTokens: 5, totalTokens: 15 };
    expect(usageOf(completionWith(counts))).toEqual(bare);
    expect(
      usageOf(completionWith({ ...counts, prompt_tokens_details: null, completion_tokens_details: null })),
    ).toEqual(bare);
    expect(usageOf(completionWith({ ...counts, prompt_tokens_details: {}, completion_tokens_details: {} }))).toEqual(
      bare,
    );
    expect(
      usageOf(
        completionWith({
          ...counts,
          prompt_tokens_details: { cached_tokens: -3 },
          completion_tokens_details: 'many',
        }),
      ),
    ).toEqual(bare);
  });

  test('a zero the provider reports is kept: it was measured', () => {
    const body = completionWith({
      prompt_tokens: 10,
      completion_tokens: 5,
      total_tokens: 15,
      prompt_tokens_details: { cached_tokens: 0 },
      completion_tokens_details: { reasoning_tokens: 0 },
    });
    expect(usageOf(body)).toMatchObject({ cachedPromptTokens: 0, reasoningTokens: 0 });
  });

  test("a stream's last chunk (include_usage) carries the details into the assembled completion", () => {
    const assembler = new CompletionAssembler();
    const chunk = (payload: object) => JSON.stringify({ id: 'c', object: 'chat.completion.chunk', ...payload });
    for (const data of [
      chunk({ choices: [{ index: 0, delta: { role: 'assistant', content: 'hi' } }] }),
      chunk({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] }),
      chunk({
        choices: [],
        usage: {
          prompt_tokens: 40,
          completion_tokens: 12,
          total_tokens: 52,
          prompt_tokens_details: { cached_tokens: 32 },
          completion_tokens_details: { reasoning_tokens: 9 },
        },
      }),
    ]) {
      expect(assembler.add(data).ok).toBe(true);
    }
    const read = readCompletion(assembler.completion());
    if (!read.ok) throw new Error(read.problem);
    expect(read.completion.usage).toEqual({
      promptTokens: 40,
      completionTokens: 12,
      totalTokens: 52,
      cachedPromptTokens: 32,
      reasoningTokens: 9,
    });
  });

  test("a call's usage keeps the details, cut to the count each is a part of", () => {
    const completion = (parsedUsage: ParsedCompletion['usage']): ParsedCompletion => ({
      content: 'hi',
      toolCalls: [],
      finishReason: 'stop',
      usage: parsedUsage,
    });
    expect(
      completionUsage(
        completion({ promptTokens: 10, completionTokens: 5, cachedPromptTokens: 4, reasoningTokens: 2 }),
        undefined,
        'm',
      ),
    ).toEqual(usage(10, 5, { cachedPromptTokens: 4, reasoningTokens: 2 }));
    // An untrusted count larger than its whole is cut to it, so a cost is never below nothing.
    expect(
      completionUsage(
        completion({ promptTokens: 10, completionTokens: 5, cachedPromptTokens: 99, reasoningTokens: 99 }),
        undefined,
        'm',
      ),
    ).toEqual(usage(10, 5, { cachedPromptTokens: 10, reasoningTokens: 5 }));
    expect(completionUsage(completion({ promptTokens: 10, completionTokens: 5 }), undefined, 'm')).toEqual(
      usage(10, 5),
    );
  });
});

describe('pricing cached input', () => {
  test('cached prompt tokens cost the cached price; the rest of the prompt the input price', () => {
    // 200 uncached at $2, 800 cached at $0.5, 300 completion at $8, per million.
    const expected = (200 * 2 + 800 * 0.5 + 300 * 8) / 1_000_000;
    expect(costOf(usage(1000, 300, { cachedPromptTokens: 800 }), PRICES.cached!)).toBeCloseTo(expected, 15);
    expect(pricedUsage(usage(1000, 300, { cachedPromptTokens: 800 }), PRICES, 'cached')).toEqual(
      usage(1000, 300, {
        cachedPromptTokens: 800,
        costUsd: costOf(usage(1000, 300, { cachedPromptTokens: 800 }), PRICES.cached!),
      }),
    );
  });

  test('a model without a cached price prices all input at the input price, and the usage says so', () => {
    const priced = pricedUsage(usage(1000, 300, { cachedPromptTokens: 800 }), PRICES, 'plain');
    expect(priced.costUsd).toBeCloseTo((1000 * 2 + 300 * 8) / 1_000_000, 15);
    expect(priced.cachedAtInputPrice).toBe(true);
    // Nothing cached, or nothing reported: nothing priced at the wrong rate, nothing to say.
    expect(pricedUsage(usage(1000, 300, { cachedPromptTokens: 0 }), PRICES, 'plain')).not.toHaveProperty(
      'cachedAtInputPrice',
    );
    expect(pricedUsage(usage(1000, 300), PRICES, 'plain')).not.toHaveProperty('cachedAtInputPrice');
    expect(pricedUsage(usage(1000, 300, { cachedPromptTokens: 800 }), PRICES, 'cached')).not.toHaveProperty(
      'cachedAtInputPrice',
    );
  });

  test('without details, a cached price changes nothing: all input at the input price', () => {
    expect(costOf(usage(1000, 300), PRICES.cached!)).toBe(costOf(usage(1000, 300), PRICES.plain!));
  });

  test('the price table reads an optional cachedInputPerMTok, and refuses a negative one', () => {
    expect(priceTableSchema.parse({ m: { inputPerMTok: 1, outputPerMTok: 2, cachedInputPerMTok: 0.1 } })).toEqual({
      m: { inputPerMTok: 1, outputPerMTok: 2, cachedInputPerMTok: 0.1 },
    });
    expect(
      priceTableSchema.safeParse({ m: { inputPerMTok: 1, outputPerMTok: 2, cachedInputPerMTok: -1 } }).success,
    ).toBe(false);
  });
});

describe('summing token details', () => {
  test('addUsage sums the details where either side reports them, and leaves them absent where neither does', () => {
    expect(
      addUsage(
        usage(10, 5, { cachedPromptTokens: 4, reasoningTokens: 2 }),
        usage(20, 6, { cachedPromptTokens: 8, reasoningTokens: 3 }),
      ),
    ).toEqual(usage(30, 11, { cachedPromptTokens: 12, reasoningTokens: 5 }));
    expect(addUsage(usage(10, 5), usage(20, 6, { cachedPromptTokens: 8 }))).toEqual(
      usage(30, 11, { cachedPromptTokens: 8 }),
    );
    const plain = addUsage(ZERO_USAGE, addUsage(usage(10, 5), usage(20, 6)));
    expect(plain).toEqual(usage(30, 11));
    expect(plain).not.toHaveProperty('cachedPromptTokens');
    expect(plain).not.toHaveProperty('reasoningTokens');
  });

  test('addUsage keeps cachedAtInputPrice when either side has it', () => {
    expect(addUsage(usage(1, 1, { cachedAtInputPrice: true }), usage(1, 1))).toHaveProperty('cachedAtInputPrice', true);
    expect(addUsage(usage(1, 1), usage(1, 1))).not.toHaveProperty('cachedAtInputPrice');
  });

  test('subtractUsage takes the details of a part of the run', () => {
    expect(
      subtractUsage(
        usage(30, 11, { cachedPromptTokens: 12, reasoningTokens: 5 }),
        usage(10, 5, { cachedPromptTokens: 4, reasoningTokens: 2 }),
      ),
    ).toEqual(usage(20, 6, { cachedPromptTokens: 8, reasoningTokens: 3 }));
    expect(subtractUsage(usage(30, 11), usage(10, 5))).toEqual(usage(20, 6));
  });

  test("a run's tree sums its nested agents' details with its own", () => {
    const child = (runId: string, childUsage: Usage) => ({ runId, toolName: 'researcher', usage: childUsage });
    const nested = recordChildUsage(
      recordChildUsage(undefined, child('a', usage(10, 5, { cachedPromptTokens: 6 }))),
      child('b', usage(10, 5, { reasoningTokens: 3 })),
    );
    expect(treeUsage(usage(100, 50, { cachedPromptTokens: 40 }), nested)).toEqual(
      usage(120, 60, { cachedPromptTokens: 46, reasoningTokens: 3 }),
    );
  });

  test('usage carried from before the details existed (continue-as-new, histories) still parses, without them', () => {
    const old = { promptTokens: 30, completionTokens: 11, totalTokens: 41, costUsd: 0.001 };
    expect(usageSchema.parse(old)).toEqual(old);
    expect(usageSchema.safeParse({ ...old, cachedPromptTokens: -1 }).success).toBe(false);
  });
});

describe('token budgets and details', () => {
  test('a token budget counts cached prompt tokens and reasoning tokens: they are in the counts the provider bills', () => {
    const spent = usage(1000, 300, { cachedPromptTokens: 900, reasoningTokens: 250 });
    const limits = { maxInvocations: 10, tokenBudget: { maxPrompt: 1000 } };
    expect(findLimitBreach(1, spent, limits)).toEqual({ kind: 'tokens', measure: 'prompt', used: 1000, limit: 1000 });
    expect(findLimitBreach(1, spent, { maxInvocations: 10, tokenBudget: { maxCompletion: 300 } })).toEqual({
      kind: 'tokens',
      measure: 'completion',
      used: 300,
      limit: 300,
    });
  });
});
