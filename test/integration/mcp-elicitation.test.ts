import { mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { ChildProcess } from 'node:child_process';
import type { WorkflowHandle } from '@temporalio/client';
import { newApiToken } from '../../src/config/principals';
import { answerElicitation } from '../../src/client/run-control';
import { getAgentState } from '../../src/client/agent-state';
import { DecisionRejectedError } from '../../src/client/decision-rejected-error';
import { eventsQuery, terminateSignal, userMessageSignal } from '../../src/workflow-contract/definitions';
import type { AnswerElicitationInput } from '../../src/shared/mcp-elicitation-answer';
import type { AgentResult } from '../../src/shared/agent-result';
import type { ChatMessage } from '../../src/shared/messages';
import { everythingStdio } from '../helpers/mcp-servers';
import { PROJECT_ROOT, cleanEnv, runProcess, startScript, stopChild } from '../helpers/processes';
import { TestEnv, testServerAddress } from '../helpers/test-env';
import { waitFor, waitForState } from '../helpers/wait';

/**
 * What an MCP server asks back during a tool call, through a real worker and
 * `@modelcontextprotocol/server-everything` over stdio: its `trigger-elicitation-request` asks a person (the run
 * waits for input as for `ask_question`, and the answer, given through the `answerElicitation` update by a client,
 * the CLI or the API, goes back to the server), its
 * `trigger-sampling-request` asks for a model answer (refused unless the server's entry allows sampling).
 */

let env: TestEnv;
beforeAll(async () => {
  env = await TestEnv.create({
    mcpServers: {
      everything: { ...everythingStdio(), timeout: '2 minutes' },
      sampler: { ...everythingStdio(), sampling: true, samplingMaxTokens: 50 },
    },
  });
});
afterAll(async () => {
  await env.close();
});

function toolResults(result: AgentResult): string[] {
  return result.messages.flatMap((message: ChatMessage) => (message.role === 'tool' ? [String(message.content)] : []));
}

/** A run whose model calls the server's elicitation tool, then finishes; waits until the server's question shows. */
async function startAskedRun(): Promise<WorkflowHandle> {
  const model = env.scenario([
    { toolCalls: [{ name: 'everything__trigger-elicitation-request', arguments: {} }] },
    { content: 'thanks' },
  ]);
  const handle = await env.start({ model, tools: ['everything__*'], message: 'ask me' });
  await waitForState(handle, (state) => state.status === 'waiting_for_input');
  return handle;
}

/** Answers the run's waiting question through the client's `answerElicitation`. */
function answer(handle: WorkflowHandle, input: AnswerElicitationInput) {
  return answerElicitation(env.client, handle.workflowId, input);
}

async function toolResultOf(handle: WorkflowHandle): Promise<string> {
  const result = (await handle.result()) as AgentResult;
  return toolResults(result)[0] ?? '';
}

describe("an MCP server's elicitation", () => {
  test('the run waits for input with the question; an accept goes back to the server, recorded with who answered', async () => {
    const handle = await startAskedRun();
    const state = await waitForState(handle, (current) => current.waitingFor === 'input');
    expect(state.question).toMatchObject({ callId: 'call-1-1', server: 'everything', elicitationId: 'call-1-1#1' });
    expect(state.question?.question).toMatch(/MCP server "everything" asks: Please provide inputs/);
    expect(state.question?.question).toMatch(/name \(string, required\)/);
    const { events } = await handle.query(eventsQuery, {});
    const request = events.find((event) => event.type === 'input-request');
    expect(request).toMatchObject({ callId: 'call-1-1', server: 'everything', elicitationId: 'call-1-1#1' });
    expect(JSON.parse((request as { requestedSchema: string }).requestedSchema)).toMatchObject({ required: ['name'] });

    const answered = await answer(handle, {
      elicitationId: 'call-1-1#1',
      action: 'accept',
      content: { name: 'Ada Lovelace' },
      by: { name: 'ada' },
    });
    expect(answered).toEqual({ elicitationId: 'call-1-1#1', callId: 'call-1-1', action: 'accept' });
    const result = await toolResultOf(handle);
    expect(result).toMatch(/User provided the requested information/);
    expect(result).toMatch(/- Name: Ada Lovelace/);
    const after = await handle.query(eventsQuery, {});
    expect(after.events).toContainEqual(
      expect.objectContaining({
        type: 'mcp-elicitation-end',
        elicitationId: 'call-1-1#1',
        outcome: 'answered',
        action: 'accept',
        by: { name: 'ada', via: 'client' },
      }),
    );
  });

  test('an accept fills several fields; the only waiting question needs no id', async () => {
    const handle = await startAskedRun();
    await answer(handle, { action: 'accept', content: { name: 'Grace', check: true, integer: 7 } });
    const result = await toolResultOf(handle);
    expect(result).toMatch(/- Name: Grace/);
    expect(result).toMatch(/- Agreed to terms: true/);
    expect(result).toMatch(/- Favorite Integer: 7/);
  });

  test('fields that do not fit the form are refused at once, and the question still waits', async () => {
    const handle = await startAskedRun();
    const missing = answer(handle, { action: 'accept', content: { check: true } });
    await expect(missing).rejects.toThrow(DecisionRejectedError);
    await expect(missing).rejects.toThrow(/the form needs "name"/);
    await expect(answer(handle, { action: 'accept', content: { name: 'Ada', integer: 'seven' } })).rejects.toThrow(
      /"integer" takes an integer/,
    );
    await expect(answer(handle, { action: 'accept', content: { name: 'Ada', nickname: 'A' } })).rejects.toThrow(
      /no field "nickname"/,
    );
    await expect(answer(handle, { elicitationId: 'call-9-9#1', action: 'decline' })).rejects.toThrow(
      /No MCP question "call-9-9#1" is waiting/,
    );
    expect((await handle.query('state')) as { waitingFor?: string }).toMatchObject({ waitingFor: 'input' });
    await answer(handle, { action: 'accept', content: { name: 'Ada' } });
    expect(await toolResultOf(handle)).toMatch(/- Name: Ada/);
  });

  test('a user message no longer answers the question: it waits for the conversation, the question for its answer', async () => {
    const handle = await startAskedRun();
    await handle.signal(userMessageSignal, { content: 'decline' });
    await waitFor(
      () => handle.query(eventsQuery, {}),
      (page) => page.events.some((event) => event.type === 'user-message'),
    );
    expect((await handle.query('state')) as { waitingFor?: string }).toMatchObject({ waitingFor: 'input' });
    await answer(handle, { action: 'decline' });
    expect(await toolResultOf(handle)).toMatch(/User declined to provide the requested information/);
  });

  test('cancel cancels', async () => {
    const handle = await startAskedRun();
    await answer(handle, { action: 'cancel' });
    expect(await toolResultOf(handle)).toMatch(/cancel/i);
  });

  test('a terminate while the question waits ends the wait and the run cleanly', async () => {
    const handle = await startAskedRun();
    await handle.signal(terminateSignal, { reason: 'no time' });
    const result = (await handle.result()) as AgentResult;
    expect(result.terminationReason).toEqual({ type: 'external', via: 'signal', reason: 'no time' });
    const { events } = await handle.query(eventsQuery, {});
    expect(events).toContainEqual(
      expect.objectContaining({ type: 'mcp-elicitation-end', elicitationId: 'call-1-1#1', outcome: 'abandoned' }),
    );
    // Read from the ended run's history: a query of a closed run waits for a worker to replay it, slow under load.
    const state = await getAgentState(env.client, handle.workflowId);
    expect(state).not.toHaveProperty('question');
    // The server is still usable afterwards: the next run is asked and answered. The cancellation reaches the
    // terminated call at its next heartbeat (about a second); until then a question would find two calls in flight.
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    const next = await startAskedRun();
    await answer(next, { action: 'accept', content: { name: 'after the terminate' } });
    expect(await toolResultOf(next)).toMatch(/- Name: after the terminate/);
  });

  test('an answer sent while the worker is down is taken when it is back, and reaches the retried call', async () => {
    const handle = await startAskedRun();
    await env.stopWorker();
    const sent = answer(handle, { action: 'accept', content: { name: 'Answered Offline' } });
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    await env.startWorker();
    await sent;
    const result = await toolResultOf(handle);
    // The call ran again (a new attempt, a new server process) and asked the same question: the answer stood.
    expect(result).toMatch(/- Name: Answered Offline/);
    const { events } = await handle.query(eventsQuery, {});
    expect(events.filter((event) => event.type === 'input-request')).toHaveLength(1);
  });

  test('a question still unanswered when the worker restarts waits on; the retried call gets the answer', async () => {
    const handle = await startAskedRun();
    await env.restartWorker();
    // The retried attempt (a new server process) asks the same question under the same id: nothing new is shown.
    await waitFor(
      () => handle.describe(),
      (description) => (description.raw.pendingActivities?.[0]?.attempt ?? 0) >= 2,
      60_000,
    );
    const state = await waitForState(handle, (current) => current.waitingFor === 'input');
    expect(state.question?.callId).toBe('call-1-1');
    await answer(handle, { action: 'accept', content: { name: 'Asked Once' } });
    expect(await toolResultOf(handle)).toMatch(/- Name: Asked Once/);
    const { events } = await handle.query(eventsQuery, {});
    expect(events.filter((event) => event.type === 'input-request')).toHaveLength(1);
  });

  test('`agent-runner answer --accept` answers it, recorded with the --as name', async () => {
    const handle = await startAskedRun();
    const finished = await runProcess(
      process.execPath,
      [
        path.join(PROJECT_ROOT, 'bin', 'agent-runner.js'),
        'answer',
        handle.workflowId,
        '--accept',
        '{"name": "From The CLI"}',
        '--as',
        'cli-user',
      ],
      {
        env: cleanEnv({ TEMPORAL_ADDRESS: testServerAddress(), AGENT_TASK_QUEUE: env.taskQueue }),
        timeoutMs: 90_000,
      },
    );
    expect(finished.stderr).toBe('');
    expect(finished.code).toBe(0);
    expect(finished.stdout).toMatch(/Answered call-1-1#1 \(call call-1-1\) in run .*: accept\./);
    expect(await toolResultOf(handle)).toMatch(/- Name: From The CLI/);
    const { events } = await handle.query(eventsQuery, {});
    expect(events).toContainEqual(
      expect.objectContaining({ type: 'mcp-elicitation-end', action: 'accept', by: { name: 'cli-user', via: 'cli' } }),
    );
  });
});

describe('POST /runs/:run_id/answer, in a real API process', () => {
  let api: { child: ChildProcess; url: string };
  const writer = newApiToken();
  const approver = newApiToken();
  beforeAll(async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'principals-'));
    const file = path.join(dir, 'principals.json');
    await writeFile(
      file,
      JSON.stringify([
        { name: 'writer', tokenSha256: writer.tokenSha256, scopes: ['runs:write', 'runs:read'] },
        { name: 'approver', tokenSha256: approver.tokenSha256, scopes: ['approvals:decide', 'runs:read'] },
      ]),
    );
    const started = await startScript(
      'src/api/main.ts',
      cleanEnv({
        TEMPORAL_ADDRESS: testServerAddress(),
        AGENT_TASK_QUEUE: env.taskQueue,
        AGENT_API_PRINCIPALS_FILE: file,
        AGENT_API_PORT: '0',
      }),
      /Agent API at http:\/\/127\.0\.0\.1:\d+/,
    );
    api = { child: started.child, url: /Agent API at (http:\/\/127\.0\.0\.1:\d+)/.exec(started.output())![1]! };
  }, 120_000);
  afterAll(async () => {
    await stopChild(api.child);
  });

  const post = async (token: string, route: string, body: unknown) => {
    const response = await fetch(`${api.url}${route}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };

  test('needs approvals:decide: runs:write is refused with 403; the approver is recorded as who answered', async () => {
    const handle = await startAskedRun();
    const route = `/runs/${encodeURIComponent(handle.workflowId)}/answer`;
    const refused = await post(writer.token, route, { action: 'accept', content: { name: 'Mallory' } });
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ error: { code: 'forbidden' } });
    const unfit = await post(approver.token, route, { action: 'accept', content: { nickname: 'x' } });
    expect(unfit.status).toBe(409);
    expect(unfit.body).toMatchObject({ error: { code: 'decision_rejected' } });
    const answered = await post(approver.token, route, {
      elicitation_id: 'call-1-1#1',
      action: 'accept',
      content: { name: 'Approved Person' },
    });
    expect(answered).toEqual({
      status: 200,
      body: { elicitationId: 'call-1-1#1', callId: 'call-1-1', action: 'accept' },
    });
    expect(await toolResultOf(handle)).toMatch(/- Name: Approved Person/);
    const { events } = await handle.query(eventsQuery, {});
    expect(events).toContainEqual(
      expect.objectContaining({ type: 'mcp-elicitation-end', action: 'accept', by: { name: 'approver', via: 'api' } }),
    );
  });
});

test('a question while two calls are in flight on the server is refused, not put to the wrong run', async () => {
  const slowModel = env.scenario([
    { toolCalls: [{ name: 'everything__trigger-long-running-operation', arguments: { duration: 6, steps: 2 } }] },
    { content: 'slow done' },
  ]);
  const slow = await env.start({ model: slowModel, tools: ['everything__*'], message: 'take your time' });
  await waitFor(
    () => slow.query(eventsQuery, {}),
    (page) => page.events.some((event) => event.type === 'tool-call-start'),
  );
  await new Promise((resolve) => setTimeout(resolve, 1_000)); // the slow call is in tools/call
  const model = env.scenario([
    { toolCalls: [{ name: 'everything__trigger-elicitation-request', arguments: {} }] },
    { content: 'refused' },
  ]);
  const asked = await env.run({ model, tools: ['everything__*'], message: 'ask me' });
  expect(toolResults(asked)[0]).toMatch(/2 of its tool calls are in flight, and MCP does not say which one asks/);
  expect(toolResults((await slow.result()) as AgentResult)[0]).toMatch(/Long running operation completed/);
});

describe("an MCP server's sampling request", () => {
  test('is refused with how to enable it when the server may not sample', async () => {
    const model = env.scenario([
      {
        toolCalls: [{ name: 'everything__trigger-sampling-request', arguments: { prompt: 'a haiku', maxTokens: 20 } }],
      },
      { content: 'done' },
    ]);
    const result = await env.run({ model, tools: ['everything__*'], message: 'sample' });
    const [text] = toolResults(result);
    expect(text).toMatch(/does not allow MCP server "everything" to sample its model/);
    expect(text).toMatch(/"sampling": true/);
  });

  test("is answered by the worker's model when the server's entry allows it, and counted in the run", async () => {
    env.model.script('unused-default', [{ content: 'sampled by the scripted model' }]);
    const model = env.scenario([
      { toolCalls: [{ name: 'sampler__trigger-sampling-request', arguments: { prompt: 'a haiku', maxTokens: 20 } }] },
      { content: 'done' },
    ]);
    const handle = await env.start({ model, tools: ['sampler__*'], message: 'sample' });
    const result = (await handle.result()) as AgentResult;
    const [text] = toolResults(result);
    expect(text).toMatch(/LLM sampling result/);
    expect(text).toMatch(/sampled by the scripted model/);
    const [request] = env.model.requests('unused-default');
    expect(request?.messages[0]).toEqual({ role: 'system', content: 'You are a helpful test server.' });
    expect(request?.messages[1]?.content).toMatch(/a haiku/);
    expect(request?.max_tokens).toBe(20);
    expect(env.model.requests(model)).toHaveLength(2);
    // The sampling call's tokens are the run's: an event says so, and the run's usage holds them.
    const { events } = await handle.query(eventsQuery, {});
    const sampled = events.filter((event) => event.type === 'mcp-sampling');
    expect(sampled).toEqual([
      expect.objectContaining({ callId: 'call-1-1', server: 'sampler', model: 'unused-default' }),
    ]);
    const samplingTokens = (sampled[0] as { usage: { totalTokens: number } }).usage.totalTokens;
    expect(samplingTokens).toBeGreaterThan(0);
    const modelTokens = events
      .filter((event) => event.type === 'model-response')
      .reduce((sum, event) => sum + (event as { usage: { totalTokens: number } }).usage.totalTokens, 0);
    expect(result.usage.totalTokens).toBe(modelTokens + samplingTokens);
  });

  test("a server's maxTokens above the entry's samplingMaxTokens is lowered to it", async () => {
    env.model.script('unused-default', [{ content: 'short' }]);
    const model = env.scenario([
      { toolCalls: [{ name: 'sampler__trigger-sampling-request', arguments: { prompt: 'an epic', maxTokens: 5000 } }] },
      { content: 'done' },
    ]);
    await env.run({ model, tools: ['sampler__*'], message: 'sample' });
    expect(env.model.requests('unused-default').at(-1)?.max_tokens).toBe(50);
  });

  test("the sampling call's tokens count against the run's token budget", async () => {
    env.model.script('unused-default', [{ content: 'long', reasoningTokens: 100_000 }]);
    const model = env.scenario([
      { toolCalls: [{ name: 'sampler__trigger-sampling-request', arguments: { prompt: 'think', maxTokens: 20 } }] },
      { content: 'never reached' },
    ]);
    const failure = await env.runExpectingFailure({
      model,
      tools: ['sampler__*'],
      message: 'sample',
      tokenBudget: { maxTotal: 50_000 },
    });
    expect(failure.type).toBe('TokenBudgetExhausted');
    expect(env.model.requests(model)).toHaveLength(1);
  });
});
