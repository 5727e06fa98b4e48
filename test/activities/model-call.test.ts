import { randomUUID } from 'node:crypto';
import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger } from '@temporalio/worker';
import { z } from 'zod';
import { createActivities } from '../../src/activities';
import type { ScriptStep } from '../../src/scripted-model/script';
import { ScriptedModelServer } from '../../src/scripted-model/server';
import type { AgentActivities, ModelCallInput, ModelCallResult } from '../../src/shared';
import { calculatorTool, finishTool } from '../../src/tools/builtin';
import { defineTool } from '../../src/tools/define-tool';
import { createToolRegistry, type ToolRegistry } from '../../src/tools/tool-registry';
import { rejectionOf, waitUntil } from '../helpers/promises';

/**
 * The `callModel` activity against a real OpenAI-compatible HTTP server (the
 * scripted model), through the real `openai` client, in Temporal's mock
 * activity environment.
 */

const DEFAULT_MODEL = 'default-model-for-model-call-tests';

const lookupOrderTool = defineTool({
  name: 'lookup_order',
  description: 'Look up an order by its id.',
  parameters: z.object({
    orderId: z.string().min(1).describe('The order id'),
    includeItems: z.boolean().default(false),
  }),
  execute: ({ orderId }) => `order ${orderId}`,
});

let server: ScriptedModelServer;
let registry: ToolRegistry;
let activities: AgentActivities;
let modelCount = 0;
/**
 * When the server's delayed answer to a cancelled request is due. The server
 * keeps waiting after the client has gone; afterAll waits for it so no timer
 * outlives the test file.
 */
let abandonedReplyDueAt = 0;

beforeAll(async () => {
  server = await ScriptedModelServer.start();
  registry = createToolRegistry([calculatorTool, finishTool, lookupOrderTool]);
  activities = createActivities({
    registry,
    model: { baseURL: server.baseURL, apiKey: 'test', defaultModel: DEFAULT_MODEL },
  });
});

afterAll(async () => {
  await server.close();
  // The scripted server's timer for a cancelled request's delayed reply outlives the close; let it fire here.
  const untilAbandonedReply = abandonedReplyDueAt - Date.now();
  if (untilAbandonedReply > 0) await new Promise((resolve) => setTimeout(resolve, untilAbandonedReply + 100));
});

/** A model name of its own for one test, with its script queued. */
function scriptedModel(steps: ScriptStep[]): string {
  const model = `model-call-${++modelCount}-${randomUUID().slice(0, 8)}`;
  server.script(model, steps);
  return model;
}

/** A fresh environment per test: a cancelled environment stays cancelled. Warnings of failed activities are muted. */
function newEnvironment(): MockActivityEnvironment {
  return new MockActivityEnvironment(undefined, { logger: new DefaultLogger('ERROR') });
}

function modelInput(overrides: Partial<ModelCallInput> = {}): ModelCallInput {
  return {
    messages: [{ role: 'user', content: 'Hello there.' }],
    toolNames: [],
    parallelToolCalls: true,
    ...overrides,
  };
}

function callModel(
  input: ModelCallInput,
  environment: MockActivityEnvironment = newEnvironment(),
  boundActivities: AgentActivities = activities,
): Promise<ModelCallResult> {
  return environment.run(boundActivities.callModel, input);
}


async function applicationFailureOf(promise: Promise<unknown>): Promise<ApplicationFailure> {
  const error = await rejectionOf(promise);
  if (!(error instanceof ApplicationFailure)) {
    throw new Error(`expected an ApplicationFailure, got ${String(error)}`);
  }
  return error;
}

/** The only request the server received for `model`. */
function onlyRequest(model: string) {
  const requests = server.requests(model);
  expect(requests).toHaveLength(1);
  const [request] = requests;
  if (request === undefined) throw new Error(`no request was received for ${model}`);
  return request;
}

/** The scripted server's token estimate: about four characters a token. */
function estimatedTokens(text: string): number {
  return Math.ceil(text.length / 4);
}


