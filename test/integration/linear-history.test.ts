import { CLOSED_RUN_EVENT_BYTES } from '../../src/shared/defaults/event-log';
import { z } from 'zod';
import { MODEL_INPUT_INLINE_BYTES, RESULT_MESSAGES_INLINE_BYTES } from '../../src/shared/defaults/sizes';
import { jsonBytes } from '../../src/shared/payload-limits';
import { stateQuery, transcriptQuery } from '../../src/workflow-contract/definitions';
import { type AgentResult } from '../../src/shared/agent-result';
import { type ChatMessage } from '../../src/shared/messages';
import path from 'node:path';
import { getAgentTranscript, readAgentTranscript } from '../../src/client';
import { RunNotFoundError } from '../../src/client/run-not-found-error';
import { ModelRequestCache } from '../../src/activities/model-request-cache';
import { defineTool } from '../../src/tools/define-tool';
import { TestApi } from '../helpers/api';
import { scheduledActivities } from '../helpers/history';
import { PROJECT_ROOT, cleanEnv, runProcess } from '../helpers/processes';
import { TestEnv, testServerAddress } from '../helpers/test-env';
import { waitFor } from '../helpers/wait';

/**
 * History grows with what a run adds, not with its whole conversation at
 * every step: a large conversation stays out of the model call's input (the
 * activity reads it with the `modelRequest` query) and out of the result
 * (whose `transcript` says where its newest messages start; the rest is read
 * in pages with the `transcript` query).
 */

/** 4 KB of text per call: the conversation passes the inline limit after two iterations. */
const bulkyTool = defineTool({
  name: 'bulky',
  description: 'Returns 4 KB of text.',
  parameters: z.object({ n: z.number() }),
  execute: ({ n }) => `result ${n}: ${'x'.repeat(4096)}`,
});

let env: TestEnv;
let api: TestApi;
beforeAll(async () => {
  env = await TestEnv.create({ extraTools: [bulkyTool] });
  api = await TestApi.start(env);
});
afterAll(async () => {
  await api.close();
  await env.close();
});

const bulkyCalls = (count: number, delayMs?: number) =>
  Array.from({ length: count }, (_, index) => ({
    toolCalls: [{ name: 'bulky', arguments: { n: index } }],
    ...(delayMs === undefined ? {} : { delayMs }),
  }));

/** The whole conversation, read a page of `limit` at a time with the `transcript` query. */
async function readTranscript(workflowId: string, limit: number): Promise<ChatMessage[]> {
  const handle = env.client.workflow.getHandle(workflowId);
  const messages: ChatMessage[] = [];
  for (;;) {
    const page = await handle.query(transcriptQuery, { from: messages.length, limit });
    expect(page.from).toBe(messages.length);
    messages.push(...page.messages);
    if (page.messages.length === 0 || messages.length >= page.total) return messages;
  }
}

