import { randomUUID } from 'node:crypto';
import { Client, Connection, WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure, type Logger, type LogLevel, type LogMetadata } from '@temporalio/common';
import { NativeConnection, Runtime, type Worker } from '@temporalio/worker';
import { ScriptedModelServer } from '../../src/scripted-model/server';
import type { ScriptStep } from '../../src/scripted-model/script';
import { WORKFLOW_TYPE } from '../../src/shared/defaults/names';
import { createAgentWorker } from '../../src/worker';
import { cleanEnv, startScript, stopChild } from '../helpers/processes';
import { testServerAddress } from '../helpers/test-env';

/**
 * A provider that is wrong, through a real worker on the suite's Temporal
 * server: answers that are not chat completions end the run quickly, and a
 * key the provider echoes leaves no trace in the history or the worker's log.
 * The world is built here rather than with TestEnv: the worker needs a key of
 * its own and the runtime a logger that records every line.
 */

const API_KEY = `sk-proj-echoed-${randomUUID()}`;

/** Every line the worker's runtime logs, at every level, with its metadata as text (errors with their stacks). */
const logLines: string[] = [];
const capturingLogger: Logger = {
  log: (level: LogLevel, message: string, meta?: LogMetadata) => logLines.push(`${level} ${message} ${metaText(meta)}`),
  trace: (message, meta) => capturingLogger.log('TRACE', message, meta),
  debug: (message, meta) => capturingLogger.log('DEBUG', message, meta),
  info: (message, meta) => capturingLogger.log('INFO', message, meta),
  warn: (message, meta) => capturingLogger.log('WARN', message, meta),
  error: (message, meta) => capturingLogger.log('ERROR', message, meta),
};

let model: ScriptedModelServer;
let client: Client;
let clientConnection: Connection;
let workerConnection: NativeConnection;
let worker: Worker;
let workerRun: Promise<void>;
const taskQueue = `provider-failures-${randomUUID()}`;

beforeAll(async () => {
  // Installed before anything else touches the runtime, so the worker's own lines come here.
  Runtime.install({ logger: capturingLogger });
  const bundlePath = process.env.AGENT_TEST_WORKFLOW_BUNDLE;
  if (!bundlePath) throw new Error('AGENT_TEST_WORKFLOW_BUNDLE is not set: run the tests with `npm test`.');
  model = await ScriptedModelServer.start();
  workerConnection = await NativeConnection.connect({ address: testServerAddress() });
  clientConnection = await Connection.connect({ address: testServerAddress() });
  client = new Client({ connection: clientConnection, namespace: 'default' });
  worker = await createAgentWorker({
    connection: workerConnection,
    namespace: 'default',
    taskQueue,
    tools: [],
    model: { baseURL: model.baseURL, apiKey: API_KEY, defaultModel: 'unused-default' },
    workflowBundle: { codePath: bundlePath },
  });
  workerRun = worker.run();
});

afterAll(async () => {
  worker.shutdown();
  await workerRun;
  await clientConnection.close();
  await workerConnection.close();
  await model.close();
});

/** Starts a run against a model of its own that plays `steps`; resolves with its handle and model name. */
async function startScenario(steps: ScriptStep[]) {
  const modelName = `provider-${randomUUID().slice(0, 8)}`;
  model.script(modelName, steps);
  const handle = await client.workflow.start(WORKFLOW_TYPE, {
    taskQueue,
    workflowId: `provider-failures-${randomUUID()}`,
    args: [{ model: modelName, tools: [], message: 'hi' }],
  });
  return { handle, modelName };
}

async function workflowFailureOf(result: Promise<unknown>): Promise<ApplicationFailure> {
  const error = await result.catch((caught: unknown) => caught);
  if (!(error instanceof WorkflowFailedError) || !(error.cause instanceof ApplicationFailure)) {
    throw new Error(`expected the run to fail with an ApplicationFailure, got ${String(error)}`);
  }
  return error.cause;
}

