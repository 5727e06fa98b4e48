import { costOf, type PriceTable } from '../../src/shared/prices';
import { eventsQuery, stateQuery } from '../../src/workflow-contract/definitions';
import { type AgentResult } from '../../src/shared/agent-result';
import { runFailureOf } from '../helpers/promises';
import { TestEnv } from '../helpers/test-env';
import { waitForState } from '../helpers/wait';
import type { ScriptStep } from '../../src/scripted-model/script';

/**
 * Cost through a real worker: the worker's price table prices each model call
 * (`usage.costUsd` in the result, the state and the events), `costBudget`
 * fails a run that has spent it with `CostBudgetExceeded` before its next
 * call, and a model without a price under a budget fails before it is called.
 */

const PRICES: PriceTable = {
  'priced-report': { inputPerMTok: 3, outputPerMTok: 15 },
  'priced-budget': { inputPerMTok: 1_000, outputPerMTok: 1_000 },
  'priced-no-budget': { inputPerMTok: 1, outputPerMTok: 1 },
};

let env: TestEnv;
beforeAll(async () => {
  env = await TestEnv.create({ prices: PRICES });
});
afterAll(async () => {
  await env.close();
});

/** Scripts `steps` under a fixed model name (the price table is keyed by it). */
function scripted(name: string, steps: ScriptStep[]): string {
  env.model.script(name, steps);
  return name;
}
const calc = { toolCalls: [{ name: 'calculator', arguments: { expression: '1+1' } }] };

describe('cost', () => {
  test('each call is priced; the result, the state and the events report usage.costUsd', async () => {
    const model = scripted('priced-report', [calc, { content: 'two' }]);
    const handle = await env.start({ model, tools: ['calculator'], message: 'add' });
    const result = (await handle.result()) as AgentResult;
    const events = (await handle.query(eventsQuery, { after: 0 })).events;
    const calls = events.flatMap((event) => (event.type === 'model-response' ? [event.usage] : []));
    expect(calls).toHaveLength(2);
    for (const usage of calls) expect(usage.costUsd).toBeCloseTo(costOf(usage, PRICES['priced-report']!), 12);
    expect(result.usage.costUsd).toBeGreaterThan(0);
    expect(result.usage.costUsd).toBeCloseTo(costOf(result.usage, PRICES['priced-report']!), 9);
    expect((await handle.query(stateQuery)).usage).toEqual(result.usage);
  });

  test('costBudget: a run that has spent it fails with CostBudgetExceeded before its next call', async () => {
    const model = scripted('priced-budget', [calc, calc, { content: 'never' }]);
    const failure = await runFailureOf(
      env.run({ model, tools: ['calculator'], message: 'add', costBudget: { maxUsd: 0.01 } }),
    );
    expect(failure.type).toBe('CostBudgetExceeded');
    expect(failure.nonRetryable).toBe(true);
    expect(failure.message).toMatch(/^Cost budget exceeded: \$\d+\.\d{6} spent on model calls, budget \$0\.01$/);
    const [details] = failure.details as [
      { spentUsd: number; maxUsd: number; usage: { costUsd: number }; iterations: number },
    ];
    expect(details).toMatchObject({ maxUsd: 0.01, iterations: 1 });
    expect(details.spentUsd).toBeGreaterThanOrEqual(0.01);
    expect(details.usage.costUsd).toBe(details.spentUsd);
    expect(env.model.requests(model)).toHaveLength(1);
  });

  test('a model without a price under a budget fails with ModelCall.PriceUnknown, and nothing is sent', async () => {
    const model = env.scenario([{ content: 'never sent' }]);
    const failure = await runFailureOf(env.run({ model, tools: [], message: 'hi', costBudget: { maxUsd: 1 } }));
    expect(failure.type).toBe('ModelCall.PriceUnknown');
    expect(failure.message).toContain(
      `no price for model "${model}" (priced: priced-budget, priced-no-budget, priced-report)`,
    );
    expect(env.model.requests(model)).toHaveLength(0);
  });

  test('without a budget, an unpriced model runs and reports no cost; a priced one reports it', async () => {
    const unpriced = await env.run({ model: env.scenario([{ content: 'hi' }]), tools: [], message: 'hi' });
    expect(unpriced.usage.totalTokens).toBeGreaterThan(0);
    expect(unpriced.usage).not.toHaveProperty('costUsd');
    const priced = await env.run({
      model: scripted('priced-no-budget', [{ content: 'hi' }]),
      tools: [],
      message: 'hi',
    });
    expect(priced.usage.costUsd).toBeGreaterThan(0);
  });

  test('the state reports the cost so far while the run waits', async () => {
    const model = scripted('priced-report', [
      { toolCalls: [{ name: 'ask_question', arguments: { question: 'Which?' } }] },
    ]);
    const handle = await env.start({ model, tools: ['ask_question'], message: 'go', costBudget: { maxUsd: 100 } });
    const state = await waitForState(handle, (current) => current.status === 'waiting_for_input');
    expect(state.usage.costUsd).toBeCloseTo(costOf(state.usage, PRICES['priced-report']!), 9);
    await handle.terminate('test over');
  });
});
