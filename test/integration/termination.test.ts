import { z } from 'zod';
import { DEFAULT_NUDGE_MESSAGE, DEFAULT_RESTRICTION_MESSAGE } from '../../src/shared/defaults/run-input';
import { stateQuery } from '../../src/workflow-contract/definitions';
import { type AgentResult } from '../../src/shared/agent-result';
import { type ChatMessage } from '../../src/shared/messages';
import { type ToolCallInput } from '../../src/shared/activity-types';
import { defineTool } from '../../src/tools/define-tool';
import { TerminateResponse } from '../../src/tools/terminate-response';
import { localActivities, scheduledActivities } from '../helpers/history';
import { TestEnv } from '../helpers/test-env';
import { waitForState } from '../helpers/wait';

/** A tool outside every `toolIds` that ends the run from inside (`TerminateResponse`). */
const submitReport = defineTool({
  name: 'submit_report',
  description: 'Submit the final report; this ends the run.',
  parameters: z.object({ report: z.string() }),
  execute: ({ report }) => new TerminateResponse(`Report submitted: ${report}`),
});
const noteTool = defineTool({
  name: 'note',
  description: 'Write down a note.',
  parameters: z.object({ text: z.string() }),
  execute: ({ text }) => `noted: ${text}`,
});

let env: TestEnv;
beforeAll(async () => {
  env = await TestEnv.create({ extraTools: [submitReport, noteTool] });
});
afterAll(async () => {
  await env.close();
});

const injected = (messages: ChatMessage[]) =>
  messages.filter((message) => message.role === 'system' && message.meta?.injected !== undefined);

describe('terminating tools: several tool calls, one terminating', () => {
  test.each([false, true])(
    'parallelToolCalls %s: the third never runs; the stored assistant message holds two calls',
    async (parallel) => {
      const model = env.scenario([
        {
          toolCalls: [
            { name: 'note', arguments: { text: 'first' }, id: 'call_1' },
            { name: 'task_completion', arguments: { result: 'done' }, id: 'call_2' },
            { name: 'note', arguments: { text: 'never' }, id: 'call_3' },
          ],
        },
      ]);
      const handle = await env.start({
        model,
        tools: ['note', 'task_completion'],
        message: 'go',
        parallelToolCalls: parallel,
        terminating: { toolIds: ['task_completion'] },
      });
      const result = (await handle.result()) as AgentResult;

      expect(result.response).toBe('done');
      expect(result.terminationReason).toEqual({
        type: 'terminating_tool',
        toolName: 'task_completion',
        callId: 'call-1-2',
      });
      const assistant = result.messages[1];
      expect(assistant?.role === 'assistant' && assistant.tool_calls?.map((call) => call.id)).toEqual([
        'call-1-1',
        'call-1-2',
      ]);
      // Nothing ran for the third call: `note` as an activity, `task_completion` (a local tool) as a local one, then nothing.
      const tools = (await scheduledActivities(env.client, handle.workflowId)).filter(
        (activity) => activity.type === 'executeTool',
      );
      expect(tools.map((activity) => (activity.input as ToolCallInput).callId)).toEqual(['call-1-1']);
      expect((await localActivities(env.client, handle.workflowId)).map((activity) => activity.summary)).toEqual([
        'tool catalog',
        'task_completion {"result":"done"} · iteration 1',
      ]);
    },
  );
});

describe('terminating tools: nudges', () => {
  test('nudge, tool call, nudge, finish succeeds with consecutiveNudges 1: the counter resets on a tool call', async () => {
    const model = env.scenario([
      { content: 'I think I am done.' },
      { toolCalls: [{ name: 'note', arguments: { text: 'progress' } }] },
      { content: 'Done now.' },
      { toolCalls: [{ name: 'finish', arguments: { note: 'Finished.' } }] },
    ]);
    const result = await env.run({
      model,
      tools: ['note', 'finish'],
      message: 'go',
      terminating: { toolIds: ['finish'], consecutiveNudges: 1 },
    });

    expect(result.response).toBe('Finished.');
    expect(result.terminationReason).toMatchObject({ type: 'terminating_tool', toolName: 'finish' });
    expect(result).toMatchObject({ invocations: 4, consecutiveNudges: 0 });
    const nudges = injected(result.messages);
    expect(nudges).toHaveLength(2);
    expect(nudges[0]).toEqual({
      role: 'system',
      content: DEFAULT_NUDGE_MESSAGE,
      meta: { injected: 'nudge', iteration: 1 },
    });
    // The model received the nudge as a plain system message.
    expect(env.model.requests(model)[1]?.messages.at(-1)).toEqual({ role: 'system', content: DEFAULT_NUDGE_MESSAGE });
  });

  test('two content answers in a row fail with MaxConsecutiveNudgesExceeded and the partial transcript', async () => {
    const model = env.scenario([{ content: 'one' }, { content: 'two' }]);
    const failure = await env.runExpectingFailure({
      model,
      tools: ['finish'],
      message: 'go',
      terminating: { toolIds: ['finish'], consecutiveNudges: 1, nudgeMessage: 'Call finish.' },
    });
    expect(failure.type).toBe('MaxConsecutiveNudgesExceeded');
    expect(failure.message).toBe('Max consecutive nudges exceeded');
    expect(failure.nonRetryable).toBe(true);
    const [details] = failure.details as [{ limit: number; messages: ChatMessage[]; usage: { totalTokens: number } }];
    expect(details.limit).toBe(1);
    expect(details.messages.map((message) => message.role)).toEqual(['user', 'assistant', 'system', 'assistant']);
    expect(details.messages[2]).toMatchObject({ content: 'Call finish.', meta: { injected: 'nudge' } });
    expect(details.usage.totalTokens).toBeGreaterThan(0);
    expect(env.model.requests(model)).toHaveLength(2);
  });
});

