import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { getAgentState } from '../../src/client';
import { decideToolCall, followRunEvents } from '../../src/client/run-control';
import { NoWorkerError } from '../../src/client/no-worker-error';
import { WORKFLOW_TYPE } from '../../src/shared/defaults/names';
import { TEST_TOKEN, TestApi, readEventStream } from '../helpers/api';
import { cleanEnv, PROJECT_ROOT } from '../helpers/processes';
import { TestEnv, testServerAddress } from '../helpers/test-env';

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

describe('following a run no worker polls yet', () => {
  let late: TestEnv;
  let lateApi: TestApi;
  beforeEach(async () => {
    late = await TestEnv.create({ workerStarted: false });
    lateApi = await TestApi.start(late);
  });
  afterEach(async () => {
    await lateApi.close();
    await late.close();
  });

  test('a follower is told which queue lacks a worker at once, then reads the run to its end once one polls', async () => {
    const handle = await late.start({ model: late.scenario([{ content: 'done' }]), message: 'go', tools: [] });
    const told: string[] = [];
    const started = Date.now();
    let toldAfterMs = Number.NaN;
    const types: string[] = [];
    for await (const event of followRunEvents(late.client, handle.workflowId, {
      onNoWorker: (taskQueue) => {
        told.push(taskQueue);
        toldAfterMs = Date.now() - started;
        void late.startWorker();
      },
    }))
      types.push(event.type);
    expect(told).toEqual([late.taskQueue]);
    expect(toldAfterMs).toBeLessThan(5_000);
    expect(types.at(0)).toBe('run-start');
    expect(types.at(-1)).toBe('run-end');
  });

  test('an SSE follower gets a no-worker event naming the queue, then the run to its end', async () => {
    const handle = await late.start({ model: late.scenario([{ content: 'done' }]), message: 'go', tools: [] });
    const { status, events } = await readEventStream(
      `${lateApi.url}/runs/${encodeURIComponent(handle.workflowId)}/events`,
      { authorization: `Bearer ${TEST_TOKEN}` },
      (event) => {
        if (event.event === 'no-worker') void late.startWorker();
        return event.event === 'end';
      },
    );
    expect(status).toBe(200);
    expect(events[0]).toMatchObject({ event: 'no-worker', data: { code: 'no_worker' } });
    expect(JSON.stringify(events[0]?.data)).toContain(late.taskQueue);
    expect(events.at(-1)).toMatchObject({ event: 'end', data: { outcome: 'completed' } });
  });

  test('agent-runner run says so after "Started", then follows the run once a worker polls', async () => {
    const model = late.scenario([{ content: 'the answer, late' }]);
    const child = spawn(
      process.execPath,
      [path.join(PROJECT_ROOT, 'bin', 'agent-runner.js'), 'run', 'go', '--model', model],
      {
        cwd: PROJECT_ROOT,
        env: cleanEnv({ TEMPORAL_ADDRESS: testServerAddress(), AGENT_TASK_QUEUE: late.taskQueue, AGENT_TOOLS: '' }),
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('close', resolve));
    const deadline = Date.now() + 30_000;
    while (!output.includes('no worker polls task queue') && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 50));
    expect(output).toContain(`no worker polls task queue "${late.taskQueue}"`);
    await late.startWorker();
    expect(await exited).toBe(0);
    expect(output).toContain('the answer, late');
  });
});
