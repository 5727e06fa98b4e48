import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, type Worker } from '@temporalio/worker';
import { z } from 'zod';
import { eventsQuery } from '../../src/workflow-contract/definitions';
import { resolveLlama } from '../../dev/llama/llama-cpp';
import { startLlamaServer, type RunningLlamaServer } from '../../dev/llama/llama-server';
import { ScriptedModelServer } from '../../src/scripted-model/server';
import { WORKFLOW_TYPE } from '../../src/shared/defaults/names';
import { FailureType } from '../../src/shared/failure-catalogue';
import type { ChatMessage } from '../../src/shared/messages';
import { withAnswerRestored, type AgentWorkflowResult } from '../../src/shared/result-answer';
import type { RunEvent } from '../../src/shared/run-events';
import { defineTool } from '../../src/tools/define-tool';
import { createAgentWorker } from '../../src/worker';
import { installQuietRuntime } from '../helpers/quiet-runtime';
import { testServerAddress } from '../helpers/test-env';

/**
 * One worker, two named endpoints, both real servers: llama.cpp's own server with SmolLM2-135M (`llama`) and the
 * scripted model (`scripted`). A run chooses one by name; a run on `llama` that names `scripted` as its fallback
 * finishes there when llama.cpp is killed (SIGKILL) between its iterations, and its events say which endpoint
 * answered each call and why the second moved.
 */

/** Two cores shared with other work make a 135M model answer in seconds, and loading it takes a few more. */
jest.setTimeout(180_000);

const user = (content: string): ChatMessage => ({ role: 'user', content });
const weatherCall = (id: string, city: string): ChatMessage => ({
  role: 'assistant',
  content: null,
  tool_calls: [{ id, type: 'function', function: { name: 'get_weather', arguments: JSON.stringify({ city }) } }],
});
const toolResult = (id: string, content: string): ChatMessage => ({ role: 'tool', tool_call_id: id, content });

/** Three questions each answered by a `get_weather` call: SmolLM2 answers a fourth with a call too (llama tests). */
const FEW_SHOT: ChatMessage[] = [
  user('Weather in Paris?'),
  weatherCall('a', 'Paris'),
  toolResult('a', 'sunny'),
  user('Weather in Rome?'),
  weatherCall('b', 'Rome'),
  toolResult('b', 'rain'),
  user('Weather in Oslo?'),
  weatherCall('c', 'Oslo'),
  toolResult('c', 'snow'),
];

let llama: RunningLlamaServer | undefined;
let scripted: ScriptedModelServer;
let worker: Worker;
let workerRun: Promise<void>;
let client: Client;
let connections: { worker: NativeConnection; client: Connection };
const taskQueue = `endpoints-${randomUUID()}`;
/** The llama.cpp server's exit, once the tool killed it. */
let llamaKilled: Promise<void> | undefined;

/** Answers the weather, killing the llama.cpp server first: the run's next model call finds it gone. */
const getWeather = defineTool({
  name: 'get_weather',
  description: 'Get the weather of a city',
  parameters: z.object({ city: z.string() }),
  execute: async ({ city }) => {
    if (llama?.pid !== undefined && llamaKilled === undefined) {
      process.kill(llama.pid, 'SIGKILL');
      llamaKilled = untilRefused(llama.baseURL);
      await llamaKilled;
    }
    return `sunny in ${city}`;
  },
});

