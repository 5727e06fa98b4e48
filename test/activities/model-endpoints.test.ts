import { randomUUID } from 'node:crypto';
import { createActivities } from '../../src/activities';
import type { ScriptStep } from '../../src/scripted-model/script';
import { ScriptedModelServer } from '../../src/scripted-model/server';
import type {
  AgentActivities,
  CompactionInput,
  CompactionResult,
  ModelCallInput,
  ModelCallResult,
} from '../../src/shared/activity-types';
import { FailureType } from '../../src/shared/failure-catalogue';
import { createToolRegistry } from '../../src/tools/tool-registry';
import { calculatorTool } from '../../src/tools/builtin';
import { quietEnvironment } from '../helpers/model-activities';
import { applicationFailureOf } from '../helpers/promises';

/**
 * The `callModel` activity with several named endpoints, each a real scripted OpenAI-compatible server: which one a
 * call goes to, which failures move it to the next, and what the result and failures say of it.
 */

const FIRST_KEY = 'sk-first-endpoint-key-0123456789';
const SECOND_KEY = 'sk-second-endpoint-key-9876543210';

let first: ScriptedModelServer;
let second: ScriptedModelServer;
/** The URL of a server that was closed: connections to it are refused. */
let closedURL: string;
let activities: AgentActivities;

beforeAll(async () => {
  [first, second] = await Promise.all([ScriptedModelServer.start(), ScriptedModelServer.start()]);
  const closed = await ScriptedModelServer.start();
  closedURL = closed.baseURL;
  await closed.close();
  activities = createActivities({
    registry: createToolRegistry([calculatorTool]),
    model: {
      baseURL: first.baseURL,
      apiKey: FIRST_KEY,
      defaultModel: 'first-default',
      prices: {
        'second/priced-model': { inputPerMTok: 1_000_000, outputPerMTok: 0 },
        'priced-model': { inputPerMTok: 0, outputPerMTok: 0 },
      },
      endpoints: {
        second: {
          baseURL: second.baseURL,
          apiKey: SECOND_KEY,
          models: ['served-by-second'],
          maxTokensField: 'max_completion_tokens',
          parallelToolCalls: false,
          streamUsage: false,
        },
        down: { baseURL: closedURL },
        // The second server again, listing no models: a fallback naming only it keeps the call's model.
        mirror: { baseURL: second.baseURL },
      },
    },
  });
});

afterAll(async () => {
  await Promise.all([first.close(), second.close()]);
});

/** A model name of the test's own, with `steps` queued on `server`. */
function scripted(server: ScriptedModelServer, steps: ScriptStep[]): string {
  const model = `endpoints-${randomUUID().slice(0, 8)}`;
  server.script(model, steps);
  return model;
}

function callModel(overrides: Partial<ModelCallInput>): Promise<ModelCallResult> {
  const input: ModelCallInput = {
    messages: [{ role: 'user', content: 'Hello.' }],
    toolNames: [],
    parallelToolCalls: true,
    ...overrides,
  };
  return quietEnvironment().run(activities.callModel, input);
}

describe('the endpoint a call goes to', () => {
  test('`<endpoint>/<model>` sends the model to that endpoint, with its key, and the result names it', async () => {
    const model = scripted(second, [{ content: 'from second' }]);

    const result = await callModel({ model: `second/${model}` });

    expect({ content: result.message.content, endpoint: result.endpoint, fallbacks: result.fallbacks }).toEqual({
      content: 'from second',
      endpoint: 'second',
      fallbacks: undefined,
    });
    expect(second.requests(model)).toHaveLength(1);
    expect(first.requests(model)).toHaveLength(0);
    expect(first.requests(`second/${model}`)).toHaveLength(0);
  });

  test('a model an endpoint lists goes there without its name; any other model goes to the default endpoint', async () => {
    second.script('served-by-second', [{ content: 'listed' }]);
    const plain = scripted(first, [{ content: 'default' }]);

    const listed = await callModel({ model: 'served-by-second' });
    const unlisted = await callModel({ model: plain });

    expect([listed.endpoint, unlisted.endpoint]).toEqual(['second', 'default']);
    expect([listed.message.content, unlisted.message.content]).toEqual(['listed', 'default']);
  });

  test("an endpoint's own request fields: its token-cap field, no parallel_tool_calls, no stream_options", async () => {
    const model = scripted(second, [{ content: 'ok' }]);
    const onFirst = scripted(first, [{ content: 'ok' }]);

    await callModel({ model: `second/${model}`, toolNames: ['calculator'], sampling: { maxTokens: 50 } });
    await callModel({ model: onFirst, toolNames: ['calculator'], sampling: { maxTokens: 50 } });

    const [toSecond] = second.requests(model) as Record<string, unknown>[];
    const [toFirst] = first.requests(onFirst) as Record<string, unknown>[];
    expect(toSecond).toMatchObject({ max_completion_tokens: 50, stream: true });
    expect(Object.keys(toSecond ?? {})).not.toEqual(
      expect.arrayContaining(['max_tokens', 'parallel_tool_calls', 'stream_options']),
    );
    expect(toFirst).toMatchObject({
      max_tokens: 50,
      parallel_tool_calls: true,
      stream_options: { include_usage: true },
    });
  });

  test("a compaction's summary is asked of the run's endpoint, with that endpoint's token-cap field", async () => {
    const model = scripted(second, [{ content: 'A summary.' }]);

    const input: CompactionInput = {
      model: `second/${model}`,
      instructions: 'Summarise.',
      messages: [{ role: 'user', content: 'Hello.' }],
      maxSummaryChars: 1_000,
      sampling: { maxTokens: 20 },
    };
    const result = (await quietEnvironment().run(activities.compactConversation, input)) as CompactionResult;

    expect(result.summary).toBe('A summary.');
    expect(second.requests(model)).toEqual([expect.objectContaining({ model, max_completion_tokens: 20 })]);
  });

  test('a price under `<endpoint>/<model>` prices the call on that endpoint before the plain name does', async () => {
    second.script('priced-model', [{ content: 'priced' }]);

    const result = await callModel({ model: 'second/priced-model' });

    expect(result.usage.costUsd).toBeCloseTo(result.usage.promptTokens, 6);
  });
});

