import { forkRun } from '../../src/client/fork-run';
import { eventsQuery } from '../../src/workflow-contract/definitions';
import type { ChatCompletionRequest, ScriptStep } from '../../src/scripted-model/script';
import { type AgentResult } from '../../src/shared/agent-result';
import { addUsage, type Usage, ZERO_USAGE } from '../../src/shared/messages';
import { withAnswerRestored, type AgentWorkflowResult } from '../../src/shared/result-answer';
import { temporalRunsOf } from '../../src/temporal/run-chain';
import { TestEnv } from '../helpers/test-env';

/**
 * A fork that reaches its own limit of iterations per Temporal run after the fork point continues as new and ends as
 * the same fork without continue-as-new would: the same answer and conversation, usage counting only its own calls,
 * and `forkedFrom` kept in its result.
 */

let env: TestEnv;
beforeAll(async () => {
  env = await TestEnv.create();
});
afterAll(async () => {
  await env.close();
});

/** Three additions, one an iteration, then an answer that names every result the conversation holds. */
function addingModel(request: ChatCompletionRequest): ScriptStep {
  const results = request.messages.flatMap((message) => (message.role === 'tool' ? [message.content ?? ''] : []));
  if (results.length < 3)
    return { toolCalls: [{ name: 'calculator', arguments: { expression: `${results.length + 1} * 10` } }] };
  return { content: `sums: ${results.join(', ')}` };
}

async function resultOf(workflowId: string): Promise<AgentResult> {
  return withAnswerRestored((await env.client.workflow.getHandle(workflowId).result()) as AgentWorkflowResult);
}

/** Messages with the ids the scripted model gave its calls (a counter of its own) left out. */
function withoutModelCallIds(messages: AgentResult['messages']): unknown {
  return JSON.parse(JSON.stringify(messages).replace(/call_\d+_\d+/g, 'call_model'));
}

/** The usage of a run's model calls in iterations `from` to `to`, from its event log (carried across its Temporal runs). */
async function usageOf(workflowId: string, from: number, to: number): Promise<{ calls: number; usage: Usage }> {
  const page = await env.client.workflow.getHandle(workflowId).query(eventsQuery, { after: 0 });
  const usages = page.events.flatMap((event) =>
    event.type === 'model-response' && event.iteration >= from && event.iteration <= to ? [event.usage] : [],
  );
  return { calls: usages.length, usage: usages.reduce(addUsage, ZERO_USAGE) };
}

test('a fork that continues as new ends as the same fork in one Temporal run does', async () => {
  const model = env.scenario([]);
  env.model.respond(model, addingModel);
  const source = await env.start({ model, tools: ['calculator'], message: 'add up' });
  const sourceResult = withAnswerRestored((await source.result()) as AgentWorkflowResult);
  expect(sourceResult).toMatchObject({ response: 'sums: 10, 20, 30', iterations: 4 });
  const inherited = (await usageOf(source.workflowId, 1, 1)).usage;

  const inOneRun = await forkRun(env.client, source.workflowId, { atIteration: 2, edit: { message: 'again' } });
  const continued = await forkRun(env.client, source.workflowId, {
    atIteration: 2,
    edit: { message: 'again', input: { iterationsPerRun: 1 } },
  });
  const [oneRunResult, continuedResult] = await Promise.all([
    resultOf(inOneRun.workflowId),
    resultOf(continued.workflowId),
  ]);

  // The fork made its three calls over three Temporal runs; the control made them in one.
  expect((await temporalRunsOf(env.client, inOneRun.workflowId)).length).toBe(1);
  expect((await temporalRunsOf(env.client, continued.workflowId)).length).toBe(3);
  expect(continuedResult.response).toBe('sums: 10, 20, 30');
  expect(withoutModelCallIds(continuedResult.messages)).toEqual(withoutModelCallIds(oneRunResult.messages));
  expect(continuedResult).toMatchObject({ iterations: 4, invocations: 3 });
  expect(continuedResult).toMatchObject({ iterations: oneRunResult.iterations, invocations: oneRunResult.invocations });
  // Its own three calls only, as its event log counts them; the control's prompts were the same, token for token.
  expect(await usageOf(continued.workflowId, 1, 4)).toEqual({ calls: 3, usage: continuedResult.usage });
  expect(continuedResult.usage.promptTokens).toBe(oneRunResult.usage.promptTokens);
  expect(continuedResult.usage.totalTokens).toBeLessThan(sourceResult.usage.totalTokens);
  expect(continuedResult.forkedFrom).toEqual({ runId: source.workflowId, iteration: 2, inherited });
  expect(continuedResult.forkedFrom).toEqual(oneRunResult.forkedFrom);
  // The model was called three times for each fork, never again for the iteration before the fork point.
  expect(env.model.requests(model)).toHaveLength(4 + 3 + 3);
}, 120_000);
