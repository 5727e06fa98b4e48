import { z } from 'zod';
import { eventsQuery } from '../../src/workflow-contract/definitions';
import { type AgentResult } from '../../src/shared/agent-result';
import { type RunEventOf } from '../../src/shared/run-events';
import { defineTool } from '../../src/tools/define-tool';
import { TestEnv } from '../helpers/test-env';

/**
 * `context_release` (the model asks to mask the tool results of iterations it names) through a real worker:
 * offered while masking is on, answered in the workflow, honoured by masking
 * whatever the released iteration's age, and carried across continue-as-new.
 */

/** A result of 150 estimated tokens, over the tests' `minTokens` of 100. */
const BIG = 'y'.repeat(600);
const bigTool = defineTool({
  name: 'big',
  description: 'Returns a large result.',
  parameters: z.object({}),
  execute: () => BIG,
});

let env: TestEnv;
beforeAll(async () => {
  env = await TestEnv.create({ extraTools: [bigTool] });
});
afterAll(async () => {
  await env.close();
});

const masking = { keepIterations: 2, minTokens: 100 };
const big = { toolCalls: [{ name: 'big', arguments: {} }] };
const release = (iterations: unknown) => ({ toolCalls: [{ name: 'context_release', arguments: { iterations } }] });

type WireMessage = { role: string; content?: string | null; tool_call_id?: string };
/** The tool messages the model was sent in request `index` of `model`. */
function toolContents(model: string, index: number): string[] {
  const request = env.model.requests(model)[index];
  if (request === undefined) throw new Error(`no request ${index} for ${model}`);
  return (request.messages as WireMessage[])
    .filter((message) => message.role === 'tool')
    .map((message) => String(message.content));
}
function offeredTools(model: string, index: number): string[] {
  const tools = (env.model.requests(model)[index]?.tools ?? []) as { function: { name: string } }[];
  return tools.map((tool) => tool.function.name);
}

describe('context_release', () => {
  test('masks a released iteration at the next call, though keepIterations would keep it, across continue-as-new', async () => {
    const model = env.scenario([big, release([1]), { content: 'done' }]);
    // iterationsPerRun 2: the run hands over between the release and the next call, so the released set must travel.
    const handle = await env.start({ model, tools: ['big'], message: 'go', masking, iterationsPerRun: 2 });
    const result = (await handle.result()) as AgentResult;
    expect(result.response).toBe('done');

    expect(offeredTools(model, 0)).toEqual(['big', 'context_release']);
    const masked = '[Masked: big result from iteration 1, about 150 tokens. Call the tool again if you need it.]';
    expect(toolContents(model, 1)).toEqual([BIG]);
    expect(toolContents(model, 2)).toEqual([
      masked,
      'Released iteration 1: large tool results from it are masked from your next call on.',
    ]);
    // The run's transcript keeps the result whole.
    expect(result.messages.filter((message) => message.role === 'tool')[0]).toMatchObject({ content: BIG });

    const events = (await handle.query(eventsQuery, { after: 0 })).events;
    expect(events.some((event) => event.type === 'run-take-over')).toBe(true);
    const releases = events.filter((event): event is RunEventOf<'context-release'> => event.type === 'context-release');
    expect(releases).toEqual([expect.objectContaining({ iteration: 2, released: [1], ignored: 0, totalReleased: 1 })]);
    expect(
      events.find((event) => event.type === 'tool-call-end' && event.toolName === 'context_release'),
    ).toMatchObject({ isError: false });
  });

  test('without the release the same result stays in the context (what the release changed)', async () => {
    const model = env.scenario([big, { toolCalls: [{ name: 'big', arguments: {} }] }, { content: 'done' }]);
    await env.run({ model, tools: ['big'], message: 'go', masking });
    expect(toolContents(model, 2)).toEqual([BIG, BIG]);
  });

  test('hostile arguments are answered with an error the model reads; the run goes on', async () => {
    const model = env.scenario([
      big,
      release([7, 'all', 1.5]),
      { toolCalls: [{ name: 'context_release', arguments: '{"iterations": "1"}' }] },
      { content: 'done' },
    ]);
    const handle = await env.start({ model, tools: ['big'], message: 'go', masking });
    const result = (await handle.result()) as AgentResult;
    expect(result.response).toBe('done');
    const answers = result.messages
      .filter((message) => message.role === 'tool')
      .slice(1)
      .map((message) => message.content);
    expect(answers).toEqual([
      'Error: Nothing was released. Ignored: 7 (not an earlier iteration), "all" (not a whole number), 1.5 (not a whole number). This is iteration 2.',
      'Error: "iterations" must be an array of iteration numbers; call context_release with {"iterations": [<earlier iteration numbers>]}.',
    ]);
    // Nothing was released: at the third call iteration 1's result is still within keepIterations and stays.
    expect(toolContents(model, 2)[0]).toBe(BIG);
    const events = (await handle.query(eventsQuery, { after: 0 })).events;
    expect(events.filter((event) => event.type === 'context-release')).toEqual([
      expect.objectContaining({ released: [], ignored: 3, totalReleased: 0 }),
    ]);
  });

  test('is not offered without masking, and a call to it is an unknown tool', async () => {
    const model = env.scenario([release([1]), { content: 'done' }]);
    const result = await env.run({ model, tools: ['big'], message: 'go' });
    expect(offeredTools(model, 0)).toEqual(['big']);
    expect(result.messages.find((message) => message.role === 'tool')).toMatchObject({
      content: 'Error: there is no tool named "context_release". Available tools: big.',
    });
  });
});
