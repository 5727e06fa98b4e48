import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { stateQuery } from '../../src/workflow-contract/definitions';
import { getAgentResult } from '../../src/client/index';
import { type AgentResult } from '../../src/shared/agent-result';
import { jsonBytes } from '../../src/shared/payload-limits';
import { type AgentWorkflowResult } from '../../src/shared/result-answer';
import { defineTool } from '../../src/tools/define-tool';
import { TestApi } from '../helpers/api';
import { TestEnv } from '../helpers/test-env';

/** Returns `size` characters: a tool whose output is as large as the model asks. */
const bigTool = defineTool({
  name: 'big',
  description: 'Returns a text of the given size.',
  parameters: z.object({ size: z.number().int().positive() }),
  execute: ({ size }) => 'x'.repeat(size),
});

let env: TestEnv;
let api: TestApi;
beforeAll(async () => {
  env = await TestEnv.create({ extraTools: [bigTool] });
  api = await TestApi.start(env);
});
afterAll(async () => {
  await api.close();
  await env.close();
});

const big = (id: string, size: number) => ({ name: 'big', arguments: { size }, id });

describe("a run near Temporal's payload limit", () => {
  test('a run whose conversation outgrows the budget fails with ContextTooLarge before the model call Temporal would refuse', async () => {
    // Each result adds about 400 KB to what the run would return (the message, and again in the chat response format):
    // after four of them the projection passes the 1.5 MiB budget, so the fifth call is never made.
    const model = env.scenario(
      Array.from({ length: 6 }, (_, index) => ({ toolCalls: [big(`call_${index}`, 200_000)] })),
    );
    const handle = await env.start({ model, tools: ['big'], message: 'read everything' });
    const failure = await handle.result().then(
      () => undefined,
      (error: unknown) => (error as { cause?: { type?: string; message?: string; details?: unknown[] } }).cause,
    );

    expect(failure?.type).toBe('ContextTooLarge');
    expect(failure?.message).toMatch(
      /^The run's conversation has grown to 1\.\d MiB, past the 1\.5 MiB a run keeps so its model calls and result stay under Temporal's 2\.0 MiB payload limit\. Cut long tool results with resultProcessing, or split the work across runs\.$/,
    );
    // The details say how far the run got; they never carry the conversation that is too large.
    expect(failure?.details?.[0]).toMatchObject({ budget: 1.5 * 1024 * 1024, iterations: 4, messageCount: 9 });
    expect(failure?.details?.[0]).not.toHaveProperty('messages');
    expect(env.model.requests(model)).toHaveLength(4);
    // Failed by the runner, with its reason; not terminated by Temporal.
    expect((await handle.describe()).status.name).toBe('FAILED');
    expect(await handle.query(stateQuery)).toMatchObject({ status: 'failed', error: { type: 'ContextTooLarge' } });
  });

  test('a tool output over 256 KiB is cut in the activity, with a note the model reads', async () => {
    const model = env.scenario([{ toolCalls: [big('call_huge', 3_000_000)] }, { content: 'done' }]);
    const result = await env.run({ model, tools: ['big'], message: 'fetch it', resultMessages: 'all' });

    expect(result.response).toBe('done');
    const output = result.messages.find((message) => message.role === 'tool')?.content ?? '';
    expect(Buffer.byteLength(output)).toBeLessThanOrEqual(256 * 1024);
    expect(output.endsWith('\n[cut: the tool returned 2.9 MiB; a tool result keeps at most 256 KiB]')).toBe(true);
    expect(output.startsWith('x'.repeat(200_000))).toBe(true);
    // The model saw the cut output, note included.
    const seen = env.model.requests(model)[1]?.messages.find((message) => message.role === 'tool');
    expect(seen?.content).toBe(output);
  });

  test('with resultMessages: all, a run whose last tool batch makes its result too large fails with ContextTooLarge and keeps its response', async () => {
    // Eight results of 256 KiB in one batch, then the stop condition (big has run) ends the run: its result would be about 4 MiB.
    const model = env.scenario([
      {
        content: 'Fetching all eight.',
        toolCalls: Array.from({ length: 8 }, (_, index) => big(`call_part_${index}`, 300_000)),
      },
    ]);
    const handle = await env.start({
      model,
      tools: ['big'],
      message: 'fetch the parts',
      stopWhen: { functionCall: 'big' },
      resultMessages: 'all',
    });
    const failure = await handle.result().then(
      () => undefined,
      (error: unknown) => (error as { cause?: { type?: string; message?: string; details?: unknown[] } }).cause,
    );

    expect(failure?.type).toBe('ContextTooLarge');
    expect(failure?.message).toMatch(
      /^The run ended \(stop_condition\), but its result would be 4\.\d MiB, over Temporal's 2\.0 MiB payload limit\./,
    );
    expect(failure?.details?.[0]).toMatchObject({
      terminationReason: { type: 'stop_condition', condition: 'functionCall("big")' },
      response: 'Fetching all eight.',
      iterations: 1,
    });
    expect((await handle.describe()).status.name).toBe('FAILED');
  });

  test('by default the same run completes: its result carries the newest messages, the rest is read in pages', async () => {
    const model = env.scenario([
      {
        content: 'Fetching all eight.',
        toolCalls: Array.from({ length: 8 }, (_, index) => big(`call_part_${index}`, 300_000)),
      },
    ]);
    const result = await env.run({
      model,
      tools: ['big'],
      message: 'fetch the parts',
      stopWhen: { functionCall: 'big' },
    });
    expect(result).toMatchObject({
      response: 'Fetching all eight.',
      terminationReason: { type: 'stop_condition' },
      transcript: { total: 10, from: 9 },
    });
    // At least the last message, however large: a tool result is never over 256 KiB.
    expect(result.messages).toHaveLength(1);
    expect(result.messages[0]).toMatchObject({
      role: 'tool',
      tool_call_id: expect.stringMatching(/part_7|-8$/) as unknown,
    });
  });

  test('a model that answers 1.9 MiB of text completes: the result carries the answer once, and the client and the API read it whole', async () => {
    // Once the answer, again as the last message and again in the chat format: 5.7 MiB, where Temporal takes 2 MiB.
    // Words of 1 KiB: the scripted model streams a chunk a word, and 2,000 chunks keep the test quick.
    const answer = `${'w'.repeat(1023)} `.repeat(1945);
    const model = env.scenario([{ content: answer }]);
    const handle = await env.start({ model, tools: [], message: 'write the whole book' });

    // What the workflow returns: the answer once, its two repetitions emptied and listed.
    const carried = (await handle.result()) as AgentWorkflowResult;
    expect(carried.response === answer).toBe(true);
    expect(jsonBytes(carried)).toBeLessThan(answer.length + 16 * 1024);
    expect(carried.responseRepeatedAt).toEqual({
      messages: [carried.messages.length - 1],
      generatedMessages: [carried.generatedMessages.length - 1],
    });

    // What the typed client gives: the full result, as a run with a small answer has it. (Compared as booleans: a
    // failing comparison of 1.9 MiB strings would print them.)
    const result = await getAgentResult(env.client, handle.workflowId);
    expect(result).toMatchObject({ terminationReason: { type: 'complete' }, iterations: 1 });
    expect(result).not.toHaveProperty('responseRepeatedAt');
    expect(result.response === answer).toBe(true);
    const last = result.messages.at(-1);
    expect(last?.role === 'assistant' && last.content === answer).toBe(true);
    const generated = result.generatedMessages.at(-1);
    expect(
      generated !== undefined && 'sender' in generated && generated.sender === 'ai' && generated.message === answer,
    ).toBe(true);

    // And the HTTP API, through the same reader.
    const body = (
      await api.get<{ outcome: string; result: AgentResult }>(`/runs/${encodeURIComponent(handle.workflowId)}/result`)
    ).body;
    expect(body.outcome).toBe('completed');
    expect(JSON.stringify(body.result) === JSON.stringify(result)).toBe(true);
  });

  test('a small answer is carried as before, repeated in the messages', async () => {
    const model = env.scenario([{ content: 'short' }]);
    const carried = (await (await env.start({ model, tools: [], message: 'hi' })).result()) as AgentWorkflowResult;
    expect(carried).not.toHaveProperty('responseRepeatedAt');
    expect(carried.messages.at(-1)).toMatchObject({ role: 'assistant', content: 'short' });
  });

  test('a run well inside the budget is not touched', async () => {
    const model = env.scenario([{ toolCalls: [big('call_small', 100_000)] }, { content: 'fine' }]);
    const result: AgentResult = await env.run({ model, tools: ['big'], message: 'go', resultMessages: 'all' });
    expect(result).toMatchObject({ response: 'fine', terminationReason: { type: 'complete' } });
    expect(result.messages.find((message) => message.role === 'tool')?.content).toHaveLength(100_000);
  });
});

