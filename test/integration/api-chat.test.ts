import { TEST_TOKEN, TestApi } from '../helpers/api';
import { randomUUID } from 'node:crypto';
import { useApiWorld } from '../helpers/api-world';

const world = useApiWorld();

const context = () => `ctx-${randomUUID().slice(0, 8)}`;

/** The run id of a turn: the conversation, its generation (8 hex digits), the turn. */
const turnRun = (contextId: string, turn: number) => new RegExp(`^conversation:${contextId}:[0-9a-f]{8}:turn-${turn}$`);

describe('POST /chat', () => {
  test('without terminating_config: the model answers, the answer is the response, in the chat response format', async () => {
    const model = world.env.scenario([{ content: 'Hello! 2 + 2 is 4.' }]);
    const answer = await world.api.post('/chat', { context_id: context(), message: 'hi, what is 2 + 2?', model });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({
      response: 'Hello! 2 + 2 is 4.',
      saved_ai_messages: true,
      generated_messages: [
        { sender: 'human', message: 'hi, what is 2 + 2?' },
        { sender: 'ai', message: 'Hello! 2 + 2 is 4.' },
      ],
    });
    expect(answer.headers.get('agent-run-id')).toMatch(/^conversation:ctx-[0-9a-f]{8}:[0-9a-f]{8}:turn-1$/);
    expect(answer.headers.get('agent-turn')).toBe('1');
  });

  test('with terminating_config: tools run until the terminating tool, whose output is the response', async () => {
    const model = world.env.scenario([
      { toolCalls: [{ name: 'calculator', arguments: { expression: '6 * 7' }, id: 'call_calc' }] },
      { toolCalls: [{ name: 'finish', arguments: { note: 'The answer is 42' }, id: 'call_finish' }] },
    ]);
    const answer = await world.api.post('/chat', {
      context_id: context(),
      message: 'compute 6 * 7 and report',
      model,
      terminating_config: {
        tool_ids: ['finish'],
        consecutive_nudges: 2,
        nudge_message: 'Call finish.',
        max_invocations: 5,
      },
    });
    expect(answer.status).toBe(200);
    expect(answer.body.response).toBe('The answer is 42');
    expect(answer.body.saved_ai_messages).toBe(true);
    expect(answer.body.generated_messages).toEqual([
      { sender: 'human', message: 'compute 6 * 7 and report' },
      // Calls are named by the runner's ids (call-<model call>-<n>), not the model's.
      { type: 'tool_call', tool_call_id: 'call-1-1', tool_name: 'calculator', tool_input: { expression: '6 * 7' } },
      { type: 'tool_response', tool_call_id: 'call-1-1', tool_output: '42' },
      { type: 'tool_call', tool_call_id: 'call-2-1', tool_name: 'finish', tool_input: { note: 'The answer is 42' } },
      { type: 'tool_response', tool_call_id: 'call-2-1', tool_output: 'The answer is 42' },
    ]);
    // `finish` was not in the request's tools: naming it in tool_ids is enough.
    expect(
      world.env.model
        .requests(model)[0]
        ?.tools?.map((tool) => tool.function.name)
        .sort(),
    ).toEqual(['calculator', 'finish']);
  });

  test("the chat endpoints' error conditions answer 422 with a stable code, and leave the conversation as it was", async () => {
    const contextId = context();
    const first = world.env.scenario([{ content: 'noted' }]);
    expect((await world.api.post('/chat', { context_id: contextId, message: 'remember 7', model: first })).status).toBe(
      200,
    );

    const chatty = world.env.scenario([{ content: 'I think...' }, { content: 'Still thinking' }]);
    const nudges = await world.api.post('/chat', {
      context_id: contextId,
      message: 'go',
      model: chatty,
      terminating_config: { tool_ids: ['finish'] },
    });
    expect(nudges.status).toBe(422);
    expect(nudges.body.error).toMatchObject({
      code: 'max_consecutive_nudges_exceeded',
      message: 'Max consecutive nudges exceeded',
      details: { type: 'MaxConsecutiveNudgesExceeded', run_id: expect.stringMatching(turnRun(contextId, 2)) },
    });

    const looping = world.env.scenario([{ toolCalls: [{ name: 'calculator', arguments: { expression: '1+1' } }] }]);
    const invocations = await world.api.post('/chat', {
      context_id: contextId,
      message: 'go',
      model: looping,
      terminating_config: { tool_ids: ['finish'], max_invocations: 1 },
    });
    expect(invocations.status).toBe(422);
    expect(invocations.body.error).toMatchObject({
      code: 'max_invocations_exceeded',
      message: 'Max invocations exceeded',
      details: { run_id: expect.stringMatching(turnRun(contextId, 3)) },
    });

    const conversation = await world.api.get(`/conversations/${contextId}`);
    expect(conversation.status).toBe(200);
    expect(conversation.body).toMatchObject({ context_id: contextId, turns: 3, ended: false, active_turn: null });
    expect(
      conversation.body.messages.map(
        (message: { role: string; content: string }) => `${message.role}:${message.content}`,
      ),
    ).toEqual(['user:remember 7', 'assistant:noted']);
  });
});