describe('callModel: successful replies', () => {
  test('a text reply becomes an assistant message with the finish reason and the answering model', async () => {
    const model = scriptedModel([{ content: 'Paris is the capital of France.' }]);

    const result = await callModel(modelInput({ model, messages: [{ role: 'user', content: 'Capital of France?' }] }));

    expect(result.message).toEqual({ role: 'assistant', content: 'Paris is the capital of France.' });
    expect(result.message).not.toHaveProperty('tool_calls');
    expect(result.finishReason).toBe('stop');
    expect(result.model).toBe(model);
    const request = onlyRequest(model);
    expect(request.messages).toEqual([{ role: 'user', content: 'Capital of France?' }]);
  });

  test('tool calls keep their ids, names and JSON argument strings, and usage is mapped to camelCase', async () => {
    const calculatorArguments = '{"expression":  "6 * 7"}';
    const lookupArguments = '{"orderId":"A-17","includeItems":true}';
    const model = scriptedModel([
      {
        toolCalls: [
          { id: 'call_calc_1', name: 'calculator', arguments: calculatorArguments },
          { id: 'call_lookup_2', name: 'lookup_order', arguments: lookupArguments },
          { id: 'call_finish_3', name: 'finish', arguments: '' },
        ],
      },
    ]);

    const result = await callModel(
      modelInput({ model, toolNames: ['calculator', 'finish', 'lookup_order'], parallelToolCalls: true }),
    );

    const expectedToolCalls = [
      { id: 'call_calc_1', type: 'function', function: { name: 'calculator', arguments: calculatorArguments } },
      { id: 'call_lookup_2', type: 'function', function: { name: 'lookup_order', arguments: lookupArguments } },
      { id: 'call_finish_3', type: 'function', function: { name: 'finish', arguments: '' } },
    ];
    expect(result.message).toEqual({ role: 'assistant', content: null, tool_calls: expectedToolCalls });
    expect(result.finishReason).toBe('tool_calls');

    // The server's usage (snake_case) comes back in the runner's shape, numbers unchanged.
    const request = onlyRequest(model);
    const promptTokens = estimatedTokens(JSON.stringify(request.messages) + JSON.stringify(request.tools ?? []));
    const completionTokens = estimatedTokens(JSON.stringify(expectedToolCalls));
    expect(result.usage).toEqual({ promptTokens, completionTokens, totalTokens: promptTokens + completionTokens });
    expect(promptTokens).toBeGreaterThan(0);
    expect(completionTokens).toBeGreaterThan(0);
  });

  test('a reply with both text and tool calls keeps both', async () => {
    const model = scriptedModel([
      { content: 'Let me compute that.', toolCalls: [{ id: 'call_mixed', name: 'calculator', arguments: '{"expression":"1+1"}' }] },
    ]);

    const result = await callModel(modelInput({ model, toolNames: ['calculator'] }));

    expect(result.message).toEqual({
      role: 'assistant',
      content: 'Let me compute that.',
      tool_calls: [{ id: 'call_mixed', type: 'function', function: { name: 'calculator', arguments: '{"expression":"1+1"}' } }],
    });
  });
});

