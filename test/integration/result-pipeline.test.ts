import { z } from 'zod';
import type { ChatCompletionRequest } from '../../src/scripted-model/script';
import { DEFAULT_EXTRACTION_INSTRUCTIONS, RESULT_CACHE_DEFAULTS } from '../../src/shared/defaults/context-control';
import { addUsage, ZERO_USAGE } from '../../src/shared/messages';
import { approveSignal, terminateSignal, eventsQuery } from '../../src/workflow-contract/definitions';
import { type AgentResult } from '../../src/shared/agent-result';
import { type RunEventOf } from '../../src/shared/run-events';
import { temporalRunsOf } from '../../src/temporal/run-chain';
import { defineTool } from '../../src/tools/define-tool';
import { TestEnv } from '../helpers/test-env';
import { waitForState } from '../helpers/wait';

/**
 * The result pipeline through a real worker and dev server: the extractor
 * condenses a long result with its own model call (the scripted model plays
 * both the agent and the extractor, under different model names), and the
 * cacher keeps a long result in the run's cache, which the model reads back
 * with `result_cache`, also after continue-as-new and a worker restart.
 */

/** A text of `size` characters in numbered lines, `NEEDLE` in the middle: each slice of it says where it is. */
function report(size: number): string {
  let text = '';
  for (let line = 0; text.length < size; line += 1)
    text += line === 40 ? 'line 40: NEEDLE the disk is full\n' : `line ${line}: all good\n`;
  return text.slice(0, size);
}

const reportTool = defineTool({
  name: 'read_report',
  description: 'Returns the report, `size` characters long.',
  parameters: z.object({ size: z.number().int().positive() }),
  local: true,
  execute: ({ size }) => report(size),
});

/** The report after `delayMs`: with `read_report` beside it in one batch, the call made first completes last. */
const slowReportTool = defineTool({
  name: 'read_report_slowly',
  description: 'Returns the report, `size` characters long, after `delayMs`.',
  parameters: z.object({ size: z.number().int().positive(), delayMs: z.number().int().nonnegative() }),
  execute: async ({ size, delayMs }) => {
    await new Promise((resolve) => setTimeout(resolve, delayMs));
    return report(size);
  },
});

let env: TestEnv;
beforeAll(async () => {
  env = await TestEnv.create({ extraTools: [reportTool, slowReportTool] });
});
afterAll(async () => {
  await env.close();
});

const readReport = (size: number) => ({ toolCalls: [{ name: 'read_report', arguments: { size } }] });
const readCache = (args: Record<string, unknown>) => ({ toolCalls: [{ name: 'result_cache', arguments: args }] });
/** The tool message of a request: the last message, where the model sees its newest result. */
const lastToolContent = (request: ChatCompletionRequest | undefined) => request?.messages.at(-1)?.content;
const offered = (request: ChatCompletionRequest | undefined) =>
  (request?.tools ?? []).map((tool) => tool.function.name);

