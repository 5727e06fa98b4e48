import { randomUUID } from 'node:crypto';
import type { ChildProcess } from 'node:child_process';
import type { AgentResult } from '../../src/shared/agent-result';
import { cleanEnv, startScript, stopChild } from '../helpers/processes';
import { TestEnv, testServerAddress } from '../helpers/test-env';

/**
 * `AGENT_API_ALLOWED_MODELS` in a real API process: a request naming another model, as its model, a fallback, the
 * compaction or extraction model, a chat turn's model (`/chat`, `/ui/chat`) or a fork's edit, is refused with 403
 * `model_not_allowed` and starts nothing; an allowed one runs.
 */

const ALLOWED = 'allowed-model';

let env: TestEnv;
let api: { child: ChildProcess; url: string };
const token = `models-${randomUUID()}`;
beforeAll(async () => {
  env = await TestEnv.create();
  const started = await startScript(
    'src/api/main.ts',
    cleanEnv({
      TEMPORAL_ADDRESS: testServerAddress(),
      AGENT_TASK_QUEUE: env.taskQueue,
      AGENT_API_TOKEN: token,
      AGENT_API_PORT: '0',
      AGENT_TOOLS: 'calculator',
      AGENT_API_ALLOWED_MODELS: `${ALLOWED}, local/*`,
    }),
    /Agent API at http:\/\/127\.0\.0\.1:\d+/,
  );
  api = { child: started.child, url: /Agent API at (http:\/\/127\.0\.0\.1:\d+)/.exec(started.output())![1]! };
}, 120_000);
afterAll(async () => {
  await stopChild(api.child);
  await env.close();
});

async function post(route: string, body: unknown) {
  const response = await fetch(`${api.url}${route}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return {
    status: response.status,
    body: (await response.json()) as { run_id?: string; error?: { code: string; message: string } },
  };
}

async function expectNotStarted(runId: string): Promise<void> {
  await expect(env.client.workflow.getHandle(runId).describe()).rejects.toThrow(/not found/i);
}

test('POST /runs naming another model, or another fallback, is refused with 403 and starts nothing', async () => {
  const runId = `refused-${randomUUID()}`;
  const other = await post('/runs', { run_id: runId, input: { model: 'gpt-expensive', message: 'hi' } });
  expect(other.status).toBe(403);
  expect(other.body.error).toMatchObject({
    code: 'model_not_allowed',
    message: expect.stringContaining('"gpt-expensive"'),
  });
  const fallback = await post('/runs', {
    run_id: runId,
    input: { model: ALLOWED, modelFallbacks: ['local/small', 'paid/large'], message: 'hi' },
  });
  expect(fallback.status).toBe(403);
  expect(fallback.body.error?.message).toMatch(/"paid\/large"; allowed: allowed-model, local\/\*/);
  const compaction = await post('/runs', {
    run_id: runId,
    input: { model: ALLOWED, compaction: { maxTokens: 4000, model: 'paid/summariser' }, message: 'hi' },
  });
  expect(compaction.status).toBe(403);
  expect(compaction.body.error?.message).toContain('"paid/summariser"');
  const extraction = await post('/runs', {
    run_id: runId,
    input: { model: ALLOWED, resultProcessing: { extractModel: 'paid/extractor' }, message: 'hi' },
  });
  expect(extraction.status).toBe(403);
  expect(extraction.body.error?.message).toContain('"paid/extractor"');
  await expectNotStarted(runId);
});

test('an allowed model runs; a chat turn or a fork naming another is refused', async () => {
  env.model.script(ALLOWED, [{ content: 'allowed answer' }]);
  const started = await post('/runs', { input: { model: ALLOWED, message: 'hi' } });
  expect(started.status).toBe(202);
  const result = (await env.client.workflow.getHandle(started.body.run_id!).result()) as AgentResult;
  expect(result.response).toBe('allowed answer');

  const chat = await post('/chat', { context_id: `c-${randomUUID().slice(0, 8)}`, message: 'hi', model: 'other' });
  expect(chat.status).toBe(403);
  expect(chat.body.error?.code).toBe('model_not_allowed');
  const uiChatId = `ui-${randomUUID().slice(0, 8)}`;
  const uiChat = await post('/ui/chat', {
    id: uiChatId,
    messages: [{ id: 'm1', role: 'user', parts: [{ type: 'text', text: 'hi' }] }],
    model: 'other',
  });
  expect(uiChat.status).toBe(403);
  expect(uiChat.body.error?.code).toBe('model_not_allowed');
  await expectNotStarted(`conversation:${uiChatId}`);

  const forkId = `fork-${randomUUID()}`;
  const fork = await post(`/runs/${started.body.run_id}/fork`, {
    at_iteration: 1,
    run_id: forkId,
    input: { model: 'other' },
  });
  expect(fork.status).toBe(403);
  expect(fork.body.error?.code).toBe('model_not_allowed');
  await expectNotStarted(forkId);
}, 90_000);
