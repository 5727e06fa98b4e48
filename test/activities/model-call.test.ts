import { randomUUID } from 'node:crypto';
import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import type { MockActivityEnvironment } from '@temporalio/testing';
import { z } from 'zod';
import { createActivities } from '../../src/activities';
import type { ScriptStep } from '../../src/scripted-model/script';
import { ScriptedModelServer } from '../../src/scripted-model/server';
import type { AgentActivities, ModelCallInput, ModelCallResult } from '../../src/shared/activity-types';
import { calculatorTool, finishTool } from '../../src/tools/builtin';
import { defineTool } from '../../src/tools/define-tool';
import { createToolRegistry, type ToolRegistry } from '../../src/tools/tool-registry';
import { quietEnvironment, scriptModel, startModelActivities } from '../helpers/model-activities';
import { applicationFailureOf, rejectionOf, waitUntil } from '../helpers/promises';

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
/**
 * When the server's delayed answer to a cancelled request is due. The server
 * keeps waiting after the client has gone; afterAll waits for it so no timer
 * outlives the test file.
 */
let abandonedReplyDueAt = 0;

beforeAll(async () => {
  registry = createToolRegistry([calculatorTool, finishTool, lookupOrderTool]);
  ({ server, activities } = await startModelActivities({ apiKey: 'test', defaultModel: DEFAULT_MODEL }, registry));
});

afterAll(async () => {
  await server.close();
  // The scripted server's timer for a cancelled request's delayed reply outlives the close; let it fire here.
  const untilAbandonedReply = abandonedReplyDueAt - Date.now();
  if (untilAbandonedReply > 0) await new Promise((resolve) => setTimeout(resolve, untilAbandonedReply + 100));
});

