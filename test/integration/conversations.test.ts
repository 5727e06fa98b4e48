import { getConversation, sendChatTurn } from '../../src/client/conversations';
import { ChatTurnFailedError } from '../../src/client/chat-turn-failed-error';
import {
  CONVERSATION_INPUT_VERSION,
  CONVERSATION_WORKFLOW_TYPE,
  conversationWorkflowId,
  type ConversationInput,
} from '../../src/shared/conversation';
import { TestEnv } from '../helpers/test-env';
import { waitFor } from '../helpers/wait';
import { randomUUID } from 'node:crypto';

let env: TestEnv;
beforeAll(async () => {
  env = await TestEnv.create();
});
afterAll(async () => {
  await env.close();
});

describe('conversation workflow', () => {
  test('continues as new after its turns per run, carrying the history and the turn count', async () => {
    const contextId = `can-${randomUUID().slice(0, 8)}`;
    const workflowId = conversationWorkflowId(contextId);
    const first = await env.client.workflow.start(CONVERSATION_WORKFLOW_TYPE, {
      taskQueue: env.taskQueue,
      workflowId,
      args: [{ schemaVersion: CONVERSATION_INPUT_VERSION, contextId, turnsPerRun: 2 } satisfies ConversationInput],
    });
    const model = env.scenario([{ content: 'one' }, { content: 'two' }, { content: 'three' }]);
    const settings = { model, tools: ['calculator'] };
    for (const message of ['first', 'second', 'third']) {
      const result = await sendChatTurn(
        env.client,
        contextId,
        { kind: 'chat', message, settings },
        { taskQueue: env.taskQueue },
      );
      expect(result.savedAiMessages).toBe(true);
    }
    const latest = await env.client.workflow.getHandle(workflowId).describe();
    expect(latest.runId).not.toBe(first.firstExecutionRunId);
    const conversation = await getConversation(env.client, contextId);
    expect(conversation).toMatchObject({ turns: 3, ended: false });
    expect(conversation?.messages.map((message) => message.content)).toEqual([
      'first',
      'one',
      'second',
      'two',
      'third',
      'three',
    ]);
    // The third turn, after the continue-as-new, still saw the whole history.
    expect(env.model.requests(model)[2]?.messages).toHaveLength(5);
  });

  test("a retried request (same update id) gets its turn's answer again, also after a continue-as-new", async () => {
    const contextId = `retry-${randomUUID().slice(0, 8)}`;
    await env.client.workflow.start(CONVERSATION_WORKFLOW_TYPE, {
      taskQueue: env.taskQueue,
      workflowId: conversationWorkflowId(contextId),
      args: [{ schemaVersion: CONVERSATION_INPUT_VERSION, contextId, turnsPerRun: 1 } satisfies ConversationInput],
    });
    const model = env.scenario([{ content: 'only once' }, { content: 'a second run' }]);
    const request = { kind: 'chat' as const, message: 'hello', settings: { model, tools: ['calculator'] } };
    const first = await sendChatTurn(env.client, contextId, request, {
      taskQueue: env.taskQueue,
      idempotencyKey: 'key-1',
    });
    // The turn ended the run's quota, so the conversation has continued as new by now.
    const retried = await sendChatTurn(env.client, contextId, request, {
      taskQueue: env.taskQueue,
      idempotencyKey: 'key-1',
    });
    expect(retried).toEqual(first);
    expect(env.model.requests(model)).toHaveLength(1);
    expect(await getConversation(env.client, contextId)).toMatchObject({ turns: 1 });
  });

  test('a retried add-ai-message turn with tool calls gets the same generated messages after a continue-as-new', async () => {
    const contextId = `retry-shape-${randomUUID().slice(0, 8)}`;
    const started = await env.client.workflow.start(CONVERSATION_WORKFLOW_TYPE, {
      taskQueue: env.taskQueue,
      workflowId: conversationWorkflowId(contextId),
      args: [{ schemaVersion: CONVERSATION_INPUT_VERSION, contextId, turnsPerRun: 2 } satisfies ConversationInput],
    });
    const model = env.scenario([
      { content: 'hi there' },
      { toolCalls: [{ name: 'calculator', arguments: { expression: '6 * 7' }, id: 'call_calc' }] },
      { content: 'It is 42.' },
    ]);
    const settings = { model, tools: ['calculator'] };
    const options = { taskQueue: env.taskQueue };

    await sendChatTurn(env.client, contextId, { kind: 'chat', message: 'hello', settings }, options);
    const request = { kind: 'add-ai-message' as const, prompt: 'Say what 6 * 7 is.', settings };
    const first = await sendChatTurn(env.client, contextId, request, { ...options, idempotencyKey: 'key-2' });
    expect(first.generatedMessages).toEqual([
      { type: 'tool_call', tool_call_id: 'call-1-1', tool_name: 'calculator', tool_input: { expression: '6 * 7' } },
      { type: 'tool_response', tool_call_id: 'call-1-1', tool_output: '42' },
      { sender: 'ai', message: 'It is 42.' },
    ]);
    // Two turns ended this run's quota: the retry is answered by the continued run, from the history.
    const firstRun = env.client.workflow.getHandle(started.workflowId, started.firstExecutionRunId);
    await waitFor(
      () => firstRun.describe(),
      (description) => description.status.name === 'CONTINUED_AS_NEW',
    );
    const retried = await sendChatTurn(env.client, contextId, request, { ...options, idempotencyKey: 'key-2' });
    expect(retried).toEqual(first);
    expect(env.model.requests(model)).toHaveLength(3);
  });

  test('a failed turn names its run and type; the run input is checked before anything starts', async () => {
    const contextId = `fail-${randomUUID().slice(0, 8)}`;
    const refused = sendChatTurn(
      env.client,
      contextId,
      { kind: 'chat', message: 'hi', settings: { tools: [] as string[], maxInvocations: -1 } },
      { taskQueue: env.taskQueue },
    );
    await expect(refused).rejects.toMatchObject({
      name: 'ChatTurnFailedError',
      type: 'InvalidAgentInput',
      problems: [expect.stringContaining('maxInvocations')],
    });

    const model = env.scenario([{ error: { status: 401, message: 'Incorrect API key provided' } }]);
    const failing = await sendChatTurn(
      env.client,
      contextId,
      { kind: 'chat', message: 'hi', settings: { model, tools: ['calculator'] } },
      { taskQueue: env.taskQueue },
    ).catch((error: unknown) => error);
    expect(failing).toBeInstanceOf(ChatTurnFailedError);
    expect(failing).toMatchObject({
      type: expect.stringMatching(/^ModelCall\./),
      runId: expect.stringMatching(new RegExp(`^${conversationWorkflowId(contextId)}:[0-9a-f]{8}:turn-1$`)),
      message: expect.stringContaining('Incorrect API key'),
    });
    expect(await getConversation(env.client, contextId)).toMatchObject({ turns: 1, messages: [] });
    // The next turn gets a run of its own; the failed one stays in Temporal under its id.
    const next = env.scenario([{ content: 'fine now' }]);
    const answered = await sendChatTurn(
      env.client,
      contextId,
      { kind: 'chat', message: 'again', settings: { model: next, tools: ['calculator'] } },
      { taskQueue: env.taskQueue },
    );
    expect(answered).toMatchObject({
      turn: 2,
      runId: expect.stringMatching(new RegExp(`^${conversationWorkflowId(contextId)}:[0-9a-f]{8}:turn-2$`)),
      response: 'fine now',
    });
  });
});