describe('terminating tools: maxInvocations', () => {
  test('with maxInvocations 3 the model is called exactly 3 times, then MaxInvocationsExceeded', async () => {
    const busy = { toolCalls: [{ name: 'note', arguments: { text: 'again' } }] };
    const model = env.scenario([busy, busy, busy, busy, busy]);
    const failure = await env.runExpectingFailure({
      model,
      tools: ['note', 'finish'],
      message: 'go',
      terminating: { toolIds: ['finish'], maxInvocations: 3 },
    });
    expect(failure.type).toBe('MaxInvocationsExceeded');
    expect(failure.message).toBe('Max invocations exceeded');
    expect(env.model.requests(model)).toHaveLength(3);
    const [details] = failure.details as [{ limit: number; iterations: number; messages: ChatMessage[] }];
    expect(details).toMatchObject({ limit: 3, iterations: 3 });
    expect(details.messages.filter((message) => message.role === 'tool')).toHaveLength(3);
  });

  test('a terminating call on the last allowed invocation still succeeds', async () => {
    const model = env.scenario([
      { toolCalls: [{ name: 'note', arguments: { text: 'a' } }] },
      { toolCalls: [{ name: 'finish', arguments: {} }] },
    ]);
    const result = await env.run({
      model,
      tools: ['note', 'finish'],
      message: 'go',
      terminating: { toolIds: ['finish'], maxInvocations: 2 },
    });
    expect(result).toMatchObject({ response: 'Task completed.', invocations: 2 });
  });

  test('the top-level maxInvocations caps a run without terminating', async () => {
    const busy = { toolCalls: [{ name: 'note', arguments: { text: 'again' } }] };
    const model = env.scenario([busy, busy, busy]);
    const failure = await env.runExpectingFailure({ model, tools: ['note'], message: 'go', maxInvocations: 2 });
    expect(failure.type).toBe('MaxInvocationsExceeded');
    expect(env.model.requests(model)).toHaveLength(2);
  });
});

describe('TerminateResponse', () => {
  test('a tool not in toolIds ends the run by returning a TerminateResponse', async () => {
    const model = env.scenario([
      {
        toolCalls: [
          { name: 'submit_report', arguments: { report: 'all green' }, id: 'call_report' },
          { name: 'note', arguments: { text: 'after' }, id: 'call_after' },
        ],
      },
    ]);
    const handle = await env.start({
      model,
      tools: ['submit_report', 'note', 'finish'],
      message: 'go',
      parallelToolCalls: false,
      terminating: { toolIds: ['finish'] },
    });
    const result = (await handle.result()) as AgentResult;
    expect(result.response).toBe('Report submitted: all green');
    expect(result.terminationReason).toEqual({
      type: 'terminate_response',
      toolName: 'submit_report',
      callId: 'call-1-1',
    });
    expect(result.messages.at(-1)).toMatchObject({
      role: 'tool',
      tool_call_id: 'call-1-1',
      content: 'Report submitted: all green',
    });
    const tools = (await scheduledActivities(env.client, handle.workflowId)).filter(
      (activity) => activity.type === 'executeTool',
    );
    expect(tools).toHaveLength(1);
  });
});