/** A model name of its own for one test, with its script queued. */
const scriptedModel = (steps: ScriptStep[]): string => scriptModel(server, 'model-call', steps);

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
  environment: MockActivityEnvironment = quietEnvironment(),
  boundActivities: AgentActivities = activities,
): Promise<ModelCallResult> {
  return environment.run(boundActivities.callModel, input);
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
      {
        content: 'Let me compute that.',
        toolCalls: [{ id: 'call_mixed', name: 'calculator', arguments: '{"expression":"1+1"}' }],
      },
    ]);

    const result = await callModel(modelInput({ model, toolNames: ['calculator'] }));

    expect(result.message).toEqual({
      role: 'assistant',
      content: 'Let me compute that.',
      tool_calls: [
        { id: 'call_mixed', type: 'function', function: { name: 'calculator', arguments: '{"expression":"1+1"}' } },
      ],
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
            tool_calls: [
              { id: 'call_a', type: 'function', function: { name: 'calculator', arguments: '{"expression":"2+2"}' } },
            ],
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
        tool_calls: [
          { id: 'call_a', type: 'function', function: { name: 'calculator', arguments: '{"expression":"2+2"}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'call_a', content: '4' },
      { role: 'system', content: 'Call a terminating tool.' },
    ]);
    for (const message of request.messages) expect(message).not.toHaveProperty('meta');
    expect(JSON.stringify(request)).not.toContain('"meta"');
  });

  test('only the tools named in toolNames are sent, each with its JSON Schema parameters', async () => {
    const model = scriptedModel([{ content: 'ok' }]);

    await callModel(
      modelInput({ model, toolNames: ['lookup_order', 'calculator', 'not_registered'], parallelToolCalls: true }),
    );

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
    await callModel(
      modelInput({ model: onlyUnknownToolsModel, toolNames: ['not_registered'], parallelToolCalls: true }),
    );

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

    const result = await callModel(modelInput(), quietEnvironment(), withDefault);

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

  test('429 without a retry header backs off 1 s, doubling with each provider failure, and heartbeats the count', async () => {
    const model = scriptedModel([
      { error: { status: 429, message: 'Slow down' } },
      { error: { status: 429, message: 'Slow down' } },
    ]);

    const first = await applicationFailureOf(callModel(modelInput({ model })));
    const fourthEnvironment = quietEnvironment({ attempt: 9, heartbeatDetails: { providerFailures: 3 } });
    const beats: unknown[] = [];
    fourthEnvironment.on('heartbeat', (details: unknown) => beats.push(details));
    const fourth = await applicationFailureOf(callModel(modelInput({ model }), fourthEnvironment));

    expect(first.type).toBe('ModelCall.RateLimited');
    expect(first.nonRetryable).toBe(false);
    expect(first.nextRetryDelay).toBe(1_000);
    // Attempts lost to the infrastructure (here 5 of 9) do not count: the fourth provider failure waits 8 s.
    expect(fourth.nextRetryDelay).toBe(8_000);
    expect(beats.at(-1)).toMatchObject({ providerFailures: 4 });
    expect(server.requests(model)).toHaveLength(2);
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
    expect(failure.nextRetryDelay).toBe(1_000);
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
      {
        error: {
          status: 401,
          message: 'Incorrect API key provided: sk-test.',
          code: 'invalid_api_key',
          headers: { 'retry-after': '1' },
        },
      },
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
    const model = scriptedModel([
      { error: { status: 404, message: 'The model does not exist', code: 'model_not_found' } },
    ]);

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

    const failure = await applicationFailureOf(callModel(modelInput(), quietEnvironment(), unreachable));

    expect(closedBaseURL).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
    expect(failure.type).toBe('ModelCall.ConnectionError');
    expect(failure.nonRetryable).toBe(false);
    expect(failure.message).toContain(`Could not reach model "unreachable-model" at ${closedBaseURL}`);
    expect(failure.message).toMatch(/Retrying\.$/);
  });
});

describe('callModel: answers that are not chat completions are ModelCall.InvalidResponse', () => {
  const noChoices = { id: 'chatcmpl-1', object: 'chat.completion', created: 1, model: 'm' };

  async function invalidResponseOf(steps: ScriptStep[], attempt = 1): Promise<ApplicationFailure> {
    const model = scriptedModel(steps);
    const failure = await applicationFailureOf(
      callModel(
        modelInput({ model, toolNames: ['calculator'] }),
        quietEnvironment({ attempt, heartbeatDetails: { providerFailures: attempt - 1 } }),
      ),
    );
    expect(failure.type).toBe('ModelCall.InvalidResponse');
    expect(server.requests(model)).toHaveLength(1);
    return failure;
  }

  test('a 200 without choices: retryable a second later, with the body start and where it came from', async () => {
    const failure = await invalidResponseOf([{ raw: { body: noChoices } }]);

    expect(failure.nonRetryable).toBe(false);
    expect(failure.nextRetryDelay).toBe(1000);
    expect(failure.message).toMatch(
      /^The answer of model "model-call-\d+-\w+" at http:\/\/127\.0\.0\.1:\d+\/v1 \(status 200, application\/json[^)]*\) is not a chat completion: it has no choices\./,
    );
    expect(failure.message).toContain(`It began: ${JSON.stringify(JSON.stringify(noChoices))}.`);
    expect(failure.message).toMatch(/Attempt 1 of 3; retrying\.$/);
    expect(failure.details).toEqual([
      { status: 200, contentType: expect.stringContaining('application/json'), problem: 'it has no choices' },
    ]);
  });

  test('the third attempt is the last: not retryable, and the message says what to check', async () => {
    const failure = await invalidResponseOf([{ raw: { body: noChoices } }], 3);

    expect(failure.nonRetryable).toBe(true);
    expect(failure.nextRetryDelay).toBeUndefined();
    expect(failure.message).toMatch(
      /Gave up after 3 attempts: check that OPENAI_BASE_URL is the \/v1 URL of an OpenAI-compatible server\.$/,
    );
  });

  test('an HTML page with status 200 (a proxy or a login page) is not JSON; only its first 200 characters are quoted', async () => {
    const html = `<!DOCTYPE html><html><head><title>Sign in</title></head><body>${'<p>Please sign in.</p>'.repeat(40)}</body></html>`;

    const failure = await invalidResponseOf([{ raw: { body: html, contentType: 'text/html; charset=utf-8' } }]);

    expect(failure.message).toContain(
      '(status 200, text/html; charset=utf-8) is not a chat completion: the body is not JSON.',
    );
    expect(failure.message).toContain(`It began: ${JSON.stringify(html.slice(0, 200))}.`);
    expect(failure.message).not.toContain(html.slice(0, 201));
  });

  test('a body that claims to be JSON and is not', async () => {
    const failure = await invalidResponseOf([{ raw: { body: '{"choices": [{"message": ' } }]);

    expect(failure.message).toContain(
      'is not a chat completion: the body is not JSON. It began: "{\\"choices\\": [{\\"message\\": ".',
    );
  });

  test('an empty body', async () => {
    const failure = await invalidResponseOf([{ raw: { body: '' } }]);

    expect(failure.message).toContain('is not a chat completion: the body is empty. The body was empty.');
  });

  test.each([
    ['JSON that is not an object', ['choices'], 'the body is not a JSON object'],
    ['choices: null', { ...noChoices, choices: null }, 'it has no choices'],
    ['choices: []', { ...noChoices, choices: [] }, 'it has no choices'],
    // zod says "object" or "Object" here depending on which realm's JSON.parse made it, so the end is left out.
    [
      'choices that is not an array',
      { ...noChoices, choices: { 0: {} } },
      'choices: Invalid input: expected array, received ',
    ],
    [
      'choices: [{}]',
      { ...noChoices, choices: [{}] },
      'choices[0].message: Invalid input: expected object, received undefined',
    ],
    [
      'message: null',
      { ...noChoices, choices: [{ message: null }] },
      'choices[0].message: Invalid input: expected object, received null',
    ],
    [
      'content that is not text',
      { ...noChoices, choices: [{ message: { content: 42 } }] },
      'choices[0].message.content: Invalid input: expected string, received number',
    ],
    [
      'a tool call that is null',
      { ...noChoices, choices: [{ message: { tool_calls: [null] } }] },
      'choices[0].message.tool_calls[0]: Invalid input: expected object, received null',
    ],
    [
      'a tool call without function',
      { ...noChoices, choices: [{ message: { tool_calls: [{ id: 'c1', type: 'function' }] } }] },
      'choices[0].message.tool_calls[0].function: Invalid input: expected object, received undefined',
    ],
    [
      'a tool call without a name',
      {
        ...noChoices,
        choices: [{ message: { tool_calls: [{ id: 'c1', type: 'function', function: { arguments: '{}' } }] } }],
      },
      'choices[0].message.tool_calls[0].function.name: Invalid input: expected string, received undefined',
    ],
    [
      'a tool call with an empty name',
      { ...noChoices, choices: [{ message: { tool_calls: [{ id: 'c1', function: { name: '' } }] } }] },
      'choices[0].message.tool_calls[0].function.name: Too small: expected string to have >=1 characters',
    ],
    [
      'arguments that are a number',
      { ...noChoices, choices: [{ message: { tool_calls: [{ function: { name: 'calculator', arguments: 7 } }] } }] },
      'choices[0].message.tool_calls[0].function.arguments: Invalid input',
    ],
    [
      'negative token counts',
      { ...noChoices, choices: [{ message: { content: 'hi' } }], usage: { prompt_tokens: -5 } },
      'usage.prompt_tokens: Too small: expected number to be >=0',
    ],
  ])('%s', async (_name, body, problem) => {
    const failure = await invalidResponseOf([{ raw: { body } }]);

    expect(failure.message).toContain(`is not a chat completion: ${problem}`);
    expect(failure.nonRetryable).toBe(false);
  });

  test('what the provider echoes of the key is redacted from the quoted body', async () => {
    const apiKey = 'sk-body-echo-0123456789';
    const withKey = createActivities({
      registry,
      model: { baseURL: server.baseURL, apiKey, defaultModel: DEFAULT_MODEL },
    });
    const model = scriptedModel([{ raw: { body: `<html>Bad key ${apiKey}</html>`, contentType: 'text/html' } }]);

    const failure = await applicationFailureOf(callModel(modelInput({ model }), quietEnvironment(), withKey));

    expect(failure.type).toBe('ModelCall.InvalidResponse');
    expect(failure.message).toContain('It began: "<html>Bad key [redacted]</html>"');
    expect(JSON.stringify({ message: failure.message, stack: failure.stack, details: failure.details })).not.toContain(
      apiKey,
    );
  });
});

