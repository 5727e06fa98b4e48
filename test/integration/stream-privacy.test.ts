import { type ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp } from 'node:fs/promises';
import { request } from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import { followRunEvents } from '../../src/client';
import { AesGcmPayloadCodec, ENCRYPTED_ENCODING } from '../../src/codec/aes-gcm-codec';
import { parseCodecKeys } from '../../src/codec/codec-keys';
import { ScriptedModelServer } from '../../src/scripted-model/server';
import { WORKFLOW_TYPE } from '../../src/shared/defaults/names';
import type { ModelStreamEvent } from '../../src/shared/model-stream-events';
import { modelStreamPath } from '../../src/shared/model-stream-path';
import { streamUrlOf } from '../../src/shared/worker-identity';
import { ScheduledCalls } from '../../src/client/scheduled-calls';
import type { RunEvent } from '../../src/shared/run-events';
import { createBuiltinTools } from '../../src/tools/builtin';
import { createAgentWorker } from '../../src/worker';
import { readEventStream } from '../helpers/api';
import { cleanEnv, runProcess, startScript, stopChild, temporalCli } from '../helpers/processes';
import { installQuietRuntime } from '../helpers/quiet-runtime';
import { selfSignedCert, type SelfSignedCert } from '../helpers/self-signed-cert';
import { testServerAddress } from '../helpers/test-env';

/**
 * The model's stream is as private as the run's payloads: a real worker
 * process serving https with a self-signed certificate, a real API process
 * that trusts it through AGENT_STREAM_TLS_CA and re-serves the deltas as
 * Server-Sent Events, the worker's and the API's logs captured; then an
 * in-process worker and client with the payload codec, whose stream key a
 * describe or history read without the codec cannot read. The raw history is read with the
 * Temporal CLI, which has no codec.
 */

const WORDS = Array.from({ length: 30 }, (_, index) => `word${index}`).join(' ');
const apiToken = randomBytes(24).toString('hex');

/** The stream of a running model call as a follower finds it: its worker's identity, the run's key from the history. */
async function announcement(client: Client, workflowId: string): Promise<{ url: string; token: string }> {
  const calls = new ScheduledCalls(client, workflowId);
  for (let tries = 0; tries < 400; tries += 1) {
    const description = await client.workflow.getHandle(workflowId).describe();
    for (const activity of description.raw.pendingActivities ?? []) {
      const base = streamUrlOf(activity.lastWorkerIdentity);
      if (activity.activityType?.name !== 'callModel' || base === undefined || !activity.attempt) continue;
      const activityId = activity.activityId ?? '';
      const key = (await calls.find(description.runId, activityId))?.streamKey;
      if (key === undefined) continue;
      const call = { runId: description.runId, activityId, attempt: activity.attempt };
      return { url: `${base}/model-streams/${modelStreamPath(call)}`, token: key };
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`run ${workflowId} has no model stream a follower can find`);
}

/** What the Temporal CLI (no codec) prints about a run: `describe` or the whole history (`show`). */
async function cli(command: 'describe' | 'show', workflowId: string): Promise<string> {
  const finished = await runProcess(
    await temporalCli(),
    ['workflow', command, '--address', testServerAddress(), '--namespace', 'default', '-w', workflowId, '-o', 'json'],
    { timeoutMs: 30_000 },
  );
  expect(finished.code).toBe(0);
  return finished.stdout;
}

/** Every payload `data` (base64) in a CLI JSON document, decoded to text. */
function payloadTexts(json: string): string[] {
  return [...json.matchAll(/"data":\s*"([A-Za-z0-9+/=]+)"/g)].map((match) =>
    Buffer.from(match[1] ?? '', 'base64').toString('latin1'),
  );
}

/** A GET of the stream over https, trusting `ca`, with the headers given: its status and body. */
function getStream(
  url: string,
  ca: Buffer,
  headers: Record<string, string>,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const sent = request(url, { headers, ca }, (response) => {
      let body = '';
      response.on('data', (chunk: Buffer) => (body += chunk.toString()));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
    });
    sent.on('error', reject);
    sent.end();
  });
}