describe('a conversation near the limit (HTTP)', () => {
  test('a turn that would pass the budget is refused with 409 conversation_too_large; the conversation stays as it was and goes on', async () => {
    const contextId = `size-${randomUUID().slice(0, 8)}`;
    const model = env.scenario([{ content: 'Noted.' }, { content: 'Still here.' }]);
    const first = await api.post('/chat', { context_id: contextId, message: 'a'.repeat(600_000), model });
    expect(first.status).toBe(200);
    expect(first.body.response).toBe('Noted.');

    // 600 KB of history, 600 KB more, and the same again in the chat response format: past the 1.5 MiB budget.
    const refused = await api.post('/chat', { context_id: contextId, message: 'b'.repeat(600_000), model });
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('conversation_too_large');
    expect(refused.body.error.message).toMatch(
      /^This conversation holds 586 KiB; with this request its next run would carry 1\.\d MiB, more than the 1\.5 MiB a run keeps under Temporal's 2\.0 MiB payload limit\. Continue in a new context_id; this conversation can still be read\.$/,
    );
    expect(env.model.requests(model)).toHaveLength(1);

    // Nothing was lost: the conversation is still running, with its first turn, and takes a small message.
    const conversation = await api.get(`/conversations/${contextId}`);
    expect(conversation.status).toBe(200);
    expect(conversation.body).toMatchObject({ turns: 1 });
    expect((await env.client.workflow.getHandle(`conversation:${contextId}`).describe()).status.name).toBe('RUNNING');
    const small = await api.post('/chat', { context_id: contextId, message: 'short one', model });
    expect(small.status).toBe(200);
    expect(small.body.response).toBe('Still here.');
    expect(env.model.requests(model)[1]?.messages.map((message) => message.role)).toEqual([
      'user',
      'assistant',
      'user',
    ]);
  });
});