describe('a provider whose answers are not chat completions', () => {
  test('a 200 without choices fails the run within seconds as ModelCall.InvalidResponse, after three quick attempts', async () => {
    const body = {
      id: 'chatcmpl-empty',
      object: 'chat.completion',
      created: 1,
      model: 'broken',
      note: 'no choices here',
    };
    const started = Date.now();
    const { handle, modelName } = await startScenario([{ raw: { body } }, { raw: { body } }, { raw: { body } }]);

    const failure = await workflowFailureOf(handle.result());
    const elapsed = Date.now() - started;

    expect(failure.type).toBe('ModelCall.InvalidResponse');
    expect(failure.message).toContain('is not a chat completion: it has no choices.');
    expect(failure.message).toContain(`It began: ${JSON.stringify(JSON.stringify(body))}.`);
    expect(failure.message).toContain('Gave up after 3 attempts');
    expect(model.requests(modelName)).toHaveLength(3);
    // Two retries a second apart, not the model call's eight attempts with backoff (about two minutes).
    expect(elapsed).toBeLessThan(10_000);
  });

  test('an HTML page that is fixed by the second attempt lets the run go on', async () => {
    const { handle, modelName } = await startScenario([
      { raw: { body: '<html><body>502 Bad Gateway</body></html>', contentType: 'text/html' } },
      { content: 'recovered' },
    ]);

    expect(((await handle.result()) as { response: string }).response).toBe('recovered');
    expect(model.requests(modelName)).toHaveLength(2);
  });
});

describe('a provider that echoes the key', () => {
  test('a 401 repeating the bearer key leaves no trace of it in the history or the worker log', async () => {
    const linesBefore = logLines.length;
    const { handle, modelName } = await startScenario([{ echoKey: {} }]);

    const failure = await workflowFailureOf(handle.result());

    expect(failure.type).toBe('ModelCall.Unauthorized');
    expect(failure.message).toContain('Incorrect API key provided: [redacted].');
    expect(model.requests(modelName)).toHaveLength(1);

    const history = historyText(await handle.fetchHistory());
    // The failure is in the history (so the search below looked at the right text), the key is not.
    expect(history).toContain('Incorrect API key provided: [redacted].');
    expect(history).not.toContain(API_KEY);

    // The worker logs the failed attempt ("Activity failed", with the error) as a warning.
    const lines = logLines.slice(linesBefore);
    expect(
      lines.some(
        (line) => line.startsWith('WARN Activity failed') && line.includes('Incorrect API key provided: [redacted].'),
      ),
    ).toBe(true);
    expect(lines.filter((line) => line.includes(API_KEY))).toEqual([]);
  });
});

describe('`npm run worker` against a provider that echoes the key', () => {
  test('the failed run is in its output, the key is not', async () => {
    const processKey = `sk-proj-process-${randomUUID()}`;
    const processQueue = `provider-process-${randomUUID()}`;
    const modelName = `provider-process-${randomUUID().slice(0, 8)}`;
    model.script(modelName, [{ echoKey: {} }]);
    const workerProcess = await startScript(
      'src/processes/worker.ts',
      cleanEnv({
        TEMPORAL_ADDRESS: testServerAddress(),
        AGENT_TASK_QUEUE: processQueue,
        OPENAI_BASE_URL: model.baseURL,
        OPENAI_API_KEY: processKey,
        OPENAI_MODEL: modelName,
        LOG_LEVEL: 'debug',
      }),
      /Worker polling task queue/,
    );
    // A failure inside must not be hidden by the worker's exit: keep it, stop the worker, then report it.
    let failure: unknown;
    try {
      const handle = await client.workflow.start(WORKFLOW_TYPE, {
        taskQueue: processQueue,
        workflowId: `provider-process-${randomUUID()}`,
        args: [{ tools: [], message: 'hi' }],
      });
      const runFailure = await workflowFailureOf(handle.result());
      expect(runFailure.type).toBe('ModelCall.Unauthorized');
      expect(runFailure.message).toContain('Incorrect API key provided: [redacted].');
    } catch (error) {
      failure = error;
    }
    await stopChild(workerProcess.child);
    if (failure !== undefined) throw failure;
    const output = workerProcess.output();
    // The worker's warning about the failed activity is printed (so the search below read the right output).
    expect(output).toContain('Activity failed');
    expect(output).toContain('Incorrect API key provided: [redacted].');
    expect(output).not.toContain(processKey);
  }, 180_000);
});

/** A history as text, payloads decoded, so a search finds what any event carries. */
function historyText(history: unknown): string {
  return JSON.stringify(history, (_key, value: unknown) => {
    if (value instanceof Uint8Array) return Buffer.from(value).toString('utf8');
    if (isSerializedBuffer(value)) return Buffer.from(value.data).toString('utf8');
    return value;
  });
}

function isSerializedBuffer(value: unknown): value is { type: 'Buffer'; data: number[] } {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as { type?: unknown }).type === 'Buffer' &&
    Array.isArray((value as { data?: unknown }).data)
  );
}

function metaText(meta: LogMetadata | undefined): string {
  if (meta === undefined) return '';
  return JSON.stringify(meta, (_key, value: unknown) =>
    value instanceof Error
      ? { ...value, name: value.name, message: value.message, stack: value.stack, cause: value.cause }
      : value,
  );
}
