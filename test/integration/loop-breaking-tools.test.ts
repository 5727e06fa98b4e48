import { eventsQuery, userMessageSignal } from '../../src/workflow-contract/definitions';
import { type AgentResult } from '../../src/shared/agent-result';
import { TestEnv } from '../helpers/test-env';
import { waitForState } from '../helpers/wait';

let env: TestEnv;
beforeAll(async () => {
  env = await TestEnv.create();
});
afterAll(async () => {
  await env.close();
});

const tools = ['ask_question', 'converse', 'task_completion', 'calculator'];
const ask = (question: string) => ({ toolCalls: [{ name: 'ask_question', arguments: { question }, id: 'call_ask' }] });

describe('loop-breaking tools', () => {
  test('converse ends the run with its reply as the response', async () => {
    const model = env.scenario([
      { toolCalls: [{ name: 'converse', arguments: { message: 'Hello! How can I help?' }, id: 'call_hi' }] },
    ]);
    const result = await env.run({ model, tools, message: 'hi' });
    expect(result.response).toBe('Hello! How can I help?');
    expect(result.terminationReason).toEqual({ type: 'terminating_tool', toolName: 'converse', callId: 'call-1-1' });
  });

  test('ask_question pauses the run with the question in state; userMessage resumes it with the answer as a user message', async () => {
    const model = env.scenario([
      ask('Which year?'),
      { toolCalls: [{ name: 'task_completion', arguments: { result: 'Report for 2025 done.' } }] },
    ]);
    const handle = await env.start({ model, tools, message: 'Make the yearly report.' });
    const waiting = await waitForState(handle, (state) => state.status === 'waiting_for_input');
    expect(waiting).toMatchObject({ waitingFor: 'input', question: { callId: 'call-1-1', question: 'Which year?' } });
    expect((await handle.describe()).searchAttributes.AgentStatus).toEqual(['waiting_for_input']);

    await handle.signal(userMessageSignal, { content: '2025, please.' });
    const result = (await handle.result()) as AgentResult;
    expect(result.response).toBe('Report for 2025 done.');
    expect(result.messages.map((message) => message.role)).toEqual([
      'user',
      'assistant',
      'tool',
      'user',
      'assistant',
      'tool',
    ]);
    expect(result.messages[2]).toMatchObject({ content: 'Asked the user: Which year?' });
    expect(env.model.requests(model)[1]?.messages.at(-1)).toEqual({ role: 'user', content: '2025, please.' });
    const { events } = await handle.query(eventsQuery, {});
    expect(events.map((event) => event.type)).toEqual(expect.arrayContaining(['input-request', 'user-message']));
  });

  test('inputTimeout ends a run that waits too long with input_timeout', async () => {
    const model = env.scenario([ask('Are you there?')]);
    const result = await env.run({ model, tools, message: 'go', inputTimeout: '1s' });
    expect(result.terminationReason).toEqual({ type: 'input_timeout', question: 'Are you there?', limit: '1s' });
    expect(result.response).toBe('Are you there?');
  });

  test('a worker restart while waiting loses nothing: the answer resumes the run on the new worker', async () => {
    const model = env.scenario([
      ask('Which file?'),
      { toolCalls: [{ name: 'converse', arguments: { message: 'Got it: notes.md' } }] },
    ]);
    const handle = await env.start({ model, tools, message: 'go' });
    await waitForState(handle, (state) => state.status === 'waiting_for_input');
    await env.restartWorker();
    await waitForState(handle, (state) => state.status === 'waiting_for_input');
    await handle.signal(userMessageSignal, { content: 'notes.md' });
    expect(((await handle.result()) as AgentResult).response).toBe('Got it: notes.md');
  });

  test('the answer starts a new turn: stop conditions count from it', async () => {
    const model = env.scenario([
      ask('Go on?'),
      { toolCalls: [{ name: 'calculator', arguments: { expression: '1+1' } }] },
      { toolCalls: [{ name: 'calculator', arguments: { expression: '2+2' } }] },
    ]);
    const handle = await env.start({ model, tools, message: 'go', stopWhen: { maxIterations: 2 } });
    await waitForState(handle, (state) => state.status === 'waiting_for_input');
    await handle.signal(userMessageSignal, { content: 'yes' });
    const result = (await handle.result()) as AgentResult;
    // One call before the question, two in the new turn: the condition counted the turn, not the run.
    expect(result.terminationReason).toMatchObject({ type: 'stop_condition', condition: 'maxIterations(2)' });
    expect(result.invocations).toBe(3);
  });
});