/** Resolves once `baseURL` refuses connections (at most 10 s). */
async function untilRefused(baseURL: string): Promise<void> {
  for (let tries = 0; tries < 100; tries += 1) {
    try {
      await fetch(`${baseURL}/models`, { signal: AbortSignal.timeout(500) });
    } catch {
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${baseURL} still answers after SIGKILL`);
}

beforeAll(async () => {
  installQuietRuntime();
  const bundlePath = process.env.AGENT_TEST_WORKFLOW_BUNDLE;
  if (!bundlePath) throw new Error('AGENT_TEST_WORKFLOW_BUNDLE is not set: run the tests with `npm test`.');
  const install = await resolveLlama((line) => process.stderr.write(`[llama install] ${line}\n`));
  llama = await startLlamaServer(install, { ctxSize: 2048, nPredict: 48 });
  scripted = await ScriptedModelServer.start();
  connections = {
    worker: await NativeConnection.connect({ address: testServerAddress() }),
    client: await Connection.connect({ address: testServerAddress() }),
  };
  worker = await createAgentWorker({
    connection: connections.worker,
    namespace: 'default',
    taskQueue,
    tools: [getWeather],
    model: {
      // No default endpoint of its own: every run here names one of the two.
      baseURL: scripted.baseURL,
      defaultModel: 'unused-default',
      endpoints: {
        llama: { baseURL: llama.baseURL, models: [llama.model] },
        scripted: { baseURL: scripted.baseURL, apiKey: 'sk-scripted-endpoint-key' },
      },
    },
    workflowBundle: { codePath: bundlePath },
  });
  workerRun = worker.run();
  client = new Client({ connection: connections.client, namespace: 'default' });
}, 10 * 60_000);

afterAll(async () => {
  worker?.shutdown();
  await workerRun;
  await connections?.client.close();
  await connections?.worker.close();
  await scripted?.close();
  await llama?.stop();
});

/** Runs `input` to its end: its result and its events. */
async function run(input: Record<string, unknown>): Promise<{ result: AgentWorkflowResult; events: RunEvent[] }> {
  const handle = await client.workflow.start(WORKFLOW_TYPE, {
    taskQueue,
    workflowId: `endpoints-${randomUUID()}`,
    args: [input],
  });
  const result = withAnswerRestored((await handle.result()) as AgentWorkflowResult);
  const { events } = await handle.query(eventsQuery, { after: 0 });
  return { result, events };
}

/** The model-response events' endpoints and fallbacks, in order. */
function answeredBy(events: RunEvent[]) {
  return events.flatMap((event) =>
    event.type === 'model-response'
      ? [{ endpoint: event.endpoint, fallbacks: event.fallbacks?.map(({ endpoint, type }) => ({ endpoint, type })) }]
      : [],
  );
}

describe('a run chooses its endpoint', () => {
  test('`llama` runs on llama.cpp, `scripted/<model>` on the scripted model', async () => {
    scripted.script('chosen-model', [{ content: 'Hello from the scripted endpoint.' }]);

    const onLlama = await run({ model: 'llama', tools: [], message: 'Say hello.', maxInvocations: 1 });
    const onScripted = await run({ model: 'scripted/chosen-model', tools: [], message: 'Say hello.' });

    expect(answeredBy(onLlama.events)).toEqual([{ endpoint: 'llama', fallbacks: undefined }]);
    expect(onLlama.result.usage.completionTokens).toBeGreaterThan(0);
    expect(answeredBy(onScripted.events)).toEqual([{ endpoint: 'scripted', fallbacks: undefined }]);
    expect(onScripted.result.response).toBe('Hello from the scripted endpoint.');
    expect(scripted.requests('chosen-model')).toHaveLength(1);
    // The endpoint's name is the worker's: the model the provider hears is the part after it.
    expect(scripted.requests('scripted/chosen-model')).toHaveLength(0);
  });
});

describe('a fallback', () => {
  test('llama.cpp killed between iterations: the next call goes to the scripted model, and the events say so', async () => {
    scripted.script('fallback-model', [{ content: 'It is sunny in Lima.' }]);

    const { result, events } = await run({
      model: 'llama',
      modelFallbacks: ['scripted/fallback-model'],
      tools: ['get_weather'],
      messages: FEW_SHOT,
      message: 'Weather in Lima?',
      parallelToolCalls: false,
      maxInvocations: 3,
    });

    expect(llamaKilled).toBeDefined();
    expect(answeredBy(events)).toEqual([
      { endpoint: 'llama', fallbacks: undefined },
      { endpoint: 'scripted', fallbacks: [{ endpoint: 'llama', type: FailureType.modelCallConnectionError }] },
    ]);
    expect(result.response).toBe('It is sunny in Lima.');
    // The fallback got the whole conversation, llama.cpp's tool call and its result among it.
    const [request] = scripted.requests('fallback-model');
    expect(JSON.stringify(request?.messages)).toContain('sunny in Lima');
  });
});