describe('restricted output (restrictOutput)', () => {
  test('gives up after maxInjections and ends normally with the text answer', async () => {
    const model = env.scenario([{ content: 'answer 1' }, { content: 'answer 2' }, { content: 'answer 3' }]);
    const result = await env.run({
      model,
      tools: ['finish'],
      message: 'go',
      restrictOutput: { enabled: true, maxInjections: 2 },
    });

    expect(result.response).toBe('answer 3');
    expect(result.terminationReason).toEqual({ type: 'complete' });
    expect(result).toMatchObject({ invocations: 3, restrictionInjections: 2, consecutiveNudges: 0 });
    const injections = injected(result.messages);
    expect(injections).toHaveLength(2);
    expect(
      injections.every(
        (message) => message.content === DEFAULT_RESTRICTION_MESSAGE && message.meta?.injected === 'restriction',
      ),
    ).toBe(true);
  });

  test('the per-turn count resets when a tool call starts a new turn', async () => {
    const model = env.scenario([
      { content: 'skip tools' },
      { toolCalls: [{ name: 'note', arguments: { text: 'ok' } }] },
      { content: 'skip again' },
      { content: 'final' },
    ]);
    const result = await env.run({
      model,
      tools: ['note', 'finish'],
      message: 'go',
      restrictOutput: { enabled: true, maxInjections: 1, message: 'Call a tool first.' },
    });
    expect(result.response).toBe('final');
    expect(injected(result.messages).map((message) => message.meta?.iteration)).toEqual([1, 3]);
  });

  test('enabled: false changes nothing', async () => {
    const model = env.scenario([{ content: 'plain' }]);
    const result = await env.run({
      model,
      tools: [],
      message: 'go',
      restrictOutput: { enabled: false, maxInjections: 3 },
    });
    expect(result).toMatchObject({ response: 'plain', invocations: 1, restrictionInjections: 0 });
  });
});

describe('terminating and restrictOutput together: the restriction first, then the nudges', () => {
  test('text answers meet the restriction, then the nudge, then fail', async () => {
    const model = env.scenario([{ content: 'a' }, { content: 'b' }, { content: 'c' }]);
    const failure = await env.runExpectingFailure({
      model,
      tools: ['finish'],
      message: 'go',
      terminating: { toolIds: ['finish'], consecutiveNudges: 1 },
      restrictOutput: { enabled: true, maxInjections: 1 },
    });
    expect(failure.type).toBe('MaxConsecutiveNudgesExceeded');
    const [details] = failure.details as [{ messages: ChatMessage[] }];
    expect(injected(details.messages).map((message) => message.meta?.injected)).toEqual(['restriction', 'nudge']);
    expect(env.model.requests(model)).toHaveLength(3);
  });

  test('a terminating call after a restriction ends the run', async () => {
    const model = env.scenario([{ content: 'a' }, { toolCalls: [{ name: 'finish', arguments: { note: 'ok' } }] }]);
    const result = await env.run({
      model,
      tools: ['finish'],
      message: 'go',
      terminating: { toolIds: ['finish'] },
      restrictOutput: { enabled: true },
    });
    expect(result).toMatchObject({ response: 'ok', invocations: 2, restrictionInjections: 0, consecutiveNudges: 0 });
  });
});

describe('visible everywhere', () => {
  test('the state query shows the counters while the run waits on the model', async () => {
    // The second call is held for 10 s, so both queries below land inside it even on a loaded machine.
    const model = env.scenario([
      { content: 'a' },
      { content: 'b', delayMs: 10_000 },
      { toolCalls: [{ name: 'finish', arguments: {} }] },
    ]);
    const handle = await env.start({
      model,
      tools: ['finish'],
      message: 'go',
      terminating: { toolIds: ['finish'], consecutiveNudges: 2 },
      restrictOutput: { enabled: true, maxInjections: 1 },
    });
    const state = await waitForState(handle, (current) => current.iteration >= 2);
    expect(state).toMatchObject({
      status: 'running',
      iteration: 2,
      invocations: 1,
      restrictionInjections: 1,
      consecutiveNudges: 0,
    });
    // The web UI's "current details" come from the SDK's metadata query.
    const metadata = (await handle.query('__temporal_workflow_metadata')) as { currentDetails?: string };
    expect(metadata.currentDetails).toBe('Iteration 2: calling the model');
    await handle.result();
    expect(await handle.query(stateQuery)).toMatchObject({
      status: 'completed',
      invocations: 3,
      restrictionInjections: 0,
      consecutiveNudges: 0,
    });
  });

  test('each model-call and tool activity carries a summary for the web UI', async () => {
    const model = env.scenario([
      { toolCalls: [{ name: 'note', arguments: { text: 'hello' } }] },
      { toolCalls: [{ name: 'finish', arguments: {} }] },
    ]);
    const handle = await env.start({ model, tools: ['note', 'finish'], message: 'go' });
    await handle.result();
    expect((await scheduledActivities(env.client, handle.workflowId)).map((activity) => activity.summary)).toEqual([
      'model call · iteration 1',
      'note {"text":"hello"} · iteration 1',
      'model call · iteration 2',
    ]);
    // The catalog and `finish` (a local tool) are local activities, each with its summary on its marker.
    expect((await localActivities(env.client, handle.workflowId)).map((activity) => activity.summary)).toEqual([
      'tool catalog',
      'finish {} · iteration 2',
    ]);
  });
});