describe('POST /chat/invoke and /chat/add-ai-message', () => {
  test('invoke runs the agent on the conversation as it is, with and without terminating_config', async () => {
    const contextId = context();
    const opening = world.env.scenario([{ content: 'Sure, ask me again and I will compute it.' }]);
    await world.api.post('/chat', { context_id: contextId, message: 'compute 3 * 3 when invoked', model: opening });

    const plain = world.env.scenario([{ content: '3 * 3 is 9' }]);
    const invoked = await world.api.post('/chat/invoke', { context_id: contextId, model: plain });
    expect(invoked.status).toBe(200);
    expect(invoked.body).toEqual({
      response: '3 * 3 is 9',
      saved_ai_messages: true,
      generated_messages: [{ sender: 'ai', message: '3 * 3 is 9' }],
    });
    expect(world.env.model.requests(plain)[0]?.messages.map((message) => message.content)).toEqual([
      'compute 3 * 3 when invoked',
      'Sure, ask me again and I will compute it.',
    ]);

    const terminating = world.env.scenario([
      { toolCalls: [{ name: 'finish', arguments: { note: 'done: 9' }, id: 'call_f' }] },
    ]);
    const finished = await world.api.post('/chat/invoke', {
      context_id: contextId,
      model: terminating,
      terminating_config: { tool_ids: ['finish'] },
    });
    expect(finished.status).toBe(200);
    expect(finished.body.response).toBe('done: 9');
    expect(finished.body.generated_messages).toEqual([
      { type: 'tool_call', tool_call_id: 'call-1-1', tool_name: 'finish', tool_input: { note: 'done: 9' } },
      { type: 'tool_response', tool_call_id: 'call-1-1', tool_output: 'done: 9' },
    ]);
  });

  test('invoke on a context with no conversation is refused with 409, before any model call', async () => {
    const model = world.env.scenario([{ content: 'never sent' }]);
    const contextId = context();
    const answer = await world.api.post('/chat/invoke', { context_id: contextId, model });
    expect(answer.status).toBe(409);
    expect(answer.body.error.code).toBe('conversation_empty');
    expect(world.env.model.requests(model)).toHaveLength(0);
    // Refusing it created nothing.
    expect((await world.api.get(`/conversations/${contextId}`)).status).toBe(404);
    expect((await world.api.post('/chat/add-ai-message', { context_id: contextId, model })).body.error.code).toBe(
      'conversation_empty',
    );
  });

  test('add-ai-message: the prompt steers the AI message and stays in the history as a system message', async () => {
    const contextId = context();
    const opening = world.env.scenario([{ content: 'Welcome.' }]);
    await world.api.post('/chat', { context_id: contextId, message: 'I want a summary later', model: opening });

    const prompted = world.env.scenario([
      { toolCalls: [{ name: 'finish', arguments: { note: 'Summary: you want a summary.' }, id: 'call_s' }] },
    ]);
    const answer = await world.api.post('/chat/add-ai-message', {
      context_id: contextId,
      prompt: 'Summarise the conversation and return it through finish',
      model: prompted,
      terminating_config: { tool_ids: ['finish'], max_invocations: 10 },
    });
    expect(answer.status).toBe(200);
    expect(answer.body.response).toBe('Summary: you want a summary.');
    const sent = world.env.model.requests(prompted)[0]?.messages ?? [];
    expect(sent.at(-1)).toMatchObject({
      role: 'system',
      content: 'Summarise the conversation and return it through finish',
    });

    const plain = world.env.scenario([{ content: 'Anything else?' }]);
    const unprompted = await world.api.post('/chat/add-ai-message', { context_id: contextId, model: plain });
    expect(unprompted.status).toBe(200);
    expect(unprompted.body).toEqual({
      response: 'Anything else?',
      saved_ai_messages: true,
      generated_messages: [{ sender: 'ai', message: 'Anything else?' }],
    });
    const conversation = await world.api.get(`/conversations/${contextId}`);
    expect(conversation.body.turns).toBe(3);
  });
});

