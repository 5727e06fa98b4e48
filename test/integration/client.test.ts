import { getAgentResult, getAgentState, runAgent, startAgentRun } from '../../src/client';
import { AgentRunFailedError } from '../../src/client/agent-run-failed-error';
import { InvalidAgentInputError } from '../../src/client/invalid-agent-input-error';
import { TestEnv } from '../helpers/test-env';

let env: TestEnv;
beforeAll(async () => {
  env = await TestEnv.create();
});
afterAll(async () => {
  await env.close();
});

describe('typed client', () => {
  test('startAgentRun, getAgentState and getAgentResult follow one run', async () => {
    const model = env.scenario([{ content: 'hello back', delayMs: 5_000 }]);
    const run = await startAgentRun(
      env.client,
      { model, tools: [], message: 'hello' },
      { taskQueue: env.taskQueue, workflowId: `client-${model}` },
    );
    expect(run.workflowId).toBe(`client-${model}`);

    const during = await getAgentState(env.client, run.workflowId);
    expect(during.status).toBe('running');

    const result = await getAgentResult(env.client, run.workflowId, run.runId);
    expect(result).toMatchObject({ schemaVersion: 1, response: 'hello back', terminationReason: { type: 'complete' } });
    expect(await getAgentState(env.client, run.workflowId)).toMatchObject({ status: 'completed', invocations: 1 });
  });

  test('runAgent returns the result with the ids of the run', async () => {
    const model = env.scenario([{ content: 'done' }]);
    const result = await runAgent(env.client, { model, tools: [], message: 'go' }, { taskQueue: env.taskQueue });
    expect(result.response).toBe('done');
    expect(result.workflowId).toMatch(/^agent-[0-9a-f-]{36}$/);
    expect(result.runId).toBeTruthy();
  });

  test('bad input throws InvalidAgentInputError before anything is started', async () => {
    const attempt = startAgentRun(
      env.client,
      { tools: [], message: '' },
      { taskQueue: env.taskQueue, workflowId: 'never-started' },
    );
    await expect(attempt).rejects.toThrow(InvalidAgentInputError);
    await expect(attempt).rejects.toThrow(
      'Invalid agent input: message: Too small: expected string to have >=1 characters',
    );
    await expect(env.client.workflow.getHandle('never-started').describe()).rejects.toThrow(/not found/i);
  });

  test('a failed run surfaces as AgentRunFailedError with its type and partial transcript', async () => {
    const model = env.scenario([{ content: 'I refuse to use tools.' }, { content: 'Still no.' }]);
    const run = await startAgentRun(
      env.client,
      { model, tools: ['finish'], message: 'go', terminating: { toolIds: ['finish'], consecutiveNudges: 1 } },
      { taskQueue: env.taskQueue },
    );
    const failure = await getAgentResult(env.client, run.workflowId).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(AgentRunFailedError);
    const error = failure as AgentRunFailedError;
    expect(error.type).toBe('MaxConsecutiveNudgesExceeded');
    expect(error.message).toBe('Max consecutive nudges exceeded');
    expect(error.details[0]).toMatchObject({ limit: 1, iterations: 2 });
    expect(await getAgentState(env.client, run.workflowId)).toMatchObject({
      status: 'failed',
      error: { type: 'MaxConsecutiveNudgesExceeded', message: 'Max consecutive nudges exceeded' },
    });
  });
});
