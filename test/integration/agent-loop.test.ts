import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { stateQuery } from '../../src/workflow-contract/definitions';
import { type AgentState } from '../../src/shared/agent-result';
import { defineTool } from '../../src/tools/define-tool';
import { TestEnv } from '../helpers/test-env';

/** Records each execution's context, so tests can see idempotency keys and what ran. */
const executions: { callId: string; idempotencyKey: string; text: string }[] = [];
const echoTool = defineTool({
  name: 'echo',
  description: 'Echo the text back.',
  parameters: z.object({ text: z.string() }),
  execute: ({ text }, context) => {
    executions.push({ callId: context.callId, idempotencyKey: context.idempotencyKey, text });
    return `echo: ${text}`;
  },
});
const failingTool = defineTool({
  name: 'explode',
  description: 'Always throws.',
  parameters: z.object({}),
  execute: () => {
    throw new Error('the fuse was lit');
  },
});

let env: TestEnv;
beforeAll(async () => {
  env = await TestEnv.create({ extraTools: [echoTool, failingTool] });
});
afterAll(async () => {
  await env.close();
});

describe('agentWorkflow loop', () => {
  test('a text answer with no tool calls completes the run', async () => {
    const model = env.scenario([{ content: 'Paris.' }]);
    const result = await env.run({ model, tools: [], message: 'Capital of France?' });

    expect(result.response).toBe('Paris.');
    expect(result.terminationReason).toEqual({ type: 'complete' });
    expect(result.iterations).toBe(1);
    expect(result.messages.map((message) => message.role)).toEqual(['user', 'assistant']);
    expect(result.generatedMessages).toEqual([
      { sender: 'human', message: 'Capital of France?' },
      { sender: 'ai', message: 'Paris.' },
    ]);
    expect(result.usage.totalTokens).toBe(result.usage.promptTokens + result.usage.completionTokens);
    expect(result.usage.totalTokens).toBeGreaterThan(0);
  });

  test('tool calls run as activities and their results go back to the model as tool messages', async () => {
    const model = env.scenario([
      { toolCalls: [{ name: 'calculator', arguments: { expression: '6 * 7' }, id: 'call_calc' }] },
      { content: 'It is 42.' },
    ]);
    const result = await env.run({
      model,
      instructions: 'Be brief.',
      tools: ['calculator'],
      message: 'What is 6 times 7?',
    });

    expect(result.response).toBe('It is 42.');
    expect(result.iterations).toBe(2);
    // The run knows the call by the runner's id; the model's is kept beside it.
    expect(result.messages[1]).toMatchObject({
      role: 'assistant',
      meta: { modelCallIds: { 'call-1-1': 'call_calc' } },
    });
    expect(result.messages[2]).toMatchObject({ role: 'tool', tool_call_id: 'call-1-1', content: '42' });
    expect(result.generatedMessages).toEqual([
      { sender: 'human', message: 'What is 6 times 7?' },
      { type: 'tool_call', tool_call_id: 'call-1-1', tool_name: 'calculator', tool_input: { expression: '6 * 7' } },
      { type: 'tool_response', tool_call_id: 'call-1-1', tool_output: '42' },
      { sender: 'ai', message: 'It is 42.' },
    ]);

    const [first, second] = env.model.requests(model);
    expect(first?.messages[0]).toEqual({ role: 'system', content: 'Be brief.' });
    expect(first?.tools?.map((tool) => tool.function.name)).toEqual(['calculator']);
    expect(first?.tools?.[0]?.function.parameters).toMatchObject({
      type: 'object',
      properties: { expression: { type: 'string' } },
      required: ['expression'],
    });
    // The second call carries the tool result under the model's own id, without the runner's bookkeeping fields.
    expect(second?.messages.at(-1)).toEqual({ role: 'tool', tool_call_id: 'call_calc', content: '42' });
    expect(JSON.stringify(second?.messages)).not.toContain('"meta"');

    const usage = result.usage;
    expect(usage.promptTokens).toBeGreaterThan(0);
    expect(usage.completionTokens).toBeGreaterThan(0);
  });

  test("each tool activity gets workflowId:runId:callId (the runner's call id) as its idempotency key", async () => {
    const model = env.scenario([
      { toolCalls: [{ name: 'echo', arguments: { text: 'key-check' }, id: 'call_key' }] },
      { content: 'done' },
    ]);
    const handle = await env.start({ model, tools: ['echo'], message: 'echo' });
    await handle.result();
    expect(executions.find((execution) => execution.text === 'key-check')).toEqual({
      callId: 'call-1-1',
      idempotencyKey: `${handle.workflowId}:${(await handle.describe()).runId}:call-1-1`,
      text: 'key-check',
    });
  });

  test('a terminating tool ends the run and its output is the response', async () => {
    const model = env.scenario([
      { toolCalls: [{ name: 'task_completion', arguments: { result: 'All 3 invoices filed.' }, id: 'call_done' }] },
    ]);
    const result = await env.run({ model, tools: ['task_completion'], message: 'File the invoices.' });
    expect(result.response).toBe('All 3 invoices filed.');
    expect(result.terminationReason).toEqual({
      type: 'terminating_tool',
      toolName: 'task_completion',
      callId: 'call-1-1',
    });
  });

  test('terminating.toolIds makes any tool terminating; calls after it never run and are dropped from the transcript', async () => {
    const model = env.scenario([
      {
        toolCalls: [
          { name: 'echo', arguments: { text: 'before' }, id: 'call_1' },
          { name: 'calculator', arguments: { expression: '1+1' }, id: 'call_2' },
          { name: 'echo', arguments: { text: 'after-terminating' }, id: 'call_3' },
        ],
      },
    ]);
    const result = await env.run({
      model,
      tools: ['echo', 'calculator'],
      message: 'go',
      terminating: { toolIds: ['calculator'] },
    });

    expect(result.response).toBe('2');
    expect(result.terminationReason).toEqual({ type: 'terminating_tool', toolName: 'calculator', callId: 'call-1-2' });
    expect(executions.some((execution) => execution.text === 'after-terminating')).toBe(false);
    const assistant = result.messages.find((message) => message.role === 'assistant');
    expect(assistant?.role === 'assistant' && assistant.tool_calls?.map((call) => call.id)).toEqual([
      'call-1-1',
      'call-1-2',
    ]);
    expect(
      result.messages
        .filter((message) => message.role === 'tool')
        .map((message) => message.role === 'tool' && message.tool_call_id),
    ).toEqual(['call-1-1', 'call-1-2']);
  });

  test('the built-in finish tool ends the run with its note, or "Task completed."', async () => {
    const withNote = await env.run({
      model: env.scenario([{ toolCalls: [{ name: 'finish', arguments: { note: 'Wrote the report.' } }] }]),
      tools: ['finish'],
      message: 'go',
    });
    expect(withNote.response).toBe('Wrote the report.');
    expect(withNote.terminationReason).toMatchObject({ type: 'terminate_response', toolName: 'finish' });

    const withoutNote = await env.run({
      model: env.scenario([{ toolCalls: [{ name: 'finish', arguments: {} }] }]),
      tools: ['finish'],
      message: 'go',
    });
    expect(withoutNote.response).toBe('Task completed.');
  });

  test('parallel tool calls all run, and results keep the order of the calls', async () => {
    const model = env.scenario([
      {
        toolCalls: [
          { name: 'echo', arguments: { text: 'p1' }, id: 'call_p1' },
          { name: 'echo', arguments: { text: 'p2' }, id: 'call_p2' },
          { name: 'echo', arguments: { text: 'p3' }, id: 'call_p3' },
        ],
      },
      { content: 'ok' },
    ]);
    const result = await env.run({ model, tools: ['echo'], message: 'go', parallelToolCalls: true });
    const tools = result.messages.filter((message) => message.role === 'tool');
    expect(tools.map((message) => message.content)).toEqual(['echo: p1', 'echo: p2', 'echo: p3']);
    expect(env.model.requests(model)[0]?.parallel_tool_calls).toBe(true);
  });

  test('messages continue a prior conversation and message is appended to it', async () => {
    const model = env.scenario([{ content: 'You said your name is Ada.' }]);
    const prior = [
      { role: 'user' as const, content: 'My name is Ada.' },
      { role: 'assistant' as const, content: 'Hello Ada.' },
    ];
    const result = await env.run({ model, tools: [], messages: prior, message: 'What is my name?' });
    expect(env.model.requests(model)[0]?.messages).toEqual([...prior, { role: 'user', content: 'What is my name?' }]);
    expect(result.messages).toHaveLength(4);
    expect(result.generatedMessages).toEqual([
      { sender: 'human', message: 'What is my name?' },
      { sender: 'ai', message: 'You said your name is Ada.' },
    ]);
  });

  test('write_file, read_file and list_files work inside the workspace', async () => {
    const model = env.scenario([
      { toolCalls: [{ name: 'write_file', arguments: { path: 'notes/a.txt', content: 'hello' } }] },
      { toolCalls: [{ name: 'list_files', arguments: { recursive: true } }] },
      { toolCalls: [{ name: 'read_file', arguments: { path: 'notes/a.txt' } }] },
      { content: 'done' },
    ]);
    const result = await env.run({ model, tools: ['write_file', 'list_files', 'read_file'], message: 'go' });
    const outputs = result.messages.filter((message) => message.role === 'tool').map((message) => message.content);
    expect(outputs).toEqual(['Wrote 5 bytes to notes/a.txt.', 'notes/\nnotes/a.txt (5 bytes)', 'hello']);
    expect(await readFile(path.join(env.workspace, 'notes/a.txt'), 'utf8')).toBe('hello');
  });
});

