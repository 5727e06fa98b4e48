import { randomUUID } from 'node:crypto';
import { getAgentState } from '../../src/client';
import { NoWorkerError, decideToolCall } from '../../src/client/run-control';
import { WORKFLOW_TYPE } from '../../src/shared/defaults/names';
import { TestApi } from '../helpers/api';
import { TestEnv } from '../helpers/test-env';

/**
 * A run whose task queue no worker polls: whatever asks it something (a query, a decision) is told so within seconds,
 * naming the queue, where it used to wait with no end (a status after 31 s, an approval forever).
 */

let env: TestEnv;
let api: TestApi;
beforeAll(async () => {
  env = await TestEnv.create();
  api = await TestApi.start(env);
});
afterAll(async () => {
  await api.close();
  await env.close();
});

async function startUnpolled(): Promise<{ workflowId: string; taskQueue: string }> {
  const taskQueue = `nobody-${randomUUID()}`;
  const workflowId = `test-${randomUUID()}`;
  await env.client.workflow.start(WORKFLOW_TYPE, {
    taskQueue,
    workflowId,
    args: [{ model: 'unused', message: 'hello', tools: [] }],
  });
  return { workflowId, taskQueue };
}

/** How long `promise` took to settle, and how it settled. */
async function timed(promise: Promise<unknown>): Promise<{ ms: number; error: unknown }> {
  const started = Date.now();
  try {
    await promise;
    return { ms: Date.now() - started, error: undefined };
  } catch (error) {
    return { ms: Date.now() - started, error };
  }
}

test('the state and a decision of a run nobody polls say which queue lacks a worker, at once', async () => {
  const { workflowId, taskQueue } = await startUnpolled();
  const asked = [
    getAgentState(env.client, workflowId),
    decideToolCall(env.client, workflowId, { callId: 'call-1-1', decision: 'approve' }),
  ];
  for (const { ms, error } of await Promise.all(asked.map(timed))) {
    expect(error).toBeInstanceOf(NoWorkerError);
    expect((error as NoWorkerError).taskQueue).toBe(taskQueue);
    expect((error as Error).message).toContain(`No worker polls task queue "${taskQueue}"`);
    expect(ms).toBeLessThan(5_000);
  }
});

test('the API answers 503 no_worker for the state and an approval of such a run', async () => {
  const { workflowId, taskQueue } = await startUnpolled();
  const state = await api.get(`/runs/${workflowId}`);
  expect(state.status).toBe(503);
  expect(state.body.error).toMatchObject({ code: 'no_worker' });
  expect(state.body.error.message).toContain(taskQueue);
  const approval = await api.post(`/runs/${workflowId}/approve`, { call_id: 'call-1-1' });
  expect(approval.status).toBe(503);
  expect(approval.body.error).toMatchObject({ code: 'no_worker' });
});

test('a run whose worker polls answers as before', async () => {
  const handle = await env.start({
    model: env.scenario([{ content: 'hi', delayMs: 4_000 }]),
    message: 'go',
    tools: [],
  });
  const state = await getAgentState(env.client, handle.workflowId);
  expect(state.status).toBe('running');
  await handle.result();
});