describe('callModel: lenient where a provider differs harmlessly', () => {
  test('tool calls of other types are left out; a missing type is a function call; object arguments become JSON text', async () => {
    const model = scriptedModel([
      {
        raw: {
          body: {
            model: 'answering-model',
            choices: [
              {
                message: {
                  content: 'Working on it.',
                  tool_calls: [
                    { id: 'custom_1', type: 'custom', custom: { name: 'grammar', input: 'x' } },
                    { id: 'call_obj', function: { name: 'calculator', arguments: { expression: '6*7' } } },
                    { type: 'function', function: { name: 'calculator' } },
                  ],
                },
                finish_reason: 42,
              },
            ],
            usage: { prompt_tokens: 10, completion_tokens: 5 },
          },
        },
      },
    ]);

    const result = await callModel(modelInput({ model, toolNames: ['calculator'] }));

    expect(result.message).toEqual({
      role: 'assistant',
      content: 'Working on it.',
      tool_calls: [
        { id: 'call_obj', type: 'function', function: { name: 'calculator', arguments: '{"expression":"6*7"}' } },
        { id: expect.stringMatching(/^call_.+_1$/), type: 'function', function: { name: 'calculator', arguments: '' } },
      ],
    });
    expect(result.finishReason).toBeNull();
    expect(result.model).toBe('answering-model');
    expect(result.usage).toEqual({ promptTokens: 10, completionTokens: 5, totalTokens: 15 });
  });

  test('a completion sent as text/plain is still read', async () => {
    const model = scriptedModel([
      {
        raw: {
          body: { choices: [{ message: { role: 'assistant', content: 'plain but fine' }, finish_reason: 'stop' }] },
          contentType: 'text/plain',
        },
      },
    ]);

    const result = await callModel(modelInput({ model }));

    expect(result.message).toEqual({ role: 'assistant', content: 'plain but fine' });
    // No usage in the body: estimated from the request and the answer, and said to be.
    expect(result.usage).toMatchObject({ completionTokens: Math.ceil('plain but fine'.length / 4), estimated: true });
    expect(result.usage.promptTokens).toBeGreaterThan(0);
    expect(result.model).toBe(model);
  });
});

