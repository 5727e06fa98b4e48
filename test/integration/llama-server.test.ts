import { truncatedToolCallMessage } from '../../src/shared/defaults/model-settings';
import { randomUUID } from 'node:crypto';
import { Client, Connection, WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { NativeConnection, type Worker } from '@temporalio/worker';
import { z } from 'zod';
import { createActivities } from '../../src/activities';
import { WORKFLOW_TYPE } from '../../src/shared/defaults/names';
import { FailureType, type PartialRun } from '../../src/shared/failure-catalogue';
import { withAnswerRestored, type AgentWorkflowResult } from '../../src/shared/result-answer';
import type { AgentActivities, ModelCallInput, ModelCallResult } from '../../src/shared/activity-types';
import type { ChatMessage } from '../../src/shared/messages';
import { defineTool } from '../../src/tools/define-tool';
import { createToolRegistry } from '../../src/tools/tool-registry';
import { createAgentWorker } from '../../src/worker';
import { useLlamaServer } from '../helpers/llama-server';
import { quietEnvironment } from '../helpers/model-activities';
import { applicationFailureOf } from '../helpers/promises';
import { installQuietRuntime } from '../helpers/quiet-runtime';
import { testServerAddress } from '../helpers/test-env';

/**
 * The runner against a real model server: llama.cpp's own C++ HTTP server (the `xllamacpp` wheel) with
 * SmolLM2-135M-Instruct (Q4_1), temperature 0, so each request gets the same answer every time. What is asserted
 * here is what llama.cpp does and what the runner makes of it; the logic has scripted-model tests of its own.
 *
 * A 135M model rarely calls a tool unaided, and llama.cpp does not enforce `tool_choice: "required"` for this
 * model, so where a test needs a tool call the conversation is few-shot: three earlier weather questions each
 * answered by a `get_weather` call, then a fourth question, which the model answers the same way. SmolLM2's own
 * chat template has no tools, so the server runs with a ChatML template that offers them (dev/llama/chatml-tools.jinja).
 */

/** Generous: two cores shared with other work make a 135M model answer in seconds, not milliseconds. */
jest.setTimeout(120_000);

const getWeather = defineTool({
  name: 'get_weather',
  description: 'Get the weather of a city',
  parameters: z.object({ city: z.string() }),
  execute: ({ city }) => `sunny in ${city}`,
});

/** No cap on the answer but 48 tokens: enough for a whole tool call. */
const roomy = useLlamaServer({ ctxSize: 2048, nPredict: 48 });
/**
 * A 512-token window, and the server's own cap (`--n-predict`) at 19 tokens: the few-shot tool call is cut inside
 * its arguments, as a provider's token cap cuts one (the runner sends no `max_tokens` of its own here).
 */
const capped = useLlamaServer({ ctxSize: 512, nPredict: 19 });

const CAPPED_TOOL_CALL_ARGUMENTS = '{"city';

function activitiesFor(server: { baseURL: string; model: string }): AgentActivities {
  return createActivities({
    registry: createToolRegistry([getWeather]),
    model: { baseURL: server.baseURL, apiKey: 'unused', defaultModel: server.model },
  });
}

function callModel(activities: AgentActivities, input: Partial<ModelCallInput>): Promise<ModelCallResult> {
  const whole: ModelCallInput = { messages: [user('Hello.')], toolNames: [], parallelToolCalls: false, ...input };
  return quietEnvironment().run(activities.callModel, whole);
}

const user = (content: string): ChatMessage => ({ role: 'user', content });
const weatherCall = (id: string, argumentsText: string): ChatMessage => ({
  role: 'assistant',
  content: null,
  tool_calls: [{ id, type: 'function', function: { name: 'get_weather', arguments: argumentsText } }],
});
const toolResult = (id: string, content: string): ChatMessage => ({ role: 'tool', tool_call_id: id, content });

/** Three questions each answered by a `get_weather` call: the model answers a fourth with a call too. */
const FEW_SHOT: ChatMessage[] = [
  user('Weather in Paris?'),
  weatherCall('a', '{"city":"Paris"}'),
  toolResult('a', 'sunny'),
  user('Weather in Rome?'),
  weatherCall('b', '{"city":"Rome"}'),
  toolResult('b', 'rain'),
  user('Weather in Oslo?'),
  weatherCall('c', '{"city":"Oslo"}'),
  toolResult('c', 'snow'),
];

describe('a streamed answer from llama.cpp', () => {
  test("the usage chunk at the stream's end (choices: []) is counted", async () => {
    const result = await callModel(activitiesFor(roomy.server), { messages: [user('Say hello.')] });
    expect(result.usage.promptTokens).toBeGreaterThan(10);
    expect(result.usage.completionTokens).toBeGreaterThan(0);
    expect(result.usage.completionTokens).toBeLessThanOrEqual(48);
    expect(result.usage.totalTokens).toBe(result.usage.promptTokens + result.usage.completionTokens);
    expect(result.model).toBe(roomy.server.model);
  });

  test('an answer cut by the token cap is recorded with finish_reason "length" and the tokens it used', async () => {
    const result = await callModel(activitiesFor(capped.server), {
      messages: [user('Tell me a long story about a dragon.')],
    });
    expect(result.finishReason).toBe('length');
    expect(result.usage.completionTokens).toBe(19);
    expect(result.message.content).toEqual(expect.any(String));
  });

  test("a tool call carries the server's 32-character id, and its streamed arguments joined into the call's JSON", async () => {
    const result = await callModel(activitiesFor(roomy.server), {
      messages: [...FEW_SHOT, user('Weather in Lima?')],
      toolNames: ['get_weather'],
    });
    expect({ finishReason: result.finishReason, content: result.message.content }).toEqual({
      finishReason: 'tool_calls',
      content: null,
    });
    const [call] = result.message.tool_calls ?? [];
    expect(call?.id).toMatch(/^[A-Za-z0-9]{32}$/);
    expect(call?.function.name).toBe('get_weather');
    // Streamed, the arguments are the model's own text, joined from their deltas as they came.
    expect(JSON.parse(call?.function.arguments ?? '')).toEqual({ city: 'Lima' });
  });

  test('an error the server sends inside a 200 stream is ModelCall.ServerError (retried), not an invalid response', async () => {
    // A conversation ending with the assistant's unfinished tool call: llama.cpp continues it, cannot parse the
    // result as a tool call, and sends `data: {"error":{"code":500,...}}` after the tool-call deltas it streamed.
    const failure = await applicationFailureOf(
      callModel(activitiesFor(roomy.server), {
        messages: [
          user('What is the weather in Paris?'),
          { role: 'assistant', content: '<tool_call>\n{"name": "get_weather", "arguments": {"city"' },
        ],
        toolNames: ['get_weather'],
      }),
    );
    expect(failure.type).toBe(FailureType.modelCallServerError);
    expect(failure.nonRetryable).toBe(false);
    expect(failure.message).toMatch(/^500 in the streamed answer of model "smollm2-135m" at .+ \(after \d+ chunks?\)/);
    expect(failure.message).toContain('does not match the expected peg-native format');
    expect(failure.message).not.toContain('OPENAI_BASE_URL');
  });
});

describe('what goes back to llama.cpp', () => {
  const cutCall = [
    ...FEW_SHOT,
    user('Weather in Lima?'),
    weatherCall('d', '{"city": "Li'),
    toolResult('d', 'Error: the arguments are not valid JSON.'),
  ];

  test('llama.cpp itself answers 500 to a conversation holding tool-call arguments that are not JSON', async () => {
    const response = await fetch(`${capped.server.baseURL}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: capped.server.model, messages: cutCall, tools: [] }),
    });
    expect(response.status).toBe(500);
    expect(await response.text()).toContain('Failed to parse tool call arguments as JSON');
  });

  test('the runner sends {} in their place: the same conversation is answered', async () => {
    const result = await callModel(activitiesFor(capped.server), { messages: cutCall, toolNames: ['get_weather'] });
    expect(result.usage.completionTokens).toBeGreaterThan(0);
  });

  test('a conversation longer than the context window is ModelCall.ContextOverflow, not retried', async () => {
    const failure = await applicationFailureOf(
      callModel(activitiesFor(capped.server), { messages: [user('hello '.repeat(600))] }),
    );
    expect(failure.type).toBe(FailureType.modelCallContextOverflow);
    expect(failure.nonRetryable).toBe(true);
    expect(failure.message).toMatch(
      /^400 from .+: request \(\d+ tokens\) exceeds the available context size \(512 tokens\)/,
    );
    expect(failure.message).toContain('compaction');
  });
});

describe('a run on a worker whose model is llama.cpp', () => {
  let worker: Worker;
  let workerRun: Promise<void>;
  let client: Client;
  let connections: { worker: NativeConnection; client: Connection };
  const taskQueue = `llama-${randomUUID()}`;

  beforeAll(async () => {
    installQuietRuntime();
    const bundlePath = process.env.AGENT_TEST_WORKFLOW_BUNDLE;
    if (!bundlePath) throw new Error('AGENT_TEST_WORKFLOW_BUNDLE is not set: run the tests with `npm test`.');
    connections = {
      worker: await NativeConnection.connect({ address: testServerAddress() }),
      client: await Connection.connect({ address: testServerAddress() }),
    };
    worker = await createAgentWorker({
      connection: connections.worker,
      namespace: 'default',
      taskQueue,
      tools: [getWeather],
      model: { baseURL: capped.server.baseURL, apiKey: 'unused', defaultModel: capped.server.model },
      workflowBundle: { codePath: bundlePath },
    });
    workerRun = worker.run();
    client = new Client({ connection: connections.client, namespace: 'default' });
  });
  afterAll(async () => {
    worker?.shutdown();
    await workerRun;
    await connections?.client.close();
    await connections?.worker.close();
  });

  test('a tool call cut by the token cap goes back to the model as a tool error, and the run goes on', async () => {
    const handle = await client.workflow.start(WORKFLOW_TYPE, {
      taskQueue,
      workflowId: `llama-${randomUUID()}`,
      args: [{ tools: ['get_weather'], messages: FEW_SHOT, message: 'Weather in Lima?', maxInvocations: 2 }],
    });
    let failure: ApplicationFailure | undefined;
    let messages: ChatMessage[];
    try {
      messages = withAnswerRestored((await handle.result()) as AgentWorkflowResult).messages;
    } catch (error) {
      if (!(error instanceof WorkflowFailedError && error.cause instanceof ApplicationFailure)) throw error;
      failure = error.cause;
      messages = (failure.details?.[0] as PartialRun | undefined)?.messages ?? [];
    }
    // Before, the second model call got a 500 on every attempt and the run failed with ModelCall.ServerError.
    expect(failure?.type ?? 'completed').not.toMatch(/^ModelCall\./);
    const history = await handle.fetchHistory();
    const modelCalls = (history.events ?? []).filter(
      (event) => event.activityTaskScheduledEventAttributes?.activityType?.name === 'callModel',
    );
    expect(modelCalls).toHaveLength(2);
    const cut = messages.slice(FEW_SHOT.length).find((message) => message.role === 'assistant');
    // The record keeps the arguments as the server sent them (the request repairs them on the wire); the call,
    // cut at the server's token cap (finish_reason "length"), is answered in the workflow without running the tool.
    expect(cut?.tool_calls?.[0]?.function.arguments).toBe(CAPPED_TOOL_CALL_ARGUMENTS);
    const error = messages.find(
      (message) => message.role === 'tool' && message.tool_call_id === cut?.tool_calls?.[0]?.id,
    );
    expect(error?.content).toBe(truncatedToolCallMessage('get_weather'));
  });
});
