import { z } from 'zod';
import { eventsQuery } from '../../src/workflow-contract/definitions';
import { FailureType } from '../../src/shared/failure-catalogue';
import { TestEnv } from '../helpers/test-env';

let env: TestEnv;
beforeAll(async () => {
  env = await TestEnv.create();
});
afterAll(async () => {
  await env.close();
});

const weather = z.toJSONSchema(
  z.object({ city: z.string(), temperatures: z.array(z.number().int()).min(1), sky: z.enum(['clear', 'cloudy']) }),
) as Record<string, unknown>;
const answer = (args: unknown, id = 'call_answer') => ({
  toolCalls: [{ name: 'final_answer', arguments: JSON.stringify(args), id }],
});
const valid = { city: 'Oslo', temperatures: [3, 5], sky: 'cloudy' };

describe('structured output (tool mode)', () => {
  test('a valid answer ends the run: output is the value, response its JSON text, the model was offered the schema', async () => {
    const model = env.scenario([
      { toolCalls: [{ name: 'calculator', arguments: { expression: '2+3' } }] },
      answer(valid),
    ]);
    const result = await env.run({ model, tools: ['calculator'], message: 'weather?', output: { schema: weather } });
    expect(result.output).toEqual(valid);
    expect(JSON.parse(result.response)).toEqual(valid);
    expect(result.terminationReason).toEqual({ type: 'complete' });
    expect(result.outputCorrections).toBe(0);
    expect(result.messages.at(-1)).toMatchObject({ role: 'tool', content: 'Final answer accepted.' });
    const request = env.model.requests(model)[0];
    const offered = request?.tools?.find((tool) => tool.function.name === 'final_answer');
    // eslint-disable-next-line @typescript-eslint/no-unused-vars
    const { $schema, ...parameters } = weather;
    expect(offered?.function.parameters).toEqual(parameters);
    expect(request?.response_format).toBeUndefined();
  });

  test('an invalid answer goes back with its problems and is corrected on the second try', async () => {
    const model = env.scenario([answer({ city: 7, temperatures: [], sky: 'clear' }), answer(valid, 'call_again')]);
    const handle = await env.start({ model, tools: [], message: 'weather?', output: { schema: weather } });
    const result = (await handle.result()) as { output: unknown; outputCorrections: number };
    expect(result.output).toEqual(valid);
    expect(result.outputCorrections).toBe(1);
    const second = env.model.requests(model)[1];
    const told = second?.messages.at(-1);
    expect(told).toMatchObject({ role: 'tool', tool_call_id: 'call_answer' });
    expect(told?.content).toContain('is not a valid final answer');
    expect(told?.content).toContain('#/city');
    expect(told?.content).toContain('#/temperatures');
    const { events } = await handle.query(eventsQuery, {});
    expect(events.find((event) => event.type === 'output-rejection')).toMatchObject({
      source: 'answer_tool',
      corrections: 1,
    });
  });

  test('a text answer is told to call the answer tool; a non-object schema is wrapped as { value }', async () => {
    const list = z.toJSONSchema(z.array(z.string()).min(2)) as Record<string, unknown>;
    const model = env.scenario([{ content: 'Here: a, b' }, answer({ value: ['a', 'b'] })]);
    const result = await env.run({ model, tools: [], message: 'two letters', output: { schema: list } });
    expect(result.output).toEqual(['a', 'b']);
    expect(result.response).toBe('["a","b"]');
    const [first, second] = env.model.requests(model);
    expect(first?.tools?.[0]?.function.parameters).toMatchObject({
      type: 'object',
      properties: { value: { type: 'array' } },
      required: ['value'],
    });
    expect(second?.messages.at(-1)).toMatchObject({ role: 'system' });
    expect(second?.messages.at(-1)?.content).toContain('must end with a call of the tool "final_answer"');
  });

  test('an answer that never validates fails the run with Output.Invalid after maxCorrections', async () => {
    const bad = { city: 'Oslo', temperatures: [1], sky: 'stormy' };
    const model = env.scenario([answer(bad, 'a1'), answer(bad, 'a2'), answer(bad, 'a3')]);
    const failure = await env.runExpectingFailure({
      model,
      tools: [],
      message: 'weather?',
      output: { schema: weather, maxCorrections: 2 },
    });
    expect(failure.type).toBe(FailureType.outputInvalid);
    expect(failure.message).toContain('#/sky');
    expect(failure.details?.[0]).toMatchObject({ maxCorrections: 2, problems: [expect.stringContaining('#/sky')] });
    expect(env.model.requests(model)).toHaveLength(3);
  });

  test('the answer tool called with other tools is not taken; the others run, and the lone call ends the run', async () => {
    const model = env.scenario([
      {
        toolCalls: [
          { name: 'calculator', arguments: { expression: '1+1' }, id: 'c1' },
          { name: 'final_answer', arguments: JSON.stringify(valid), id: 'c2' },
        ],
      },
      answer(valid),
    ]);
    const result = await env.run({ model, tools: ['calculator'], message: 'go', output: { schema: weather } });
    expect(result.output).toEqual(valid);
    const tools = env.model.requests(model)[1]?.messages.filter((message) => message.role === 'tool');
    expect(tools?.map((message) => message.content)).toEqual(['2', expect.stringContaining('must be called alone')]);
  });

  test("a terminating tool's output that is a valid answer ends the run with it; one that is not gets a correction", async () => {
    const model = env.scenario([
      { toolCalls: [{ name: 'task_completion', arguments: { result: 'not json' } }] },
      { toolCalls: [{ name: 'task_completion', arguments: { result: JSON.stringify(valid) } }] },
    ]);
    const result = await env.run({ model, tools: ['task_completion'], message: 'go', output: { schema: weather } });
    expect(result.output).toEqual(valid);
    expect(result.terminationReason).toMatchObject({ type: 'terminating_tool', toolName: 'task_completion' });
    expect(result.outputCorrections).toBe(1);
    expect(env.model.requests(model)[1]?.messages.at(-1)?.content).toContain('the output of "task_completion"');
  });

  test('corrections are counted across continue-as-new: the count carried makes the next bad answer the last', async () => {
    const bad = { city: 'Oslo', temperatures: [], sky: 'clear' };
    const model = env.scenario([answer(bad, 'a1'), answer(bad, 'a2')]);
    const handle = await env.start({
      model,
      tools: [],
      message: 'weather?',
      iterationsPerRun: 1,
      output: { schema: weather, maxCorrections: 1 },
    });
    await expect(handle.result()).rejects.toMatchObject({ cause: { type: FailureType.outputInvalid } });
    const { events } = await handle.query(eventsQuery, {});
    expect(events.map((event) => event.type)).toContain('run-take-over');
    expect(env.model.requests(model)).toHaveLength(2);
  });

  test('a stop condition still ends the run, without output', async () => {
    const model = env.scenario([{ toolCalls: [{ name: 'calculator', arguments: { expression: '1+1' } }] }]);
    const result = await env.run({
      model,
      tools: ['calculator'],
      message: 'go',
      stopWhen: { maxIterations: 1 },
      output: { schema: weather },
    });
    expect(result.terminationReason).toMatchObject({ type: 'stop_condition' });
    expect(result.output).toBeUndefined();
  });

  test('an invalid schema is refused at start with InvalidAgentInput', async () => {
    const failure = await env.runExpectingFailure({
      tools: [],
      message: 'go',
      output: { schema: { type: 'objekt', properties: { a: { $ref: '#/$defs/missing' } } } },
    });
    expect(failure.type).toBe(FailureType.invalidInput);
    expect(failure.message).toContain('output.schema');
    expect(failure.message).toContain('#/type');
    expect(failure.message).toContain('#/$defs/missing');
  });
});

describe('structured output (response_format mode)', () => {
  test('the request carries response_format; the text answer is checked, corrected once, and parsed', async () => {
    const model = env.scenario([{ content: '{"city":"Oslo"}' }, { content: JSON.stringify(valid) }]);
    const result = await env.run({
      model,
      tools: [],
      message: 'weather?',
      output: { schema: weather, mode: 'response_format', name: 'weather' },
    });
    expect(result.output).toEqual(valid);
    expect(result.outputCorrections).toBe(1);
    const [first, second] = env.model.requests(model);
    // eslint-disable-next-line @typescript-eslint/no-unused-vars
    const { $schema, ...schema } = weather;
    expect(first?.response_format).toEqual({ type: 'json_schema', json_schema: { name: 'weather', schema } });
    expect(first?.tools).toBeUndefined();
    expect(second?.messages.at(-1)).toMatchObject({ role: 'system' });
    expect(second?.messages.at(-1)?.content).toContain('Answer again with only the corrected JSON');
  });
});