describe('callModel: secrets stay out of failures', () => {
  const apiKey = 'sk-echoed-secret-key-0123456789';

  test('a 401 that echoes the bearer key has it redacted from the message, stack and details', async () => {
    const withKey = createActivities({
      registry,
      model: { baseURL: server.baseURL, apiKey, defaultModel: DEFAULT_MODEL, secrets: ['temporal-api-key-abcdef'] },
    });
    const model = scriptedModel([{ echoKey: {} }]);

    const failure = await applicationFailureOf(callModel(modelInput({ model }), quietEnvironment(), withKey));

    expect(failure.type).toBe('ModelCall.Unauthorized');
    expect(failure.nonRetryable).toBe(true);
    expect(failure.message).toContain('Incorrect API key provided: [redacted].');
    expect(failure.message).toContain('Check OPENAI_API_KEY.');
    expect(JSON.stringify({ message: failure.message, stack: failure.stack, details: failure.details })).not.toContain(
      apiKey,
    );
  });

  test('other configured secrets are redacted too', async () => {
    const temporalKey = 'temporal-api-key-abcdef';
    const withSecrets = createActivities({
      registry,
      model: { baseURL: server.baseURL, apiKey: 'test', defaultModel: DEFAULT_MODEL, secrets: [temporalKey] },
    });
    const model = scriptedModel([{ error: { status: 500, message: `upstream said ${temporalKey}` } }]);

    const failure = await applicationFailureOf(callModel(modelInput({ model }), quietEnvironment(), withSecrets));

    expect(failure.type).toBe('ModelCall.ServerError');
    expect(failure.message).toContain('upstream said [redacted]');
    expect(failure.stack).not.toContain(temporalKey);
  });

  test('a base URL with credentials is refused when the activities are created, without printing them', () => {
    const create = () =>
      createActivities({
        registry,
        model: { baseURL: 'https://bob:pw-0123456789@llm.internal/v1', defaultModel: DEFAULT_MODEL },
      });

    expect(create).toThrow('baseURL="https://***@llm.internal/v1" has credentials in it (user:password@)');
    expect(() => create()).not.toThrow(/pw-0123456789|bob/);
  });
});

describe('callModel: liveness', () => {
  test('heartbeats while the request is in flight', async () => {
    // The stream's announcement at once, then one interval (at most half the heartbeat timeout: 1 s) after the start.
    const model = scriptedModel([{ content: 'ok', delayMs: 1_300 }]);
    const environment = quietEnvironment({ heartbeatTimeoutMs: 2_000 });
    let heartbeats = 0;
    environment.on('heartbeat', () => {
      heartbeats += 1;
    });

    const result = await callModel(modelInput({ model }), environment);

    expect(result.message.content).toBe('ok');
    expect(heartbeats).toBeGreaterThanOrEqual(2);
  });

  test('a cancellation aborts the HTTP request promptly instead of waiting for the reply', async () => {
    const model = scriptedModel([{ content: 'too late', delayMs: 5_000 }]);
    const environment = quietEnvironment();
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

describe('the request built from the conversation', () => {
  test('tool-call arguments that are not JSON go on the wire as {}; JSON ones as they are', async () => {
    const model = scriptedModel([{ content: 'ok' }]);
    const assistant = {
      role: 'assistant' as const,
      content: null,
      tool_calls: [
        { id: 'cut', type: 'function' as const, function: { name: 'lookup_order', arguments: '{"orderId": "A-' } },
        { id: 'empty', type: 'function' as const, function: { name: 'calculator', arguments: '' } },
        {
          id: 'fine',
          type: 'function' as const,
          function: { name: 'calculator', arguments: '{ "expression":"1+1" }' },
        },
      ],
    };
    const messages = [
      { role: 'user' as const, content: 'Look it up.' },
      assistant,
      { role: 'tool' as const, tool_call_id: 'cut', content: 'Error: not JSON' },
      { role: 'tool' as const, tool_call_id: 'empty', content: 'Error: no expression' },
      { role: 'tool' as const, tool_call_id: 'fine', content: '2' },
    ];
    await callModel(modelInput({ model, messages }));
    const sent = onlyRequest(model).messages[1]?.tool_calls as { id: string; function: { arguments: string } }[];
    expect(sent.map((call) => [call.id, call.function.arguments])).toEqual([
      ['cut', '{}'],
      ['empty', '{}'],
      ['fine', '{ "expression":"1+1" }'],
    ]);
    // The input (what the workflow recorded) is not changed.
    expect(assistant.tool_calls[0]?.function.arguments).toBe('{"orderId": "A-');
  });
});