describe('the extractor', () => {
  test('condenses a result past extractThreshold with its own model, guided by the last user message; the event has token counts', async () => {
    const model = env.scenario([readReport(6_000), { content: 'the disk is full' }]);
    const extractor = env.scenario([{ content: 'line 40: NEEDLE the disk is full' }]);
    const handle = await env.start({
      model,
      tools: ['read_report'],
      message: 'Why did the job fail?',
      resultProcessing: { extractThreshold: 2_000, extractModel: extractor },
    });
    const result = (await handle.result()) as AgentResult;
    expect(result.response).toBe('the disk is full');

    const [extraction] = env.model.requests(extractor);
    expect(extraction?.tools).toBeUndefined();
    expect(extraction?.messages[0]).toEqual({ role: 'system', content: DEFAULT_EXTRACTION_INSTRUCTIONS });
    expect(extraction?.messages[1]?.content).toContain("The user's request:\nWhy did the job fail?");
    expect(extraction?.messages[1]?.content).toContain(report(6_000));

    // The agent's model sees the condensed text, and is not offered result_cache (caching is off).
    const requests = env.model.requests(model);
    expect(lastToolContent(requests[1])).toBe('line 40: NEEDLE the disk is full');
    expect(offered(requests[0])).toEqual(['read_report']);
    expect(result.messages[2]).toMatchObject({ role: 'tool', content: 'line 40: NEEDLE the disk is full' });

    const { events } = await handle.query(eventsQuery, {});
    const extracted = events.filter(
      (event): event is RunEventOf<'tool-result-extraction'> => event.type === 'tool-result-extraction',
    );
    expect(extracted).toEqual([
      expect.objectContaining({
        iteration: 1,
        callId: 'call-1-1',
        toolName: 'read_report',
        originalChars: 6_000,
        extractedChars: 32,
        originalTokens: 1_500,
        extractedTokens: 8,
        cut: false,
        model: extractor,
      }),
    ]);
    // The extraction's tokens count in the run's usage, besides the agent's own calls.
    const modelUsage = events
      .flatMap((event) => (event.type === 'model-response' ? [event.usage] : []))
      .reduce(addUsage, ZERO_USAGE);
    expect(result.usage).toEqual(addUsage(modelUsage, extracted[0]!.usage));
    expect(extracted[0]!.usage.totalTokens).toBeGreaterThan(0);
  });

  test('a failed extraction keeps the whole result and is recorded; the run goes on', async () => {
    const model = env.scenario([readReport(3_000), { content: 'read it whole' }]);
    const extractor = env.scenario([{ error: { status: 400, message: 'this model cannot condense' } }]);
    const handle = await env.start({
      model,
      tools: ['read_report'],
      message: 'Read the report.',
      resultProcessing: { extractThreshold: 1_000, extractModel: extractor },
    });
    const result = (await handle.result()) as AgentResult;

    expect(result.response).toBe('read it whole');
    expect(lastToolContent(env.model.requests(model)[1])).toBe(report(3_000));
    const { events } = await handle.query(eventsQuery, {});
    expect(events.filter((event) => event.type.startsWith('tool-result-'))).toEqual([
      expect.objectContaining({
        type: 'tool-result-extraction-failure',
        callId: 'call-1-1',
        toolName: 'read_report',
        errorType: 'ModelCall.BadRequest',
        reason: expect.stringContaining('this model cannot condense'),
      }),
    ]);
  });

  test('a run stopped while the extractor works keeps the result as the processor left it', async () => {
    const model = env.scenario([readReport(3_000)]);
    const extractor = env.scenario([{ content: 'too late', delayMs: 20_000 }]);
    const handle = await env.start({
      model,
      tools: ['read_report'],
      message: 'go',
      resultProcessing: { extractThreshold: 1_000, extractModel: extractor },
    });
    await waitForState(handle, (state) => state.activity.includes('condensing the result of read_report'));
    await handle.signal(terminateSignal, { reason: 'enough' });
    const result = (await handle.result()) as AgentResult;

    expect(result.terminationReason).toMatchObject({ type: 'external', via: 'signal' });
    expect(result.messages[2]).toMatchObject({ role: 'tool', tool_call_id: 'call-1-1', content: report(3_000) });
  });

  test('the processor cuts first, the extractor condenses what is left, and the cacher takes a result the extractor could not shorten', async () => {
    const model = env.scenario([readReport(9_000), { content: 'ok' }]);
    // An answer no shorter than what it was given: the result goes on unextracted, to the cacher.
    const extractor = env.scenario([{ content: 'x'.repeat(5_000) }]);
    const handle = await env.start({
      model,
      tools: ['read_report'],
      message: 'go',
      resultProcessing: {
        maxResultChars: 4_000,
        extractThreshold: 1_000,
        extractModel: extractor,
        inlineThreshold: 2_000,
      },
    });
    await handle.result();
    // The extractor was given the cut result, marker included.
    expect(env.model.requests(extractor)[0]?.messages[1]?.content).toContain(
      `${report(4_000)}\n[truncated: kept 4000 of 9000 characters]`,
    );
    const { events } = await handle.query(eventsQuery, {});
    expect(events.filter((event) => event.type.startsWith('tool-result-')).map((event) => event.type)).toEqual([
      'tool-result-truncation',
      'tool-result-extraction-failure',
      'tool-result-caching',
    ]);
    const cut = `${report(4_000)}\n[truncated: kept 4000 of 9000 characters]`;
    expect(lastToolContent(env.model.requests(model)[1])).toMatch(
      new RegExp(`^\\[Cached as cache-1: the result of read_report is ${cut.length} characters`),
    );
  });
});