describe('model mistakes are results for the model, not crashes', () => {
  test('a tool the run may not use, arguments that are not JSON, arguments that fail the schema, and a tool that throws', async () => {
    const model = env.scenario([
      {
        toolCalls: [
          { name: 'delete_everything', arguments: {}, id: 'call_unknown' },
          { name: 'calculator', arguments: '{"expression": "1+', id: 'call_badjson' },
          { name: 'calculator', arguments: { expresion: '1+1' }, id: 'call_schema' },
          { name: 'explode', arguments: {}, id: 'call_throw' },
          { name: 'read_file', arguments: { path: '../../etc/passwd' }, id: 'call_escape' },
        ],
      },
      { content: 'I will stop here.' },
    ]);
    const result = await env.run({ model, tools: ['calculator', 'explode', 'read_file'], message: 'go' });
    expect(result.terminationReason).toEqual({ type: 'complete' });

    // Keyed by the model's ids, as the model is answered.
    const outputs = Object.fromEntries(
      (env.model.requests(model)[1]?.messages ?? []).flatMap((message) =>
        message.role === 'tool' ? [[message.tool_call_id ?? '', message.content]] : [],
      ),
    );
    expect(outputs.call_unknown).toBe(
      'Error: there is no tool named "delete_everything". Available tools: calculator, explode, read_file.',
    );
    expect(outputs.call_badjson).toMatch(
      /^Error: the arguments for "calculator" are not valid JSON \(.+\)\. You sent .+\. Send one JSON object/,
    );
    expect(outputs.call_schema).toMatch(/^Error: invalid arguments for "calculator": expression: .*expected string/);
    expect(outputs.call_throw).toBe('Error: the fuse was lit');
    expect(outputs.call_escape).toMatch(/^Error: path "..\/..\/etc\/passwd" is outside the workspace/);
    // The model saw every error on its next call.
    expect(env.model.requests(model)[1]?.messages.filter((message) => message.role === 'tool')).toHaveLength(5);
    // The arguments that are not JSON went back as {} (servers such as llama.cpp's answer 500 to the raw text), the
    // error quoted them, and the run's record keeps them as the model sent them.
    const wireCalls = env.model
      .requests(model)[1]
      ?.messages.find((message) => message.role === 'assistant')?.tool_calls;
    expect(wireCalls).toContainEqual({
      id: 'call_badjson',
      type: 'function',
      function: { name: 'calculator', arguments: '{}' },
    });
    expect(wireCalls).toContainEqual({
      id: 'call_schema',
      type: 'function',
      function: { name: 'calculator', arguments: '{"expresion":"1+1"}' },
    });
    expect(outputs.call_badjson).toContain('You sent "{\\"expression\\": \\"1+".');
    const recorded = result.messages.find((message) => message.role === 'assistant')?.tool_calls;
    expect(recorded?.map((call) => call.function.arguments)).toContain('{"expression": "1+');
  });
});

describe('live state', () => {
  test('the state query answers while the model call is in flight and after the run', async () => {
    const model = env.scenario([
      { toolCalls: [{ name: 'echo', arguments: { text: 'slow' } }] },
      { content: 'finally', delayMs: 10_000 },
    ]);
    const handle = await env.start({ model, tools: ['echo'], message: 'go' });

    let during: AgentState | undefined;
    for (let attempt = 0; attempt < 100 && during?.iteration !== 2; attempt++) {
      during = await handle.query(stateQuery);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(during).toMatchObject({ status: 'running', iteration: 2, activity: 'iteration 2: calling the model' });
    expect(during?.messages.map((message) => message.role)).toEqual(['user', 'assistant', 'tool']);

    await handle.result();
    const after = await handle.query(stateQuery);
    expect(after).toMatchObject({ status: 'completed', iteration: 2, terminationReason: { type: 'complete' } });
    expect(after.usage.totalTokens).toBeGreaterThan(0);
  });
});