describe('a worker process serving https, an API process following it', () => {
  let model: ScriptedModelServer;
  let pair: SelfSignedCert;
  let worker: { child: ChildProcess; output: () => string };
  let api: { child: ChildProcess; output: () => string };
  let apiUrl: string;
  let connection: Connection;
  let client: Client;
  const taskQueue = `stream-privacy-${randomUUID()}`;

  beforeAll(async () => {
    model = await ScriptedModelServer.start();
    pair = selfSignedCert();
    const common = { TEMPORAL_ADDRESS: testServerAddress(), AGENT_TASK_QUEUE: taskQueue, LOG_LEVEL: 'debug' };
    worker = await startScript(
      'src/processes/worker.ts',
      cleanEnv({
        ...common,
        OPENAI_BASE_URL: model.baseURL,
        OPENAI_API_KEY: 'test-key',
        OPENAI_MODEL: 'unused-default',
        AGENT_WORKSPACE: await mkdtemp(path.join(os.tmpdir(), 'stream-privacy-')),
        AGENT_STREAM_TLS_CERT: pair.certPath,
        AGENT_STREAM_TLS_KEY: pair.keyPath,
      }),
      /serving streamed model deltas to followers at https:\/\/127\.0\.0\.1:\d+/,
      180_000,
    );
    api = await startScript(
      'src/api/main.ts',
      cleanEnv({ ...common, AGENT_API_TOKEN: apiToken, AGENT_API_PORT: '0', AGENT_STREAM_TLS_CA: pair.certPath }),
      /Agent API at http:\/\/127\.0\.0\.1:\d+/,
    );
    apiUrl = /Agent API at (http:\/\/127\.0\.0\.1:\d+)/.exec(api.output())?.[1] ?? '';
    connection = await Connection.connect({ address: testServerAddress() });
    client = new Client({ connection, namespace: 'default' });
  }, 240_000);

  afterAll(async () => {
    await connection?.close();
    if (api !== undefined) await stopChild(api.child);
    if (worker !== undefined) await stopChild(worker.child);
    await model?.close();
  });

  test("the API streams the deltas it reads over https with the stream's credential; the credential is in no SSE event and no log line; the URL alone gets nothing", async () => {
    const scenario = `privacy-${randomUUID().slice(0, 8)}`;
    model.script(scenario, [{ content: WORDS, tokenDelayMs: 120 }]);
    const started = await fetch(`${apiUrl}/runs`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ input: { model: scenario, tools: [], message: 'stream privately' } }),
    });
    expect(started.status).toBe(202);
    const runId = ((await started.json()) as { run_id: string }).run_id;
    const sse = readEventStream(`${apiUrl}/runs/${encodeURIComponent(runId)}/events`, {
      authorization: `Bearer ${apiToken}`,
    });

    // What a follower finds (no codec here): the https URL from the worker's identity, the run's key from its history.
    const stream = await announcement(client, runId);
    expect(stream.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+\/model-streams\/calls\/[^/]+\/\d+\/1$/);
    expect(stream.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(stream.url).not.toContain(stream.token);

    // The URL alone, or with another credential, gets no delta text.
    const bare = await getStream(stream.url, pair.cert, {});
    const wrong = await getStream(stream.url, pair.cert, {
      authorization: `Bearer ${randomBytes(32).toString('base64url')}`,
    });
    expect(bare.status).toBe(401);
    expect(wrong.status).toBe(404);
    for (const answer of [bare, wrong]) expect(answer.body).not.toMatch(/word\d/);

    // Describing the run shows where the worker streams, not the credential: nothing was heartbeated.
    const described = await cli('describe', runId);
    expect(described).toContain('agent-stream=https://127.0.0.1:');
    expect(described).not.toContain(stream.token);
    // Without a codec, whoever can read the history reads the credential there (the catalog's and each call's input),
    // as they can read every answer the stream shows once it is recorded.
    expect(payloadTexts(await cli('show', runId)).some((text) => text.includes(stream.token))).toBe(true);

    const { status, events } = await sse;
    expect(status).toBe(200);
    const text = events
      .filter((event) => event.event === 'model-text-delta')
      .map((event) => event.data.text as string)
      .join('');
    expect(text).toBe(WORDS);
    expect(events.at(-1)).toMatchObject({ event: 'end', data: { outcome: 'completed' } });
    const served = JSON.stringify(events);
    expect(served).not.toContain(stream.token);
    expect(served).not.toContain('model-streams');

    // Neither process logged the credential (both at debug level), nor the API the stream's URL.
    expect(worker.output()).toMatch(/serving streamed model deltas to followers at https:/);
    expect(worker.output()).toContain('[DEBUG]');
    expect(worker.output()).not.toContain(stream.token);
    expect(api.output()).not.toContain(stream.token);
    expect(api.output()).not.toContain(stream.url);

    // The history names no stream URL: a follower derives it from the worker's identity and the run's description.
    const history = await cli('show', runId);
    expect(history).toContain('callModel');
    for (const content of [history, ...payloadTexts(history)]) expect(content).not.toContain('model-streams');
  }, 120_000);
});