describe('the cacher and result_cache', () => {
  test('a result past inlineThreshold is cached; the model sees a summary, reads a slice back, and hostile reads get clear errors', async () => {
    const model = env.scenario([
      readReport(20_000),
      {
        toolCalls: [
          { name: 'result_cache', arguments: { ref: 'cache-1', offset: 5_000, length: 120 } },
          { name: 'result_cache', arguments: { ref: 'cache-7' } },
          { name: 'result_cache', arguments: { ref: 'cache-1', offset: -3, length: 10_000_000 } },
        ],
      },
      { content: 'found it' },
    ]);
    const handle = await env.start({
      model,
      tools: ['read_report'],
      message: 'Find the needle.',
      resultProcessing: { inlineThreshold: 1_000 },
    });
    const result = (await handle.result()) as AgentResult;
    expect(result.response).toBe('found it');

    const requests = env.model.requests(model);
    expect(offered(requests[0])).toEqual(['read_report', 'result_cache']);
    const summary = lastToolContent(requests[1]);
    expect(summary).toBe(
      '[Cached as cache-1: the result of read_report is 20000 characters, too long to show whole. Its first 500 characters follow. ' +
        `Read any part with the result_cache tool, e.g. {"ref":"cache-1","offset":500,"length":${RESULT_CACHE_DEFAULTS.sliceMaxChars}} ` +
        `(at most ${RESULT_CACHE_DEFAULTS.sliceMaxChars} characters a call).]\n${report(500)}`,
    );
    const answers = requests[2]?.messages.slice(-3).map((message) => message.content);
    expect(answers).toEqual([
      `[cache-1: characters 5000 to 5119 of 20000; read on with offset 5120]\n${report(20_000).slice(5_000, 5_120)}`,
      'Error: result_cache: there is no cached result "cache-7"; the cache holds cache-1.',
      'Error: result_cache: offset must be a whole number, 0 or more (got -3).',
    ]);

    const { events } = await handle.query(eventsQuery, {});
    expect(events.filter((event) => event.type === 'tool-result-caching')).toEqual([
      expect.objectContaining({
        iteration: 1,
        callId: 'call-1-1',
        toolName: 'read_report',
        ref: 'cache-1',
        originalChars: 20_000,
        originalTokens: 5_000,
        dropped: [],
      }),
    ]);
    // The reads are logged like any call, and ran no activity.
    expect(
      events
        .filter((event) => event.type === 'tool-call-end' && event.toolName === 'result_cache')
        .map((event) => event.type === 'tool-call-end' && event.isError),
    ).toEqual([false, true, true]);
  });

  test('the cache survives continue-as-new: a later Temporal run reads a result cached by an earlier one', async () => {
    const model = env.scenario([
      readReport(20_000),
      readReport(100),
      readCache({ ref: 'cache-1', offset: 990, length: 40 }),
      { content: 'done' },
    ]);
    const handle = await env.start({
      model,
      tools: ['read_report'],
      message: 'go',
      iterationsPerRun: 1,
      resultProcessing: { inlineThreshold: 1_000 },
    });
    const result = (await handle.result()) as AgentResult;

    expect(result.response).toBe('done');
    expect((await temporalRunsOf(env.client, handle.workflowId)).map((run) => run.status.name)).toEqual([
      'CONTINUED_AS_NEW',
      'CONTINUED_AS_NEW',
      'CONTINUED_AS_NEW',
      'COMPLETED',
    ]);
    expect(lastToolContent(env.model.requests(model)[3])).toBe(
      `[cache-1: characters 990 to 1029 of 20000; read on with offset 1030]\n${report(20_000).slice(990, 1_030)}`,
    );
  });

  test('the cache survives a worker restart: the new worker rebuilds it from history and answers the read', async () => {
    const model = env.scenario([
      readReport(20_000),
      { toolCalls: [{ name: 'write_file', arguments: { path: 'restart.txt', content: 'x' } }] },
      readCache({ ref: 'cache-1', offset: 700, length: 50 }),
      { content: 'done' },
    ]);
    const handle = await env.start({
      model,
      tools: ['read_report', 'write_file'],
      message: 'go',
      approval: { tools: ['write_file'] },
      resultProcessing: { inlineThreshold: 1_000 },
    });
    await waitForState(handle, (state) => state.status === 'waiting_for_approval');
    await env.restartWorker();
    await waitForState(handle, (state) => state.status === 'waiting_for_approval');
    await handle.signal(approveSignal, { callId: 'call-2-1' });
    const result = (await handle.result()) as AgentResult;

    expect(result.response).toBe('done');
    expect(lastToolContent(env.model.requests(model)[3])).toBe(
      `[cache-1: characters 700 to 749 of 20000; read on with offset 750]\n${report(20_000).slice(700, 750)}`,
    );
  });

  test("results of parallel calls are numbered in the calls' order, whichever completes first, so a run's transcript is its input's alone", async () => {
    const model = env.scenario([
      {
        toolCalls: [
          { name: 'read_report_slowly', arguments: { size: 3_000, delayMs: 1_500 } },
          { name: 'read_report', arguments: { size: 2_000 } },
        ],
      },
      readCache({ ref: 'cache-1', offset: 2_990, length: 10 }),
      { content: 'done' },
    ]);
    const handle = await env.start({
      model,
      tools: ['read_report', 'read_report_slowly'],
      message: 'go',
      resultProcessing: { inlineThreshold: 1_000 },
    });
    await handle.result();

    const requests = env.model.requests(model);
    expect(requests[1]?.messages.slice(-2).map((message) => message.content?.split(':')[0])).toEqual([
      '[Cached as cache-1',
      '[Cached as cache-2',
    ]);
    expect(lastToolContent(requests[2])).toBe(
      `[cache-1: characters 2990 to 2999 of 3000; this is the end]\n${report(3_000).slice(2_990)}`,
    );
    const { events } = await handle.query(eventsQuery, {});
    expect(
      events.flatMap((event) => (event.type === 'tool-result-caching' ? [[event.callId, event.ref]] : [])),
    ).toEqual([
      ['call-1-1', 'cache-1'],
      ['call-1-2', 'cache-2'],
    ]);
  });

  test('past the cache bound the oldest entry is dropped, and reading it says so', async () => {
    const big = RESULT_CACHE_DEFAULTS.maxChars / 2 + 10;
    const model = env.scenario([readReport(big), readReport(big), readCache({ ref: 'cache-1' }), { content: 'done' }]);
    const handle = await env.start({
      model,
      tools: ['read_report'],
      message: 'go',
      resultProcessing: { inlineThreshold: 1_000 },
    });
    await handle.result();

    expect(lastToolContent(env.model.requests(model)[3])).toBe(
      `Error: result_cache: cache-1 was dropped from the cache to keep it under ${RESULT_CACHE_DEFAULTS.maxChars} characters; call the tool that produced it again if you need it.`,
    );
    const { events } = await handle.query(eventsQuery, {});
    expect(
      events.flatMap((event) => (event.type === 'tool-result-caching' ? [[event.ref, event.dropped]] : [])),
    ).toEqual([
      ['cache-1', []],
      ['cache-2', ['cache-1']],
    ]);
  });
});