describe('linear history', () => {
  test('a large conversation is read by the activity, not written to history at every call; the model still sees all of it', async () => {
    const model = env.scenario([...bulkyCalls(20), { content: 'done' }]);
    const handedOver = { ...ModelRequestCache.forProcess().stats };
    const handle = await env.start({ model, tools: ['bulky'], message: 'fetch twenty times' });
    const result = (await handle.result()) as AgentResult;
    expect(result).toMatchObject({ response: 'done', iterations: 21 });
    // The test's worker runs each call it scheduled: every call by reference took its conversation from
    // the worker's memory (the workflow's sink), none had to ask the workflow with the query.
    expect(ModelRequestCache.forProcess().stats.taken - handedOver.taken).toBeGreaterThanOrEqual(18);
    expect(ModelRequestCache.forProcess().stats.missed - handedOver.missed).toBe(0);

    // The model saw the whole conversation at every call, tool results included.
    const requests = env.model.requests(model);
    expect(requests.map((request) => request.messages.length)).toEqual(
      Array.from({ length: 21 }, (_, index) => 1 + 2 * index),
    );
    expect(
      requests[20]?.messages.filter((message) => message.role === 'tool' && String(message.content).length > 4096),
    ).toHaveLength(20);

    // In history, a model call's input carries its conversation only while it is small.
    const calls = (await scheduledActivities(env.client, handle.workflowId)).filter(
      (activity) => activity.type === 'callModel',
    );
    expect(calls).toHaveLength(21);
    const inputs = calls.map(
      (call) => call.input as { messages?: ChatMessage[]; conversation?: { iteration: number; count: number } },
    );
    expect(inputs[0]?.messages).toHaveLength(1);
    const byReference = inputs.filter((input) => input.conversation !== undefined);
    expect(byReference.length).toBeGreaterThanOrEqual(18);
    for (const input of byReference) expect(input.messages).toBeUndefined();
    expect(inputs.at(-1)?.conversation).toEqual({ iteration: 21, count: 41 });
    for (const input of inputs) expect(jsonBytes(input)).toBeLessThanOrEqual(MODEL_INPUT_INLINE_BYTES + 1024);

    // The result carries the newest messages that fit, and says where they start.
    const state = await handle.query(stateQuery);
    const whole = state.messages;
    expect(whole).toHaveLength(42);
    expect(result.transcript).toBeDefined();
    const { from, total } = result.transcript ?? { from: -1, total: -1 };
    expect(total).toBe(42);
    expect(from).toBeGreaterThan(0);
    expect(result.messages).toEqual(whole.slice(from));
    expect(jsonBytes(result.messages)).toBeLessThanOrEqual(RESULT_MESSAGES_INLINE_BYTES);
    expect(result.messages[0]?.role).not.toBe('tool');
    expect(result.messages.at(-1)).toMatchObject({ role: 'assistant', content: 'done' });

    // The whole transcript is read in pages, also after the run ended.
    expect(await readTranscript(handle.workflowId, 7)).toEqual(whole);

    // History holds each tool result about once. With the conversation in every call's input it held
    // them ten times over (the sum of 21 growing conversations); now the rest is the result (at most
    // twice its budget, plus the newest events a closed run carries for its readers) and a little
    // bookkeeping per iteration.
    const description = await handle.describe();
    expect(description.historySize).toBeLessThan(
      jsonBytes(whole) + 2 * RESULT_MESSAGES_INLINE_BYTES + CLOSED_RUN_EVENT_BYTES + 21 * 3 * 1024,
    );
  });

  test('resultMessages: all keeps the whole conversation in the result', async () => {
    const model = env.scenario([...bulkyCalls(20), { content: 'done' }]);
    const result = await env.run({ model, tools: ['bulky'], message: 'fetch twenty times', resultMessages: 'all' });
    expect(result.transcript).toBeUndefined();
    expect(result.messages).toHaveLength(42);
  });

  test('a model call retried on another worker reads the same conversation from the replayed workflow', async () => {
    // The fifth call is slow: the worker is replaced while it is in flight, so the call is tried again
    // on the new worker, which has the workflow in no cache and replays it to answer the query.
    const steps = bulkyCalls(6);
    steps[4] = { ...steps[4], delayMs: 3_000 } as (typeof steps)[number];
    const model = env.scenario([...steps, { content: 'done' }]);
    const handle = await env.start({ model, tools: ['bulky'], message: 'fetch six times' });
    await waitFor(
      async () => env.model.requests(model).length,
      (count) => count >= 5,
    );
    const missedBefore = ModelRequestCache.forProcess().stats.missed;
    await env.restartWorker();
    const result = (await handle.result()) as AgentResult;
    expect(result).toMatchObject({ response: 'done' });
    // The first attempt took the conversation from memory; the retry found none there and used the query.
    expect(ModelRequestCache.forProcess().stats.missed - missedBefore).toBeGreaterThanOrEqual(1);

    const requests = env.model.requests(model);
    const fifth = requests.filter((request) => request.messages.length === 9);
    expect(fifth.length).toBeGreaterThanOrEqual(2);
    for (const request of fifth) expect(request.messages).toEqual(fifth[0]?.messages);
    const calls = (await scheduledActivities(env.client, handle.workflowId)).filter(
      (activity) => activity.type === 'callModel',
    );
    expect((calls[4]?.input as { conversation?: unknown }).conversation).toEqual({ iteration: 5, count: 9 });
  });

  test('the transcript in pages: the client, GET /runs/:run_id/messages and agent-runner messages', async () => {
    const model = env.scenario([...bulkyCalls(3), { content: 'done' }]);
    const handle = await env.start({ model, tools: ['bulky'], message: 'fetch three times' });
    await handle.result();
    const whole = (await handle.query(stateQuery)).messages;
    expect(whole).toHaveLength(8);

    // The client: one page, and every message page after page.
    expect(await getAgentTranscript(env.client, handle.workflowId, { from: 2, limit: 3 })).toEqual({
      total: 8,
      from: 2,
      messages: whole.slice(2, 5),
    });
    const read: ChatMessage[] = [];
    for await (const message of readAgentTranscript(env.client, handle.workflowId, 1)) read.push(message);
    expect(read).toEqual(whole.slice(1));
    await expect(getAgentTranscript(env.client, 'no-such-run')).rejects.toBeInstanceOf(RunNotFoundError);

    // The API: a page says where the next one starts; the last says nothing more.
    const first = await api.get(`/runs/${handle.workflowId}/messages?limit=5`);
    expect(first.status).toBe(200);
    expect(first.body).toEqual({
      run_id: handle.workflowId,
      total: 8,
      from: 0,
      messages: whole.slice(0, 5),
      next_from: 5,
    });
    const last = await api.get(`/runs/${handle.workflowId}/messages?from=5&limit=5`);
    expect(last.body).toEqual({ run_id: handle.workflowId, total: 8, from: 5, messages: whole.slice(5) });
    expect((await api.get(`/runs/${handle.workflowId}/messages?limit=0`)).status).toBe(400);
    expect((await api.get(`/runs/${handle.workflowId}/messages?limit=5000`)).status).toBe(400);
    expect((await api.get(`/runs/${handle.workflowId}/messages?from=-1`)).status).toBe(400);
    expect((await api.get(`/runs/no-such-run/messages`)).status).toBe(404);

    // The CLI: a page as lines, and every message as JSON lines.
    const launcher = path.join(PROJECT_ROOT, 'bin', 'agent-runner.js');
    const cliEnv = cleanEnv({
      TEMPORAL_ADDRESS: testServerAddress(),
      AGENT_TASK_QUEUE: env.taskQueue,
      ...(process.env.TMPDIR ? { TMPDIR: process.env.TMPDIR } : {}),
    });
    const page = await runProcess(process.execPath, [launcher, 'messages', handle.workflowId, '--limit', '2'], {
      env: cliEnv,
      timeoutMs: 90_000,
    });
    expect(page.code).toBe(0);
    expect(page.stdout.trim().split('\n')).toEqual([
      '#0 user: fetch three times',
      expect.stringMatching(/^#1 assistant: bulky\(\{"n":0\}\)$/),
      '(messages 0–1 of 8; more with --from 2)',
    ]);
    const all = await runProcess(
      process.execPath,
      [launcher, 'messages', handle.workflowId, '--all', '--from', '6', '--json'],
      { env: cliEnv, timeoutMs: 90_000 },
    );
    expect(all.code).toBe(0);
    expect(
      all.stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as unknown),
    ).toEqual([
      { index: 6, message: whole[6] },
      { index: 7, message: whole[7] },
    ]);
  });
});
