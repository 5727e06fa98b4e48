import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { eventsQuery } from '../../src/workflow-contract/definitions';
import { type AgentResult } from '../../src/shared/agent-result';
import { type ChatMessage } from '../../src/shared/messages';
import { defineTool } from '../../src/tools/define-tool';
import { TestEnv } from '../helpers/test-env';

const pings: string[] = [];
const pingTool = defineTool({
  name: 'ping',
  description: 'Ping a host.',
  parameters: z.object({ host: z.string() }),
  execute: ({ host }) => {
    pings.push(host);
    return `pong from ${host}`;
  },
});
const brokenTool = defineTool({
  name: 'fetch_report',
  description: 'Always fails the same way.',
  parameters: z.object({ id: z.number() }),
  execute: () => {
    throw new Error('upstream returned 503');
  },
});

let env: TestEnv;
beforeAll(async () => {
  env = await TestEnv.create({ extraTools: [pingTool, brokenTool] });
});
afterAll(async () => {
  await env.close();
});

const ping = (host: string, spacing = '') => ({
  toolCalls: [{ name: 'ping', arguments: `{${spacing}"host":${spacing}"${host}"}` }],
});
const injectedWarnings = (messages: ChatMessage[]) =>
  messages.filter((message) => message.role === 'system' && message.meta?.injected === 'loop_warning');

describe('loop detection', () => {
  test('warn: the loop is recorded as an event and the run goes on', async () => {
    const model = env.scenario([ping('a'), ping('a', ' '), ping('a'), { content: 'done' }]);
    const handle = await env.start({ model, tools: ['ping'], message: 'go', loopDetection: { threshold: 3 } });
    const result = (await handle.result()) as AgentResult;
    expect(result.terminationReason).toEqual({ type: 'complete' });
    const { events } = await handle.query(eventsQuery, {});
    expect(events.filter((event) => event.type === 'loop-detection')).toEqual([
      expect.objectContaining({ toolName: 'ping', count: 3, action: 'warn', iteration: 3 }),
    ]);
  });

  test('stop: the run ends with loop_detected before the looping call runs; the transcript stays valid', async () => {
    const before = pings.filter((host) => host === 'stuck').length;
    const model = env.scenario([ping('stuck'), ping('stuck'), ping('stuck'), { content: 'never' }]);
    const result = await env.run({
      model,
      tools: ['ping'],
      message: 'go',
      loopDetection: { threshold: 3, action: 'stop' },
    });
    expect(result.terminationReason).toEqual({ type: 'loop_detected', toolName: 'ping', count: 3 });
    expect(pings.filter((host) => host === 'stuck').length - before).toBe(2);
    expect(result.messages.at(-1)).toMatchObject({
      role: 'tool',
      content: 'Not executed: the run stopped before this call ran.',
    });
  });

  test('inject_warning: a system message at every multiple of the threshold', async () => {
    const model = env.scenario([ping('b'), ping('b'), ping('b'), ping('b'), { content: 'I will stop pinging.' }]);
    const result = await env.run({
      model,
      tools: ['ping'],
      message: 'go',
      loopDetection: { threshold: 2, action: 'inject_warning' },
    });
    const warnings = injectedWarnings(result.messages);
    expect(warnings.map((message) => message.meta?.iteration)).toEqual([2, 4]);
    expect(warnings[0]?.content).toContain('ping');
    expect(warnings[1]?.content).toContain('4');
    // The warning follows the tool results, where the provider accepts a system message.
    const index = result.messages.indexOf(warnings[0] as ChatMessage);
    expect(result.messages[index - 1]?.role).toBe('tool');
  });

  test('a different call resets the count', async () => {
    const model = env.scenario([ping('c'), ping('c'), ping('d'), ping('c'), ping('c'), { content: 'done' }]);
    const handle = await env.start({
      model,
      tools: ['ping'],
      message: 'go',
      loopDetection: { threshold: 3, action: 'stop' },
    });
    expect(((await handle.result()) as AgentResult).terminationReason).toEqual({ type: 'complete' });
  });
});

