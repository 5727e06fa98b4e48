import { CancelledFailure } from '@temporalio/common';
import type { MockActivityEnvironment } from '@temporalio/testing';
import { createActivities } from '../../src/activities';
import { createModelCall } from '../../src/activities/model-call';
import { DeltaHub } from '../../src/activities/delta-hub';
import type { ChannelLine } from '../../src/shared/model-stream-events';
import type { ScriptStep } from '../../src/scripted-model/script';
import { ScriptedModelServer } from '../../src/scripted-model/server';
import { FailureType } from '../../src/shared/failure-catalogue';
import { type AgentActivities, type ModelCallInput, type ModelCallResult } from '../../src/shared/activity-types';
import { type ModelStreamAnnouncement } from '../../src/shared/model-stream-events';
import { calculatorTool, finishTool } from '../../src/tools/builtin';
import { createToolRegistry } from '../../src/tools/tool-registry';
import { quietEnvironment, scriptModel } from '../helpers/model-activities';
import { applicationFailureOf, rejectionOf } from '../helpers/promises';

/**
 * `callModel` asking for a streamed answer, against the scripted model's
 * real chat-completions stream: the result is the one a whole answer gives,
 * every hostile stream ends in a named failure, and the deltas reach a
 * follower of the worker's delta server.
 */

let server: ScriptedModelServer;
let streamed: AgentActivities;
let whole: AgentActivities;
let hub: DeltaHub;
const registry = createToolRegistry([calculatorTool, finishTool]);

beforeAll(async () => {
  server = await ScriptedModelServer.start();
  hub = new DeltaHub({ host: '127.0.0.1', port: 0 });
  const model = { baseURL: server.baseURL, apiKey: 'sk-stream-secret-key', defaultModel: 'unused' };
  streamed = { ...createActivities({ registry, model }), callModel: createModelCall(model, registry, hub) };
  whole = createActivities({ registry, model: { ...model, stream: false } });
});
afterAll(async () => {
  await hub.close();
  await server.close();
});

const scripted = (steps: ScriptStep[]): string => scriptModel(server, 'stream', steps);

function input(model: string): ModelCallInput {
  return {
    model,
    messages: [{ role: 'user', content: 'Hello.' }],
    toolNames: ['calculator', 'finish'],
    parallelToolCalls: true,
  };
}

function run(
  activities: AgentActivities,
  modelInput: ModelCallInput,
  env: MockActivityEnvironment = environment(),
): Promise<ModelCallResult> {
  return env.run(activities.callModel, modelInput);
}

/** The request options that present an announced stream's credential. */
function withToken(modelStream: ModelStreamAnnouncement['modelStream']): RequestInit {
  return { headers: { authorization: `Bearer ${modelStream.token}` } };
}

function environment(attempt = 1): MockActivityEnvironment {
  return quietEnvironment({ attempt });
}

/** A chunk of a streamed answer, as a provider writes it. */
function chunk(delta: Record<string, unknown>, finishReason: string | null = null) {
  return {
    id: 'chatcmpl-raw',
    object: 'chat.completion.chunk',
    created: 1,
    model: 'raw',
    choices: [{ index: 0, delta, finish_reason: finishReason }],
  };
}

