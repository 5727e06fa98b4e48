import path from 'node:path';
import { z } from 'zod';
import { addUsage, ZERO_USAGE } from '../../src/shared/messages';
import { eventsQuery, userMessageSignal } from '../../src/workflow-contract/definitions';
import { type AgentResult } from '../../src/shared/agent-result';
import { defineTool } from '../../src/tools/define-tool';
import { pingTool } from '../helpers/ping-tool';
import { TestEnv } from '../helpers/test-env';
import { waitForState } from '../helpers/wait';

/**
 * A custom stop condition's StopContext through a real worker (it sees the
 * iteration, the response, the run's usage, the tool calls executed and the
 * last tool results), the `textMessage` stop condition, and the `stop_condition`
 * reason's `condition` as docs/guide/stop-conditions.md shows it.
 */

const boomTool = defineTool({
  name: 'boom',
  description: 'Always fails.',
  parameters: z.object({}),
  execute: () => {
    throw new Error('the boom tool always fails');
  },
});

let env: TestEnv;
beforeAll(async () => {
  env = await TestEnv.create({
    extraTools: [pingTool, boomTool],
    workflowsPath: path.join(__dirname, '..', 'fixtures', 'workflows-with-stop-context.ts'),
  });
});
afterAll(async () => {
  await env.close();
});

const ask = (question: string) => ({ toolCalls: [{ name: 'ask_question', arguments: { question } }] });

describe('a custom stop condition receives its StopContext', () => {
  test("iteration, response, the run's usage (not the turn's), tool calls executed and the last tool results", async () => {
    const model = env.scenario([
      {
        toolCalls: [
          { name: 'ping', arguments: { host: 'a' } },
          { name: 'boom', arguments: {} },
        ],
      },
      ask('Go on?'),
      { content: 'All done.' },
    ]);
    const handle = await env.start({
      model,
      tools: ['ping', 'boom', 'ask_question'],
      message: 'go',
      stopWhen: { custom: 'report-context', params: { afterCalls: 3 } },
    });
    await waitForState(handle, (state) => state.status === 'waiting_for_input');
    // The answer starts a new turn: turnUsage starts again, totalUsage does not.
    await handle.signal(userMessageSignal, { content: 'yes' });
    const result = (await handle.result()) as AgentResult;

    expect(result.terminationReason).toMatchObject({
      type: 'stop_condition',
      condition: 'custom("report-context", {"afterCalls":3})',
    });
    const seen = JSON.parse((result.terminationReason as { detail: string }).detail);
    const events = await handle.query(eventsQuery, { after: 0 });
    const callUsages = events.events.flatMap((event) => (event.type === 'model-response' ? [event.usage] : []));
    expect(callUsages).toHaveLength(3);
    expect(seen).toEqual({
      iteration: 3,
      response: 'All done.',
      totalUsage: callUsages.reduce(addUsage, ZERO_USAGE),
      turnUsage: callUsages[2],
      toolCallsExecuted: 3,
      lastToolResults: [
        { toolName: 'ask_question', callId: 'call-2-1', contentPreview: expect.any(String), isError: false },
      ],
      executedTools: [],
    });
    expect(seen.totalUsage).toEqual(result.usage);
    expect(seen.totalUsage.totalTokens).toBeGreaterThan(seen.turnUsage.totalTokens);
  });

  test('lastToolResults hold the latest batch in call order, errors marked; a denied or unknown call is no execution', async () => {
    const model = env.scenario([
      {
        toolCalls: [
          { name: 'ping', arguments: { host: 'a' } },
          { name: 'boom', arguments: {} },
          { name: 'nope', arguments: {} },
        ],
      },
      { content: 'Finished.' },
    ]);
    const result = await env.run({
      model,
      tools: ['ping', 'boom'],
      message: 'go',
      stopWhen: { custom: 'report-context', params: { afterCalls: 1 } },
    });
    const seen = JSON.parse((result.terminationReason as { detail: string }).detail);
    expect(seen).toMatchObject({
      iteration: 2,
      response: 'Finished.',
      toolCallsExecuted: 2,
      executedTools: ['ping', 'boom'],
    });
    expect(seen.lastToolResults).toEqual([
      { toolName: 'ping', callId: 'call-1-1', contentPreview: 'pong a', isError: false },
      {
        toolName: 'boom',
        callId: 'call-1-2',
        contentPreview: expect.stringContaining('the boom tool always fails'),
        isError: true,
      },
      {
        toolName: 'nope',
        callId: 'call-1-3',
        contentPreview: expect.stringContaining('there is no tool named "nope"'),
        isError: true,
      },
    ]);
  });
});

describe('textMessage: the model answered with text and no tool call', () => {
  test('ends the run before a nudge would answer the text', async () => {
    const model = env.scenario([
      { toolCalls: [{ name: 'ping', arguments: { host: 'a' } }] },
      { content: 'Here is my answer.' },
    ]);
    const result = await env.run({
      model,
      tools: ['ping', 'finish'],
      message: 'go',
      // Autonomous: without textMessage a text answer is met with a nudge.
      terminating: { toolIds: ['finish'] },
      stopWhen: { textMessage: true },
    });
    expect(result.terminationReason).toEqual({
      type: 'stop_condition',
      condition: 'textMessage()',
      detail: 'the model answered with text and no tool call (18 characters)',
    });
    expect(result.response).toBe('Here is my answer.');
    expect(result.consecutiveNudges).toBe(0);
    expect(result.messages.some((message) => message.meta?.injected === 'nudge')).toBe(false);
    expect(env.model.requests(model)).toHaveLength(2);
  });

  test('does not hold for an answer with tool calls, even one with text, nor after its batch', async () => {
    const model = env.scenario([
      { content: 'Let me check.', toolCalls: [{ name: 'ping', arguments: { host: 'a' } }] },
      { content: '' },
      { content: 'Now I know.' },
    ]);
    const result = await env.run({
      model,
      tools: ['ping'],
      message: 'go',
      requireToolCall: true,
      stopWhen: { textMessage: true },
    });
    // The empty answer is no text message: it meets the nudge rule (an error context), then the text ends the run.
    expect(result.terminationReason).toMatchObject({ type: 'stop_condition', condition: 'textMessage()' });
    expect(result.response).toBe('Now I know.');
    expect(env.model.requests(model)).toHaveLength(3);
  });
});

describe('the stop_condition reason names the part of the tree that held (the example of docs/guide/stop-conditions.md)', () => {
  test('any(maxMessages(10), textMention("APPROVE")) reports textMention', async () => {
    const model = env.scenario([
      { toolCalls: [{ name: 'ping', arguments: { host: 'a' } }] },
      { content: 'Looks right to me. APPROVE' },
    ]);
    const result = await env.run({
      model,
      tools: ['ping'],
      message: 'review',
      stopWhen: { any: [{ maxMessages: 10 }, { textMention: 'APPROVE' }] },
    });
    expect(result.terminationReason).toEqual({
      type: 'stop_condition',
      condition: 'textMention("APPROVE")',
      detail: 'assistant message 2 of this turn mentions "APPROVE"',
    });
  });
});
