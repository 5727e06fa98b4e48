import { costOf, type PriceTable } from '../../src/shared/prices';
import { eventsQuery, stateQuery } from '../../src/workflow-contract/definitions';
import { addUsage, ZERO_USAGE, type Usage } from '../../src/shared/messages';
import type { AgentResult } from '../../src/shared/agent-result';
import type { ScriptStep } from '../../src/scripted-model/script';
import { TestEnv } from '../helpers/test-env';

/**
 * Cached prompt tokens and reasoning tokens through a real worker, with the answer streamed (the details in the
 * stream's last chunk, `stream_options.include_usage`) and whole (in the body): each `model-response` event and the
 * run's result carry them, summed; the cost prices cached input at the model's cached price, or at its input price
 * (and says so) when it has none; a provider that reports no details leaves them absent.
 */

const PRICES: PriceTable = {
  'with-cache-price': { inputPerMTok: 2, outputPerMTok: 8, cachedInputPerMTok: 0.5 },
  'without-cache-price': { inputPerMTok: 2, outputPerMTok: 8 },
  'no-details': { inputPerMTok: 2, outputPerMTok: 8, cachedInputPerMTok: 0.5 },
};

const calc = { toolCalls: [{ name: 'calculator', arguments: { expression: '1+1' } }] };

describe.each([
  { form: 'streamed', stream: true },
  { form: 'whole', stream: false },
])('token details, answers $form', ({ stream }) => {
  let env: TestEnv;
  beforeAll(async () => {
    env = await TestEnv.create({ prices: PRICES, modelSettings: { stream } });
  });
  afterAll(async () => {
    await env.close();
  });

  /** Runs `steps` under model `name` to its end: its result, and its `model-response` events' usage. */
  async function runScripted(name: string, steps: ScriptStep[]): Promise<{ result: AgentResult; calls: Usage[] }> {
    env.model.script(name, steps);
    const handle = await env.start({ model: name, tools: ['calculator'], message: 'add' });
    const result = (await handle.result()) as AgentResult;
    const events = (await handle.query(eventsQuery, { after: 0 })).events;
    expect((await handle.query(stateQuery)).usage).toEqual(result.usage);
    // The form under test is the one used: the request asked for a stream exactly when streaming is on.
    for (const request of env.model.requests(name)) expect(request.stream === true).toBe(stream);
    // The run's last event carries what the whole run spent, details included, as its result does.
    const last = events.at(-1);
    expect(last?.type === 'run-end' ? last.usage : undefined).toEqual(result.usage);
    return { result, calls: events.flatMap((event) => (event.type === 'model-response' ? [event.usage] : [])) };
  }

  test('events and the result carry cached and reasoning tokens, summed; cached input costs its own price', async () => {
    const { result, calls } = await runScripted('with-cache-price', [
      { ...calc, cachedTokens: 10, reasoningTokens: 4 },
      { content: 'two', cachedTokens: 20, reasoningTokens: 6 },
    ]);
    expect(calls).toHaveLength(2);
    expect(calls.map((usage) => [usage.cachedPromptTokens, usage.reasoningTokens])).toEqual([
      [10, 4],
      [20, 6],
    ]);
    for (const usage of calls) {
      // Reasoning tokens are a part of the completion's, as providers count them.
      expect(usage.completionTokens).toBeGreaterThan(usage.reasoningTokens!);
      expect(usage.estimated).toBeUndefined();
      expect(usage.costUsd).toBeCloseTo(costOf(usage, PRICES['with-cache-price']!), 12);
      // Cheaper than the same tokens all at the input price.
      expect(usage.costUsd).toBeLessThan(costOf(usage, PRICES['without-cache-price']!));
    }
    expect(result.usage).toMatchObject({ cachedPromptTokens: 30, reasoningTokens: 10 });
    expect(result.usage).not.toHaveProperty('cachedAtInputPrice');
    const summed = calls.reduce(addUsage, ZERO_USAGE);
    expect(result.usage).toEqual(summed);
    expect(result.usage.costUsd).toBeCloseTo(costOf(result.usage, PRICES['with-cache-price']!), 9);
  });

  test('a model without a cached price is priced as before, all input at the input price, and the usage says so', async () => {
    const { result, calls } = await runScripted('without-cache-price', [
      { ...calc, cachedTokens: 10 },
      { content: 'two', cachedTokens: 20 },
    ]);
    for (const usage of calls) {
      expect(usage.cachedAtInputPrice).toBe(true);
      expect(usage.costUsd).toBeCloseTo((usage.promptTokens * 2 + usage.completionTokens * 8) / 1_000_000, 12);
    }
    expect(result.usage).toMatchObject({ cachedPromptTokens: 30, cachedAtInputPrice: true });
    // No reasoning reported: none shown, rather than a zero that looks measured.
    expect(result.usage).not.toHaveProperty('reasoningTokens');
  });

  test('a provider that reports no details leaves them absent in the events and the result', async () => {
    const { result, calls } = await runScripted('no-details', [calc, { content: 'two' }]);
    for (const usage of [...calls, result.usage]) {
      expect(usage.totalTokens).toBeGreaterThan(0);
      expect(usage).not.toHaveProperty('cachedPromptTokens');
      expect(usage).not.toHaveProperty('reasoningTokens');
      expect(usage).not.toHaveProperty('cachedAtInputPrice');
    }
  });
});