describe('callModel: the request sent', () => {
  test('instructions are sent as the leading system message', async () => {
    const model = scriptedModel([{ content: 'ok' }]);

    await callModel(
      modelInput({
        model,
        instructions: 'You are terse.',
        messages: [
          { role: 'user', content: 'First question' },
          { role: 'assistant', content: 'First answer' },
          { role: 'user', content: 'Second question' },
        ],
      }),
    );

    expect(onlyRequest(model).messages).toEqual([
      { role: 'system', content: 'You are terse.' },
      { role: 'user', content: 'First question' },
      { role: 'assistant', content: 'First answer' },
      { role: 'user', content: 'Second question' },
    ]);
  });

  test('without instructions no system message is added', async () => {
    const model = scriptedModel([{ content: 'ok' }]);

    await callModel(modelInput({ model, messages: [{ role: 'user', content: 'Just this' }] }));

    expect(onlyRequest(model).messages).toEqual([{ role: 'user', content: 'Just this' }]);
  });

  test('the runner bookkeeping field `meta` is stripped from every message sent', async () => {
    const model = scriptedModel([{ content: 'ok' }]);

    await callModel(
      modelInput({
        model,
        instructions: 'Be brief.',
        messages: [
          { role: 'user', content: 'Add 2 and 2.', meta: { iteration: 0 } },
          {
            role: 'assistant',
            content: null,
            tool_calls: [{ id: 'call_a', type: 'function', function: { name: 'calculator', arguments: '{"expression":"2+2"}' } }],
            meta: { iteration: 1 },
          },
          { role: 'tool', tool_call_id: 'call_a', content: '4', meta: { iteration: 1 } },
          { role: 'system', content: 'Call a terminating tool.', meta: { injected: 'nudge', iteration: 2 } },
        ],
      }),
    );

    const request = onlyRequest(model);
    expect(request.messages).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Add 2 and 2.' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'call_a', type: 'function', function: { name: 'calculator', arguments: '{"expression":"2+2"}' } }],
      },
      { role: 'tool', tool_call_id: 'call_a', content: '4' },
      { role: 'system', content: 'Call a terminating tool.' },
    ]);
    for (const message of request.messages) expect(message).not.toHaveProperty('meta');
    expect(JSON.stringify(request)).not.toContain('"meta"');
  });

  test('only the tools named in toolNames are sent, each with its JSON Schema parameters', async () => {
    const model = scriptedModel([{ content: 'ok' }]);

    await callModel(modelInput({ model, toolNames: ['lookup_order', 'calculator', 'not_registered'], parallelToolCalls: true }));

    const request = onlyRequest(model);
    const described = new Map(registry.describe().map((tool) => [tool.name, tool]));
    // Registry order (sorted by name); `finish` is registered but not offered, `not_registered` does not exist.
    expect(request.tools).toEqual([
      {
        type: 'function',
        function: {
          name: 'calculator',
          description: described.get('calculator')?.description,
          parameters: described.get('calculator')?.parameters,
        },
      },
      {
        type: 'function',
        function: {
          name: 'lookup_order',
          description: 'Look up an order by its id.',
          parameters: described.get('lookup_order')?.parameters,
        },
      },
    ]);
    expect(request.tools?.[1]?.function.parameters).toMatchObject({
      type: 'object',
      properties: { orderId: { type: 'string', description: 'The order id' }, includeItems: { type: 'boolean' } },
      required: ['orderId'],
    });
    expect(request.parallel_tool_calls).toBe(true);
  });

  test('parallel_tool_calls carries the input flag when tools are offered', async () => {
    const model = scriptedModel([{ content: 'ok' }]);

    await callModel(modelInput({ model, toolNames: ['calculator'], parallelToolCalls: false }));

    const request = onlyRequest(model);
    expect(request.tools?.map((tool) => tool.function.name)).toEqual(['calculator']);
    expect(request).toHaveProperty('parallel_tool_calls', false);
  });

  test('without tools neither tools nor parallel_tool_calls is sent', async () => {
    const noToolsModel = scriptedModel([{ content: 'ok' }]);
    const onlyUnknownToolsModel = scriptedModel([{ content: 'ok' }]);

    await callModel(modelInput({ model: noToolsModel, toolNames: [], parallelToolCalls: true }));
    await callModel(modelInput({ model: onlyUnknownToolsModel, toolNames: ['not_registered'], parallelToolCalls: true }));

    for (const request of [onlyRequest(noToolsModel), onlyRequest(onlyUnknownToolsModel)]) {
      expect(request).not.toHaveProperty('tools');
      expect(request).not.toHaveProperty('parallel_tool_calls');
    }
  });

  test('input.model overrides the default model', async () => {
    const model = scriptedModel([{ content: 'from the named model' }]);
    const requestsForDefaultBefore = server.requests(DEFAULT_MODEL).length;

    const result = await callModel(modelInput({ model }));

    expect(result.message.content).toBe('from the named model');
    expect(onlyRequest(model).model).toBe(model);
    expect(server.requests(DEFAULT_MODEL)).toHaveLength(requestsForDefaultBefore);
  });

  test('without input.model the default model is used', async () => {
    const defaultModel = `default-${randomUUID().slice(0, 8)}`;
    server.script(defaultModel, [{ content: 'from the default model' }]);
    const withDefault = createActivities({
      registry,
      model: { baseURL: server.baseURL, apiKey: 'test', defaultModel },
    });

    const result = await callModel(modelInput(), newEnvironment(), withDefault);

    expect(result.message.content).toBe('from the default model');
    expect(result.model).toBe(defaultModel);
    expect(onlyRequest(defaultModel).model).toBe(defaultModel);
  });
});