describe('callModel streamed: the result is the same as a whole answer', () => {
  const answers: [string, ScriptStep][] = [
    ['text', { content: 'Paris is the capital of France, and has been for a long time.' }],
    [
      'tool calls with ids and JSON arguments',
      {
        toolCalls: [
          { id: 'call_a', name: 'calculator', arguments: { expression: '6 * 7' } },
          { id: 'call_b', name: 'finish', arguments: '' },
        ],
      },
    ],
    [
      'text and a tool call',
      { content: 'Let me compute.', toolCalls: [{ name: 'calculator', arguments: '{"expression":"2^10"}' }] },
    ],
    ['reasoning (never part of the message)', { reasoning: 'The user greets me.', content: 'Hello to you.' }],
  ];
  test.each(answers)('%s', async (_name, step) => {
    const streamedModel = scripted([step]);
    const wholeModel = scripted([step]);
    const fromStream = await run(streamed, input(streamedModel));
    const fromWhole = await run(whole, input(wholeModel));

    expect(server.requests(streamedModel)[0]).toMatchObject({ stream: true, stream_options: { include_usage: true } });
    expect(server.requests(wholeModel)[0]).not.toHaveProperty('stream');
    // The scripted server names the answering model and the generated call ids after the request: the rest is equal.
    const comparable = (result: ModelCallResult, model: string) =>
      JSON.parse(
        JSON.stringify(result)
          .replaceAll(model, 'MODEL')
          .replace(/call_\d+_(\d+)/g, 'call_N_$1'),
      ) as unknown;
    expect(comparable(fromStream, streamedModel)).toEqual(comparable(fromWhole, wholeModel));
    expect(server.sentChunks(streamedModel).length).toBeGreaterThan(2);
  });

  test('a server that answers a streamed request with one JSON body is read as a whole answer', async () => {
    const body = {
      choices: [{ message: { content: 'Whole, not streamed.' }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 },
    };
    const model = scripted([{ raw: { body } }]);
    const result = await run(streamed, input(model));
    expect(result).toMatchObject({
      message: { role: 'assistant', content: 'Whole, not streamed.' },
      usage: { promptTokens: 3, completionTokens: 4, totalTokens: 7 },
      finishReason: 'stop',
    });
  });
});

describe('callModel streamed: a stream that is wrong or breaks ends in a named failure', () => {
  test('a stream cut mid-way is ModelCall.StreamInterrupted, retryable, and says after how many chunks', async () => {
    const model = scripted([{ content: 'one two three four five six seven eight', breakAfterChunks: 4 }]);
    const failure = await applicationFailureOf(run(streamed, input(model)));
    expect(failure.type).toBe(FailureType.modelCallStreamInterrupted);
    expect(failure.nonRetryable).toBe(false);
    expect(failure.message).toMatch(
      new RegExp(
        `The streamed answer of model "${model}" at .* broke off after 4 chunks: .*Retrying from the start\\.`,
      ),
    );
  });

  test('a stream that ends without a finish reason or [DONE] is interrupted too', async () => {
    const model = scripted([{ rawStream: { chunks: [chunk({ content: 'Half an ans' })], done: false } }]);
    const failure = await applicationFailureOf(run(streamed, input(model)));
    expect(failure.type).toBe(FailureType.modelCallStreamInterrupted);
    expect(failure.message).toContain('the stream ended before the answer was complete');
  });

  const hostile: [string, unknown[], RegExp][] = [
    [
      'a chunk that is not JSON',
      [chunk({ content: 'fine' }), '<html>Bad gateway</html>'],
      /chunk 2 is not JSON\. It began: "<html>Bad gateway<\/html>"/,
    ],
    ['a chunk that is not an object', ['[1, 2]'], /chunk 1 is not a JSON object/],
    [
      'a stream with no choices at all',
      [{ id: 'x', object: 'chat.completion.chunk', choices: [] }],
      /it has no choices/,
    ],
    ['content that is not text', [chunk({ content: 42 })], /chunk 1: choices\[0\]\.delta\.content: /],
    [
      'a tool call delta without an index',
      [chunk({ tool_calls: [{ id: 'c', function: { name: 'calculator' } }] })],
      /chunk 1: choices\[0\]\.delta\.tool_calls\[0\]\.index: /,
    ],
    [
      'a tool call that never gets a name',
      [chunk({ tool_calls: [{ index: 0, id: 'c', function: { arguments: '{}' } }] }, 'tool_calls')],
      /choices\[0\]\.message\.tool_calls\[0\]\.function\.name: /,
    ],
  ];
  test.each(hostile)('%s is ModelCall.InvalidResponse, as a body would be', async (_name, chunks, problem) => {
    const model = scripted([{ rawStream: { chunks } }]);
    const failure = await applicationFailureOf(run(streamed, input(model)));
    expect(failure.type).toBe(FailureType.modelCallInvalidResponse);
    expect(failure.message).toMatch(problem);
    expect(failure.message).toContain('Attempt 1 of 3; retrying.');
  });

  // What llama.cpp's server sends when it cannot parse what the model wrote: a 200 stream, then an error object.
  const inStreamErrors: [string, Record<string, unknown>, string, boolean][] = [
    [
      "llama.cpp's in-stream 500",
      {
        code: 500,
        message: 'The model produced output that does not match the expected peg-native format',
        type: 'server_error',
      },
      FailureType.modelCallServerError,
      false,
    ],
    ['an error without a code', { message: 'overloaded, sorry' }, FailureType.modelCallServerError, false],
    ['a 429 by its code', { code: '429', message: 'slow down' }, FailureType.modelCallRateLimited, false],
    ['a 401 by its status', { status: 401, message: 'bad key' }, FailureType.modelCallUnauthorized, true],
    [
      'a context overflow by its type',
      {
        code: 400,
        message: 'request (786 tokens) exceeds the available context size (512 tokens)',
        type: 'exceed_context_size_error',
      },
      FailureType.modelCallContextOverflow,
      true,
    ],
  ];
  test.each(inStreamErrors)(
    '%s is classified by its code as an HTTP status would be, not as an invalid response',
    async (_name, error, type, nonRetryable) => {
      const model = scripted([{ rawStream: { chunks: [chunk({ content: 'Hi' }), { error }], done: false } }]);
      const failure = await applicationFailureOf(run(streamed, input(model)));
      expect(failure.type).toBe(type);
      expect(failure.nonRetryable).toBe(nonRetryable);
      expect(failure.message).toContain(`in the streamed answer of model "${model}"`);
      expect(failure.message).toContain('(after 1 chunk)');
      expect(failure.message).toContain(String(error.message));
      expect(failure.message).not.toContain('OPENAI_BASE_URL');
    },
  );

  test('an in-stream server error on the last attempt says it gave up, not that it retries', async () => {
    const model = scripted([{ rawStream: { chunks: [{ error: { code: 500, message: 'boom' } }], done: false } }]);
    const env = quietEnvironment({ attempt: 8, heartbeatDetails: { providerFailures: 7 } });
    const failure = await applicationFailureOf(run(streamed, input(model), env));
    expect(failure.type).toBe(FailureType.modelCallServerError);
    expect(failure.nonRetryable).toBe(true);
    expect(failure.message).toMatch(/boom Gave up after 8 attempts\.$/);
    expect(failure.message).not.toContain('Retrying');
  });

  test('arguments that are not valid JSON are assembled as they came: the tool call answers the model, as today', async () => {
    const model = scripted([{ toolCalls: [{ id: 'call_bad', name: 'calculator', arguments: '{"expression": "1 +' }] }]);
    const result = await run(streamed, input(model));
    expect(result.message.tool_calls).toEqual([
      { id: 'call_bad', type: 'function', function: { name: 'calculator', arguments: '{"expression": "1 +' } },
    ]);
  });

  test('a cancellation mid-stream ends the call as cancelled, promptly, and the stream as failed', async () => {
    const model = scripted([
      { content: Array.from({ length: 50 }, (_, index) => `word${index}`).join(' '), tokenDelayMs: 100 },
    ]);
    const env = environment();
    const announced = new Promise<ModelStreamAnnouncement>((resolve) =>
      env.on('heartbeat', (details: unknown) => details !== undefined && resolve(details as ModelStreamAnnouncement)),
    );
    const started = Date.now();
    const call = rejectionOf(run(streamed, input(model), env));
    const { modelStream } = await announced;
    const follower = fetch(modelStream.url, withToken(modelStream)).then((response) => response.text());
    await new Promise((resolve) => setTimeout(resolve, 350));
    env.cancel();
    expect(await call).toBeInstanceOf(CancelledFailure);
    expect(Date.now() - started).toBeLessThan(3_000);
    expect((await follower).trimEnd().split('\n').at(-1)).toBe(JSON.stringify({ end: 'failed' }));
  });

  test('the key a provider echoes in a bad chunk is redacted from the failure', async () => {
    const model = scripted([{ rawStream: { chunks: ['not json: Bearer sk-stream-secret-key'] } }]);
    const failure = await applicationFailureOf(run(streamed, input(model)));
    expect(failure.message).not.toContain('sk-stream-secret-key');
    expect(failure.message).toContain('chunk 1 is not JSON');
  });
});

describe("callModel streamed: deltas on the worker's delta server", () => {
  test('the attempt heartbeats its stream URL; a follower reads every delta in order, then the end', async () => {
    const text = 'Streaming one token at a time, as models do.';
    const model = scripted([
      {
        reasoning: 'Think first.',
        content: text,
        toolCalls: [{ id: 'call_s', name: 'calculator', arguments: { expression: '1 + 1' } }],
        tokenDelayMs: 15,
      },
    ]);
    const env = environment(2);
    const announced = new Promise<ModelStreamAnnouncement>((resolve) =>
      env.on('heartbeat', (details: unknown) => details !== undefined && resolve(details as ModelStreamAnnouncement)),
    );
    const call = run(streamed, input(model), env);
    const { modelStream } = await announced;
    expect(modelStream.attempt).toBe(2);
    const response = await fetch(modelStream.url, withToken(modelStream));
    const lines = (await response.text())
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as ChannelLine);
    const result = await call;

    expect(lines.at(-1)).toEqual({ end: 'completed' });
    const deltas = lines.flatMap((line) => ('delta' in line ? [line] : []));
    expect(deltas.map((line) => line.index)).toEqual(deltas.map((_, index) => index));
    const texts = (kind: string) =>
      deltas.flatMap(({ delta }) => (delta.kind === kind && 'text' in delta ? [delta.text] : [])).join('');
    expect(texts('reasoning')).toBe('Think first.');
    expect(texts('text')).toBe(result.message.content);
    const toolDeltas = deltas.flatMap(({ delta }) => (delta.kind === 'tool-call' ? [delta] : []));
    expect(toolDeltas[0]).toEqual({ kind: 'tool-call', toolIndex: 0, id: 'call_s', name: 'calculator' });
    expect(toolDeltas.map((delta) => delta.arguments ?? '').join('')).toBe(
      result.message.tool_calls?.[0]?.function.arguments,
    );
  });

  test('a failed attempt ends its stream as failed, so followers discard it', async () => {
    const model = scripted([{ content: 'one two three four five six', breakAfterChunks: 3, tokenDelayMs: 10 }]);
    const env = environment();
    const announced = new Promise<ModelStreamAnnouncement>((resolve) =>
      env.on('heartbeat', (details: unknown) => details !== undefined && resolve(details as ModelStreamAnnouncement)),
    );
    const call = rejectionOf(run(streamed, input(model), env));
    const { modelStream } = await announced;
    const lines = (await (await fetch(modelStream.url, withToken(modelStream))).text())
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as ChannelLine);
    await call;
    expect(lines.at(-1)).toEqual({ end: 'failed' });
  });
});