describe('fallbacks', () => {
  test.each([
    ['503', { error: { status: 503, message: 'overloaded' } }, FailureType.modelCallServerError],
    ['529', { error: { status: 529, message: 'Overloaded' } }, FailureType.modelCallServerError],
    [
      '429',
      { error: { status: 429, message: 'slow down', headers: { 'retry-after': '30' } } },
      FailureType.modelCallRateLimited,
    ],
  ] as const)('a %s moves the call to the next endpoint, and the result says so', async (_status, step, type) => {
    const primary = scripted(first, [step]);
    const fallback = scripted(second, [{ content: 'answered by the fallback' }]);

    const result = await callModel({ model: primary, fallbacks: [`second/${fallback}`] });

    expect({ endpoint: result.endpoint, content: result.message.content }).toEqual({
      endpoint: 'second',
      content: 'answered by the fallback',
    });
    expect(result.fallbacks).toEqual([
      { endpoint: 'default', model: primary, type, message: expect.stringContaining(String(step.error.status)) },
    ]);
    expect([first.requests(primary).length, second.requests(fallback).length]).toEqual([1, 1]);
  });

  test('a refused connection moves the call on; `<endpoint>` alone keeps the model', async () => {
    const model = scripted(second, [{ content: 'the same model elsewhere' }]);

    const result = await callModel({ model: `down/${model}`, fallbacks: ['mirror'] });

    expect({ endpoint: result.endpoint, content: result.message.content }).toEqual({
      endpoint: 'mirror',
      content: 'the same model elsewhere',
    });
    expect(result.fallbacks?.map(({ endpoint, model: sent, type }) => ({ endpoint, model: sent, type }))).toEqual([
      { endpoint: 'down', model, type: FailureType.modelCallConnectionError },
    ]);
  });

  test.each([
    ['a bad request', { error: { status: 400, message: 'bad tool schema' } }, FailureType.modelCallBadRequest],
    [
      'a context overflow',
      { error: { status: 400, message: 'too long', code: 'context_length_exceeded' } },
      FailureType.modelCallContextOverflow,
    ],
  ] as const)('%s fails the call where it happened: no other endpoint is asked', async (_name, step, type) => {
    const primary = scripted(first, [step]);
    const fallback = scripted(second, [{ content: 'never' }]);

    const failure = await applicationFailureOf(callModel({ model: primary, fallbacks: [`second/${fallback}`] }));

    expect({ type: failure.type, nonRetryable: failure.nonRetryable }).toEqual({ type, nonRetryable: true });
    expect(second.requests(fallback)).toHaveLength(0);
  });

  test("when every endpoint fails the call fails with the last one's failure, naming those before it", async () => {
    const primary = scripted(first, [{ error: { status: 502, message: 'bad gateway' } }]);

    const failure = await applicationFailureOf(callModel({ model: primary, fallbacks: ['down'] }));

    expect({ type: failure.type, nonRetryable: failure.nonRetryable }).toEqual({
      type: FailureType.modelCallConnectionError,
      nonRetryable: false,
    });
    expect(failure.message).toContain('Endpoints tried before: "default" (ModelCall.ServerError).');
  });

  test('a fallback naming no endpoint of the worker fails before anything is sent', async () => {
    const primary = scripted(first, [{ content: 'never' }]);

    const failure = await applicationFailureOf(callModel({ model: primary, fallbacks: ['nowhere/model'] }));

    expect({ type: failure.type, nonRetryable: failure.nonRetryable }).toEqual({
      type: FailureType.modelCallUnknownEndpoint,
      nonRetryable: true,
    });
    expect(first.requests(primary)).toHaveLength(0);
  });

  test("a named endpoint's key is redacted from the failures the call records and throws", async () => {
    const primary = scripted(first, [{ error: { status: 500, message: 'internal' } }]);
    const fallback = scripted(second, [{ echoKey: { status: 503 } }]);

    const failure = await applicationFailureOf(callModel({ model: primary, fallbacks: [`second/${fallback}`] }));

    expect(failure.type).toBe(FailureType.modelCallServerError);
    expect(failure.message).toContain('Incorrect API key provided');
    expect(JSON.stringify([failure.message, failure.details])).not.toContain(SECOND_KEY);
  });
});