describe('callModel: provider errors become typed ApplicationFailures', () => {
  test('429 with retry-after: 3 is retryable, delayed by 3000 ms', async () => {
    const model = scriptedModel([
      { error: { status: 429, message: 'Rate limit reached for requests', headers: { 'retry-after': '3' } } },
    ]);

    const failure = await applicationFailureOf(callModel(modelInput({ model })));

    expect(failure.type).toBe('ModelCall.RateLimited');
    expect(failure.nonRetryable).toBe(false);
    // Stored as given: a number of milliseconds (a Temporal Duration).
    expect(failure.nextRetryDelay).toBe(3000);
    expect(failure.message).toBe(
      `429 from model "${model}" at ${server.baseURL}: Rate limit reached for requests Retrying after the delay the provider asked for.`,
    );
    expect(failure.details).toEqual([{ status: 429, code: null }]);
    expect(server.requests(model)).toHaveLength(1);
  });

  test('429 with retry-after-ms: 1500 is delayed by 1500 ms', async () => {
    const model = scriptedModel([
      { error: { status: 429, message: 'Slow down', headers: { 'retry-after-ms': '1500', 'retry-after': '9' } } },
    ]);

    const failure = await applicationFailureOf(callModel(modelInput({ model })));

    expect(failure.type).toBe('ModelCall.RateLimited');
    expect(failure.nonRetryable).toBe(false);
    expect(failure.nextRetryDelay).toBe(1500);
    expect(server.requests(model)).toHaveLength(1);
  });

  test('429 without a retry header leaves the delay to the retry policy', async () => {
    const model = scriptedModel([{ error: { status: 429, message: 'Slow down' } }]);

    const failure = await applicationFailureOf(callModel(modelInput({ model })));

    expect(failure.type).toBe('ModelCall.RateLimited');
    expect(failure.nonRetryable).toBe(false);
    expect(failure.nextRetryDelay).toBeUndefined();
    expect(server.requests(model)).toHaveLength(1);
  });

  test('429 insufficient_quota is not retried: waiting will not help', async () => {
    const model = scriptedModel([
      {
        error: {
          status: 429,
          message: 'You exceeded your current quota.',
          code: 'insufficient_quota',
          headers: { 'retry-after': '3' },
        },
      },
    ]);

    const failure = await applicationFailureOf(callModel(modelInput({ model })));

    expect(failure.type).toBe('ModelCall.QuotaExceeded');
    expect(failure.nonRetryable).toBe(true);
    expect(failure.nextRetryDelay).toBeUndefined();
    expect(failure.details).toEqual([{ status: 429, code: 'insufficient_quota' }]);
    expect(server.requests(model)).toHaveLength(1);
  });

  test('500 is a retryable server error, after exactly one HTTP request', async () => {
    const model = scriptedModel([
      { error: { status: 500, message: 'The server had an error' } },
      { content: 'a second request would have been answered' },
    ]);

    const failure = await applicationFailureOf(callModel(modelInput({ model })));

    expect(failure.type).toBe('ModelCall.ServerError');
    expect(failure.nonRetryable).toBe(false);
    expect(failure.nextRetryDelay).toBeUndefined();
    expect(failure.message).toContain('The server had an error');
    // The openai client's own retries are off: Temporal owns every retry.
    expect(server.requests(model)).toHaveLength(1);
    expect(server.remaining(model)).toBe(1);
  });

  test('503 is also a retryable server error', async () => {
    const model = scriptedModel([{ error: { status: 503, message: 'Overloaded', headers: { 'retry-after': '2' } } }]);

    const failure = await applicationFailureOf(callModel(modelInput({ model })));

    expect(failure.type).toBe('ModelCall.ServerError');
    expect(failure.nonRetryable).toBe(false);
    expect(failure.nextRetryDelay).toBe(2000);
    expect(server.requests(model)).toHaveLength(1);
  });

  test('401 is non-retryable, with the provider message and the hint to check the key', async () => {
    const model = scriptedModel([
      { error: { status: 401, message: 'Incorrect API key provided: sk-test.', code: 'invalid_api_key', headers: { 'retry-after': '1' } } },
    ]);

    const failure = await applicationFailureOf(callModel(modelInput({ model })));

    expect(failure.type).toBe('ModelCall.Unauthorized');
    expect(failure.nonRetryable).toBe(true);
    expect(failure.nextRetryDelay).toBeUndefined();
    expect(failure.message).toContain('Incorrect API key provided: sk-test.');
    expect(failure.message).toContain('Check OPENAI_API_KEY.');
    expect(failure.message).toContain(`model "${model}" at ${server.baseURL}`);
    expect(failure.details).toEqual([{ status: 401, code: 'invalid_api_key' }]);
    expect(server.requests(model)).toHaveLength(1);
  });

  test('404 is a non-retryable NotFound', async () => {
    const model = scriptedModel([{ error: { status: 404, message: 'The model does not exist', code: 'model_not_found' } }]);

    const failure = await applicationFailureOf(callModel(modelInput({ model })));

    expect(failure.type).toBe('ModelCall.NotFound');
    expect(failure.nonRetryable).toBe(true);
    expect(failure.message).toContain('The model does not exist');
    expect(failure.message).toContain('Check the model name and OPENAI_BASE_URL.');
    expect(server.requests(model)).toHaveLength(1);
  });

  test('400 (here: a script with no reply left) is a non-retryable BadRequest', async () => {
    const model = scriptedModel([]);

    const failure = await applicationFailureOf(callModel(modelInput({ model })));

    expect(failure.type).toBe('ModelCall.BadRequest');
    expect(failure.nonRetryable).toBe(true);
    expect(failure.message).toContain(`The scripted model "${model}" has no reply left to give.`);
    expect(server.requests(model)).toHaveLength(1);
  });

  test('an unreachable server is a retryable ConnectionError', async () => {
    const closedServer = await ScriptedModelServer.start();
    const closedBaseURL = closedServer.baseURL;
    await closedServer.close();
    const unreachable = createActivities({
      registry,
      model: { baseURL: closedBaseURL, apiKey: 'test', defaultModel: 'unreachable-model' },
    });

    const failure = await applicationFailureOf(callModel(modelInput(), newEnvironment(), unreachable));

    expect(closedBaseURL).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
    expect(failure.type).toBe('ModelCall.ConnectionError');
    expect(failure.nonRetryable).toBe(false);
    expect(failure.message).toContain(`Could not reach model "unreachable-model" at ${closedBaseURL}`);
    expect(failure.message).toMatch(/Retrying\.$/);
  });
});