describe('with the payload codec', () => {
  test('the stream key is encrypted like every payload: a follower with the codec streams; describe and history without it show no credential', async () => {
    installQuietRuntime();
    const model = await ScriptedModelServer.start();
    const codec = new AesGcmPayloadCodec(parseCodecKeys(`k1=${randomBytes(32).toString('base64')}`, 'test'));
    const dataConverter = { payloadCodecs: [codec] };
    const workerConnection = await NativeConnection.connect({ address: testServerAddress() });
    const connection = await Connection.connect({ address: testServerAddress() });
    const taskQueue = `stream-codec-${randomUUID()}`;
    const bundle = process.env.AGENT_TEST_WORKFLOW_BUNDLE;
    if (!bundle) throw new Error('AGENT_TEST_WORKFLOW_BUNDLE is not set: run the tests with `npm test`.');
    const worker = await createAgentWorker({
      connection: workerConnection,
      namespace: 'default',
      taskQueue,
      tools: createBuiltinTools({ workspace: await mkdtemp(path.join(os.tmpdir(), 'stream-codec-')) }),
      model: { baseURL: model.baseURL, apiKey: 'test-key', defaultModel: 'unused-default' },
      workflowBundle: { codePath: bundle },
      overrides: { dataConverter },
    });
    const running = worker.run();
    try {
      const client = new Client({ connection, namespace: 'default', dataConverter });
      const scenario = `codec-${randomUUID().slice(0, 8)}`;
      model.script(scenario, [{ content: WORDS, tokenDelayMs: 100 }]);
      const handle = await client.workflow.start(WORKFLOW_TYPE, {
        taskQueue,
        workflowId: `stream-codec-${randomUUID()}`,
        args: [{ model: scenario, tools: [], message: 'stream, encrypted' }],
      });
      const seen: (RunEvent | ModelStreamEvent)[] = [];
      const following = (async () => {
        for await (const event of followRunEvents(client, handle.workflowId, { deltas: true })) seen.push(event);
      })();

      const stream = await announcement(client, handle.workflowId);
      expect(stream.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
      // Without the codec the key is ciphertext: no credential in the raw JSON or its decoded payloads.
      const described = await cli('describe', handle.workflowId);
      const history = await cli('show', handle.workflowId);
      expect(described).toContain('callModel');
      expect(history).toContain(Buffer.from(ENCRYPTED_ENCODING).toString('base64'));
      for (const content of [described, history, ...payloadTexts(described), ...payloadTexts(history)]) {
        expect(content).not.toContain(stream.token);
        expect(content).not.toContain('model-streams');
      }

      await following;
      expect(seen.flatMap((event) => (event.type === 'model-text-delta' ? [event.text] : [])).join('')).toBe(WORDS);
    } finally {
      worker.shutdown();
      await running;
      await workerConnection.close();
      await connection.close();
      await model.close();
    }
  }, 120_000);
});