describe('requireToolCall: every iteration must call a tool', () => {
  test('a text answer gets an error context and another call; a tool call resets the count', async () => {
    const model = env.scenario([
      { content: 'I think the answer is 4.' },
      { toolCalls: [{ name: 'calculator', arguments: { expression: '2+2' } }] },
      { content: 'It is 4.' },
      { toolCalls: [{ name: 'task_completion', arguments: { result: '4' } }] },
    ]);
    const result = await env.run({ model, tools, message: '2+2?', requireToolCall: true });
    expect(result.response).toBe('4');
    const contexts = result.messages.filter(
      (message) => message.role === 'system' && message.meta?.injected === 'error_context',
    );
    expect(contexts.map((message) => message.meta?.iteration)).toEqual([1, 3]);
    expect(contexts[0]?.content).toMatch(/^Error: your last answer called no tool\./);
    expect(env.model.requests(model)[1]?.messages.at(-1)).toMatchObject({
      role: 'system',
      content: contexts[0]?.content,
    });
  });

  test('text answers in a row beyond the breaker threshold fail like nudges', async () => {
    const model = env.scenario([{ content: 'a' }, { content: 'b' }, { content: 'c' }]);
    const failure = await env.runExpectingFailure({
      model,
      tools,
      message: 'go',
      requireToolCall: true,
      circuitBreaker: { threshold: 2 },
    });
    expect(failure.type).toBe('MaxConsecutiveNudgesExceeded');
    expect(env.model.requests(model)).toHaveLength(3);
  });
});

describe('stop conditions reset when an answer starts a new turn', () => {
  test('functionCall: a tool executed in the previous turn no longer counts', async () => {
    const model = env.scenario([
      { toolCalls: [{ name: 'calculator', arguments: { expression: '1+1' } }] },
      ask('Shall I finish?'),
      { content: 'DONE' },
    ]);
    const handle = await env.start({
      model,
      tools,
      message: 'go',
      stopWhen: { all: [{ functionCall: 'calculator' }, { textMention: 'DONE' }] },
    });
    await waitForState(handle, (state) => state.status === 'waiting_for_input');
    await handle.signal(userMessageSignal, { content: 'yes' });
    // Without the reset, calculator (turn 1) and DONE (turn 2) would together hold.
    expect(((await handle.result()) as AgentResult).terminationReason).toEqual({ type: 'complete' });
  });

  test('maxMessages: the count starts again from the answer', async () => {
    const model = env.scenario([
      ask('Continue?'),
      { toolCalls: [{ name: 'calculator', arguments: { expression: '3*3' } }] },
      { content: 'fine' },
    ]);
    const handle = await env.start({ model, tools, message: 'go', stopWhen: { maxMessages: 3 } });
    await waitForState(handle, (state) => state.status === 'waiting_for_input');
    await handle.signal(userMessageSignal, { content: 'yes' });
    const result = (await handle.result()) as AgentResult;
    // Turn 2 produced assistant, tool, assistant: the third holds. Counting turn 1's two messages too, it would
    // have held one answer earlier.
    expect(result.terminationReason).toMatchObject({ type: 'stop_condition', condition: 'maxMessages(3)' });
    expect(result.response).toBe('fine');
    expect(result.invocations).toBe(3);
  });

  test('textMention: a mention in the previous turn no longer counts', async () => {
    const model = env.scenario([
      { content: 'Should I APPROVE this?', toolCalls: [{ name: 'ask_question', arguments: { question: 'Approve?' } }] },
      { toolCalls: [{ name: 'calculator', arguments: { expression: '1+2' } }] },
      { content: 'done' },
    ]);
    const handle = await env.start({
      model,
      tools,
      message: 'go',
      stopWhen: { all: [{ textMention: 'APPROVE' }, { functionCall: 'calculator' }] },
    });
    await waitForState(handle, (state) => state.status === 'waiting_for_input');
    await handle.signal(userMessageSignal, { content: 'yes' });
    expect(((await handle.result()) as AgentResult).terminationReason).toEqual({ type: 'complete' });
  });

  test('tokenUsage: the budget counts the tokens of the current turn only', async () => {
    const script = () => [ask('Go on?'), { content: 'ok' }];
    // Calibrate: the completion tokens of the first turn's one answer.
    const calibration = await env.start({ model: env.scenario(script()), tools, message: 'go' });
    const firstTurn = (await waitForState(calibration, (state) => state.status === 'waiting_for_input')).usage
      .completionTokens;
    await calibration.signal(userMessageSignal, { content: 'yes' });
    await calibration.result();

    const handle = await env.start({
      model: env.scenario(script()),
      tools,
      message: 'go',
      stopWhen: { tokenUsage: { maxCompletion: firstTurn + 1 } },
    });
    await waitForState(handle, (state) => state.status === 'waiting_for_input');
    await handle.signal(userMessageSignal, { content: 'yes' });
    // Run-wide the completion tokens pass the budget; within the second turn they do not.
    const result = (await handle.result()) as AgentResult;
    expect(result.usage.completionTokens).toBeGreaterThanOrEqual(firstTurn + 1);
    expect(result.terminationReason).toEqual({ type: 'complete' });
  });

  test('timeout: the clock starts again at the answer', async () => {
    const model = env.scenario([ask('Ready?'), { content: 'ok' }]);
    const handle = await env.start({ model, tools, message: 'go', stopWhen: { timeout: '5s' } });
    await waitForState(handle, (state) => state.status === 'waiting_for_input');
    await new Promise((resolve) => setTimeout(resolve, 5_500));
    await handle.signal(userMessageSignal, { content: 'yes' });
    // 5.5 s passed since the run began, well under 5 s since the answer (the one model call left is quick).
    expect(((await handle.result()) as AgentResult).terminationReason).toEqual({ type: 'complete' });
  });
});