describe('callModel: liveness', () => {
  test('heartbeats while the request is in flight', async () => {
    const model = scriptedModel([{ content: 'ok', delayMs: 50 }]);
    const environment = newEnvironment();
    let heartbeats = 0;
    environment.on('heartbeat', () => {
      heartbeats += 1;
    });

    const result = await callModel(modelInput({ model }), environment);

    expect(result.message.content).toBe('ok');
    expect(heartbeats).toBeGreaterThanOrEqual(1);
  });

  test('a cancellation aborts the HTTP request promptly instead of waiting for the reply', async () => {
    const model = scriptedModel([{ content: 'too late', delayMs: 5_000 }]);
    const environment = newEnvironment();
    const startedAt = Date.now();
    const outcome = rejectionOf(callModel(modelInput({ model }), environment));

    // Cancel once the request is in flight on the server.
    await waitUntil(() => server.requests(model).length === 1);
    abandonedReplyDueAt = Date.now() + 5_000;
    const cancelledAt = Date.now();
    environment.cancel();
    const error = await outcome;
    const finishedAt = Date.now();

    expect(environment.context.cancellationSignal.aborted).toBe(true);
    expect(error).toBeInstanceOf(Error);
    // Cancellation is passed through, not classified as a model failure for Temporal to retry.
    expect(error).not.toBeInstanceOf(ApplicationFailure);
    // It is the SDK's CancelledFailure, so Temporal records the call as cancelled rather than failed.
    expect(error).toBeInstanceOf(CancelledFailure);
    expect(finishedAt - cancelledAt).toBeLessThan(1_000);
    expect(finishedAt - startedAt).toBeLessThan(4_000);
    expect(server.requests(model)).toHaveLength(1);
  });
});