describe('circuit breaker', () => {
  const failing = { toolCalls: [{ name: 'fetch_report', arguments: { id: 7 } }] };

  test('five identical consecutive errors end the run with circuit_breaker', async () => {
    const model = env.scenario([failing, failing, failing, failing, failing, { content: 'never' }]);
    const result = await env.run({ model, tools: ['fetch_report'], message: 'go' });
    expect(result.terminationReason).toEqual({
      type: 'circuit_breaker',
      toolName: 'fetch_report',
      errorText: 'Error: upstream returned 503',
      count: 5,
    });
    expect(result.response).toBe(
      'Stopped: fetch_report failed 5 times in a row with the same error: Error: upstream returned 503',
    );
    expect(env.model.requests(model)).toHaveLength(5);
  });

  test('the threshold is configurable, and a success in between resets it', async () => {
    const model = env.scenario([failing, ping('ok'), failing, failing, { content: 'never' }]);
    const result = await env.run({
      model,
      tools: ['fetch_report', 'ping'],
      message: 'go',
      circuitBreaker: { threshold: 2 },
    });
    expect(result.terminationReason).toMatchObject({ type: 'circuit_breaker', count: 2 });
    expect(env.model.requests(model)).toHaveLength(4);
  });
});

describe('context control: result processing and observation masking', () => {
  test('maxResultChars cuts a long result with a marker and records both sizes; perTool wins', async () => {
    await writeFile(path.join(env.workspace, 'long.txt'), 'x'.repeat(50));
    const model = env.scenario([
      {
        toolCalls: [
          { name: 'read_file', arguments: { path: 'long.txt' }, id: 'call_read' },
          { name: 'ping', arguments: { host: 'h' }, id: 'call_ping' },
        ],
      },
      { content: 'done' },
    ]);
    const handle = await env.start({
      model,
      tools: ['read_file', 'ping'],
      message: 'go',
      resultProcessing: { maxResultChars: 5, perTool: { read_file: 10 } },
    });
    const result = (await handle.result()) as AgentResult;
    const tools = result.messages.filter((message) => message.role === 'tool');
    expect(tools[0]?.content).toBe(`${'x'.repeat(10)}\n[truncated: kept 10 of 50 characters]`);
    expect(tools[1]?.content).toBe(`pong \n[truncated: kept 5 of 11 characters]`);
    const { events } = await handle.query(eventsQuery, {});
    // The calls ran in parallel: their events come in the order they finished.
    const processed = events.filter((event) => event.type === 'tool-result-truncation');
    expect(processed).toHaveLength(2);
    expect(processed).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ callId: 'call-1-1', toolName: 'read_file', originalChars: 50, keptChars: 10 }),
        expect.objectContaining({ callId: 'call-1-2', toolName: 'ping', originalChars: 11, keptChars: 5 }),
      ]),
    );
  });

  test('masking replaces old large results in what the model sees; the record keeps them whole', async () => {
    await writeFile(path.join(env.workspace, 'big.txt'), 'y'.repeat(400));
    const model = env.scenario([
      { toolCalls: [{ name: 'read_file', arguments: { path: 'big.txt' }, id: 'call_big' }] },
      ping('p1'),
      ping('p2'),
      { content: 'done' },
    ]);
    const handle = await env.start({
      model,
      tools: ['read_file', 'ping'],
      message: 'go',
      masking: { keepIterations: 2, minTokens: 50 },
    });
    const result = (await handle.result()) as AgentResult;
    // The model is shown the call under its own id; the run's record names it by the runner's.
    const toolContent = (
      messages: { role: string; tool_call_id?: string; content?: string | null }[],
      id = 'call_big',
    ) => messages.find((message) => message.role === 'tool' && message.tool_call_id === id)?.content;

    const requests = env.model.requests(model);
    // Iterations 2 and 3 still see the result of iteration 1; iteration 4 sees a placeholder.
    expect(toolContent(requests[1]?.messages ?? [])).toBe('y'.repeat(400));
    expect(toolContent(requests[2]?.messages ?? [])).toBe('y'.repeat(400));
    expect(toolContent(requests[3]?.messages ?? [])).toBe(
      '[Masked: read_file result from iteration 1, about 100 tokens. Call the tool again if you need it.]',
    );
    expect(toolContent(result.messages, 'call-1-1')).toBe('y'.repeat(400));
    const { events } = await handle.query(eventsQuery, {});
    expect(events.find((event) => event.type === 'observation-masking')).toMatchObject({
      iteration: 4,
      tokensSaved: 100,
    });
  });
});