describe('conversations', () => {
  test('a second request continues the history, across a worker restart and an API restart between them', async () => {
    const contextId = context();
    const first = world.env.scenario([{ content: 'Nice to meet you, Ada.' }]);
    const one = await world.api.post('/chat', { context_id: contextId, message: 'My name is Ada.', model: first });
    expect(one.status).toBe(200);

    await world.env.restartWorker();
    const restartedApi = await TestApi.start(world.env);
    try {
      const second = world.env.scenario([{ content: 'Your name is Ada.' }]);
      const two = await restartedApi.post('/chat', {
        context_id: contextId,
        message: 'What is my name?',
        model: second,
      });
      expect(two.status).toBe(200);
      expect(two.body.response).toBe('Your name is Ada.');
      expect(two.body.generated_messages).toEqual([
        { sender: 'human', message: 'What is my name?' },
        { sender: 'ai', message: 'Your name is Ada.' },
      ]);
      // The model saw the first exchange: the history came from the conversation, not from the request.
      expect(
        world.env.model.requests(second)[0]?.messages.map((message) => `${message.role}:${message.content}`),
      ).toEqual(['user:My name is Ada.', 'assistant:Nice to meet you, Ada.', 'user:What is my name?']);
      const conversation = await restartedApi.get(`/conversations/${contextId}`);
      expect(conversation.body).toMatchObject({ turns: 2, active_turn: null });
      expect(conversation.body.messages).toHaveLength(4);
    } finally {
      await restartedApi.close();
    }
  });

  test('a request while a turn runs on the same context gets 409; the running turn is not disturbed', async () => {
    const contextId = context();
    const slow = world.env.scenario([{ content: 'slow answer', delayMs: 10_000 }]);
    const running = world.api.post('/chat', { context_id: contextId, message: 'take your time', model: slow });
    // Wait until the turn is under way, then send the second request.
    let active: Record<string, unknown> | null = null;
    for (let attempt = 0; attempt < 100 && active === null; attempt++) {
      const conversation = await world.api.get(`/conversations/${contextId}`);
      active = conversation.status === 200 ? conversation.body.active_turn : null;
      if (active === null) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(active).toMatchObject({ turn: 1, kind: 'chat', run_id: expect.stringMatching(turnRun(contextId, 1)) });

    const other = world.env.scenario([{ content: 'never sent' }]);
    const refused = await world.api.post('/chat', { context_id: contextId, message: 'me too', model: other });
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('conversation_busy');
    expect(refused.body.error.message).toContain((active as { run_id: string }).run_id);

    const answered = await running;
    expect(answered.status).toBe(200);
    expect(answered.body.response).toBe('slow answer');
    expect(world.env.model.requests(other)).toHaveLength(0);
  });

  test('two simultaneous first requests on a new context make one conversation: one turn runs, the other gets 409', async () => {
    const contextId = context();
    const slow = world.env.scenario([
      { content: 'first', delayMs: 8_000 },
      { content: 'second', delayMs: 8_000 },
    ]);
    const answers = await Promise.all([
      world.api.post('/chat', { context_id: contextId, message: 'one', model: slow }),
      world.api.post('/chat', { context_id: contextId, message: 'two', model: slow }),
    ]);
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 409]);
    expect(answers.find((answer) => answer.status === 409)?.body.error.code).toBe('conversation_busy');
    expect(world.env.model.requests(slow)).toHaveLength(1);
    expect((await world.api.get(`/conversations/${contextId}`)).body).toMatchObject({ turns: 1 });
  });

  test('a context id of the longest allowed length works everywhere, its turn runs included', async () => {
    const contextId = `long-${'x'.repeat(195)}`;
    const answer = await world.api.post('/chat', {
      context_id: contextId,
      message: 'hi',
      model: world.env.scenario([{ content: 'hello' }]),
    });
    expect(answer.status).toBe(200);
    expect((await world.api.get(`/conversations/${contextId}`)).body.turns).toBe(1);
    const runId = answer.headers.get('agent-run-id') as string;
    expect((await world.api.get(`/runs/${encodeURIComponent(runId)}`)).body.state.status).toBe('completed');
    expect((await world.api.post('/chat', { context_id: `${contextId}y`, message: 'hi' })).body.error.details).toEqual([
      { field: 'context_id', problem: expect.any(String) },
    ]);
  });

  test('a retried request with the same Idempotency-Key answers the same turn instead of running another', async () => {
    const contextId = context();
    const model = world.env.scenario([{ content: 'once' }, { content: 'twice' }]);
    const headers = { 'idempotency-key': `key-${contextId}` };
    const first = await world.api.post('/chat', { context_id: contextId, message: 'hello', model }, headers);
    const retried = await world.api.post('/chat', { context_id: contextId, message: 'hello', model }, headers);
    expect(first.body.response).toBe('once');
    expect(retried.status).toBe(200);
    expect(retried.body).toEqual(first.body);
    expect(world.env.model.requests(model)).toHaveLength(1);
  });

  test('DELETE ends the conversation; the next request on the context starts afresh', async () => {
    const contextId = context();
    const firstLife = await world.api.post('/chat', {
      context_id: contextId,
      message: 'first life',
      model: world.env.scenario([{ content: 'ok' }]),
    });
    const ended = await world.api.request('DELETE', `/conversations/${contextId}`);
    expect(ended.status).toBe(202);
    const handle = world.env.client.workflow.getHandle(`conversation:${contextId}`);
    await handle.result();

    const nothingToInvoke = await world.api.post('/chat/invoke', {
      context_id: contextId,
      model: world.env.scenario([]),
    });
    expect(nothingToInvoke.body.error.code).toBe('conversation_empty');
    const fresh = world.env.scenario([{ content: 'new conversation' }]);
    const answer = await world.api.post('/chat', { context_id: contextId, message: 'second life', model: fresh });
    expect(answer.status).toBe(200);
    expect(world.env.model.requests(fresh)[0]?.messages.map((message) => message.content)).toEqual(['second life']);
    // Turn 1 of the new conversation is a run of its own, not the old turn 1 again.
    expect(answer.headers.get('agent-run-id')).not.toBe(firstLife.headers.get('agent-run-id'));
    expect((await world.api.get('/conversations/no-such-context')).status).toBe(404);
  });
});

describe('authentication and bad requests', () => {
  test('without the token, or with a wrong one, a request gets 401 and nothing else: no body check, no run', async () => {
    const contextId = context();
    const model = world.env.scenario([{ content: 'never sent' }]);
    for (const headers of [
      { authorization: '' },
      { authorization: 'Bearer wrong-token' },
      { authorization: `Basic ${TEST_TOKEN}` },
    ]) {
      const answer = await world.api.post('/chat', { context_id: contextId, message: 'hi', model }, headers);
      expect(answer.status).toBe(401);
      expect(answer.headers.get('www-authenticate')).toBe('Bearer');
      expect(answer.body).toEqual({
        error: { code: 'unauthorized', message: expect.stringContaining('bearer token') },
      });
    }
    // Even a malformed body or URL is not looked at.
    expect((await world.api.get(`/runs/${'x'.repeat(1500)}`, { authorization: '' })).status).toBe(401);
    expect((await world.api.get('/runs/%zz', { authorization: '' })).status).toBe(401);
    expect((await world.api.get('/runs/%zz')).body.error.code).toBe('bad_request');
    const malformed = await world.api.post('/chat', '{not json', { authorization: '' });
    expect(malformed.status).toBe(401);
    expect((await world.api.get('/runs', { authorization: '' })).status).toBe(401);
    expect(world.env.model.requests(model)).toHaveLength(0);
    expect((await world.api.get(`/conversations/${contextId}`)).status).toBe(404);
    // The liveness probe alone is open, and says nothing about runs.
    expect((await world.api.get('/healthz', { authorization: '' })).body).toEqual({ ok: true });
  });

  test('invalid bodies get 400 naming each field and why', async () => {
    const missing = await world.api.post('/chat', { message: 'hi' });
    expect(missing.status).toBe(400);
    expect(missing.body.error.code).toBe('invalid_body');
    expect(missing.body.error.details).toEqual([{ field: 'context_id', problem: expect.any(String) }]);

    const wrong = await world.api.post('/chat', {
      context_id: 'has spaces',
      message: '',
      terminating_config: { tool_ids: [], max_invocations: 0, typo: 1 },
    });
    expect(wrong.status).toBe(400);
    const fields = (wrong.body.error.details as { field: string }[]).map((detail) => detail.field).sort();
    expect(fields).toEqual([
      'context_id',
      'message',
      'terminating_config',
      'terminating_config.max_invocations',
      'terminating_config.tool_ids',
    ]);

    const extra = await world.api.post('/chat/invoke', { context_id: 'ok', prompt: 'not a field of invoke' });
    expect(extra.status).toBe(400);
    expect(extra.body.error.details).toEqual([{ field: '(body)', problem: expect.stringContaining('prompt') }]);

    const json = await world.api.post('/chat', '{"context_id": ', {});
    expect(json.status).toBe(400);
    expect(json.body.error.code).toBe('invalid_json');

    const unknownTool = await world.api.post('/chat', {
      context_id: context(),
      message: 'hi',
      model: world.env.scenario([]),
      tools: ['no_such_tool'],
    });
    expect(unknownTool.status).toBe(400);
    expect(unknownTool.body.error.code).toBe('invalid_agent_input');
    expect(unknownTool.body.error.message).toContain('unknown tool "no_such_tool"');
  });

  test('bodies over the limit get 413', async () => {
    const small = await TestApi.start(world.env, { bodyLimit: 2048 });
    try {
      const answer = await small.post('/chat', { context_id: context(), message: 'x'.repeat(4096) });
      expect(answer.status).toBe(413);
      expect(answer.body.error.code).toBe('body_too_large');
    } finally {
      await small.close();
    }
  });

  test('unknown routes get a JSON 404', async () => {
    const answer = await world.api.get('/nope');
    expect(answer.status).toBe(404);
    expect(answer.body.error.code).toBe('route_not_found');
  });
});
