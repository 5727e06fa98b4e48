import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { defaultPayloadConverter, type Payload } from '@temporalio/common';
import { NativeConnection, type Worker } from '@temporalio/worker';
import { AesGcmPayloadCodec, ENCRYPTED_ENCODING } from '../../src/codec/aes-gcm-codec';
import { parseCodecKeys } from '../../src/codec/codec-keys';
import { RemotePayloadCodec } from '../../src/codec/remote-codec';
import { RemoteCodecError } from '../../src/codec/remote-codec-error';
import { loadPayloadEncryption } from '../../src/config/payload-codec';
import { ScriptedModelServer } from '../../src/scripted-model/server';
import { WORKFLOW_TYPE } from '../../src/shared/defaults/names';
import type { AgentWorkflowResult } from '../../src/shared/result-answer';
import { createBuiltinTools } from '../../src/tools/builtin';
import { freePort } from '../../src/os/ports';
import { createAgentWorker } from '../../src/worker';
import { CodecServer } from '../helpers/codec-server';
import { installQuietRuntime } from '../helpers/quiet-runtime';
import { testServerAddress } from '../helpers/test-env';

/**
 * The remote payload codec against a real codec server (a tiny HTTP server in this test around the real
 * AesGcmPayloadCodec): the round trip, its errors, and a run on the suite's Temporal server whose payloads are
 * encrypted with local keys, read and written by a worker and a client that hold no key and ask the server.
 */
const AUTH = `Bearer codec-${randomUUID()}`;
const KEYS = parseCodecKeys(`k1=${randomBytes(32).toString('base64')}`, 'test');
const local = new AesGcmPayloadCodec(KEYS);
const text = new TextDecoder();

let server: CodecServer;
beforeAll(async () => {
  server = await CodecServer.start(local, AUTH);
});
afterAll(async () => {
  await server.close();
});

const payloads = (): Payload[] => [
  defaultPayloadConverter.toPayload({ message: 'hello', n: 1 }),
  defaultPayloadConverter.toPayload('second'),
];

describe('RemotePayloadCodec', () => {
  test('encodes through the server into payloads the local keys open, and decodes theirs', async () => {
    const remote = new RemotePayloadCodec({ endpoint: server.endpoint, auth: AUTH, namespace: 'agents' });

    const encoded = await remote.encode(payloads());
    expect(encoded.map((payload) => text.decode(payload.metadata!.encoding))).toEqual([
      ENCRYPTED_ENCODING,
      ENCRYPTED_ENCODING,
    ]);
    expect((await local.decode(encoded)).map((payload) => defaultPayloadConverter.fromPayload(payload))).toEqual([
      { message: 'hello', n: 1 },
      'second',
    ]);

    const decoded = await remote.decode(await local.encode(payloads()));
    expect(decoded.map((payload) => defaultPayloadConverter.fromPayload(payload))).toEqual([
      { message: 'hello', n: 1 },
      'second',
    ]);
    expect(server.requests.at(-1)).toEqual({ path: '/decode', authorization: AUTH, namespace: 'agents' });
  });

  test('a wrong Authorization is an error naming the URL and status, never the value sent', async () => {
    const remote = new RemotePayloadCodec({ endpoint: `${server.endpoint}/`, auth: 'Bearer wrong-token-value' });

    const error = await remote.encode(payloads()).catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(RemoteCodecError);
    expect((error as RemoteCodecError).status).toBe(401);
    expect((error as Error).message).toBe(
      `The codec server at ${server.endpoint}/encode could not encode 2 payload(s): HTTP 401: unauthorized. ` +
        "Check TEMPORAL_CODEC_AUTH (or the profile's [codec] auth).",
    );
    expect((error as Error).message).not.toContain('wrong-token-value');
  });

  test('a server that is not there is an error naming the endpoint and the reason', async () => {
    const port = await freePort();
    const remote = new RemotePayloadCodec({ endpoint: `http://127.0.0.1:${port}`, auth: AUTH });

    await expect(remote.decode(payloads())).rejects.toThrow(
      `The codec server at http://127.0.0.1:${port}/decode could not decode 2 payload(s): fetch failed (ECONNREFUSED). ` +
        "Check TEMPORAL_CODEC_ENDPOINT (or the profile's [codec] endpoint).",
    );
  });

  test('a server that does not answer in time is an error that says so', async () => {
    const remote = new RemotePayloadCodec({ endpoint: server.endpoint, auth: AUTH, timeoutMs: 200 });
    server.delayMs = 1_000;
    try {
      await expect(remote.encode(payloads())).rejects.toThrow(
        `The codec server at ${server.endpoint}/encode could not encode 2 payload(s): no answer within 200 ms.`,
      );
    } finally {
      server.delayMs = 0;
    }
  });

  test('an answer that is not { payloads } of the same count is refused', async () => {
    const remote = new RemotePayloadCodec({ endpoint: server.endpoint, auth: AUTH });
    try {
      server.answer = '{"payloads":[]}';
      await expect(remote.encode(payloads())).rejects.toThrow('it answered 0 payload(s) for 2.');
      server.answer = '<html>proxy error</html>';
      await expect(remote.decode(payloads())).rejects.toThrow('the answer is not { "payloads": [...] }.');
    } finally {
      server.answer = undefined;
    }
  });
});

describe('a run encrypted with local keys, through processes that hold none', () => {
  let model: ScriptedModelServer;
  let worker: Worker;
  let workerRun: Promise<void>;
  let workerConnection: NativeConnection;
  let clientConnection: Connection;
  const taskQueue = `remote-codec-${randomUUID()}`;
  /** What a process without keys loads: the endpoint and auth as variables, no AGENT_CODEC_KEYS. */
  const remoteEnv = () => ({ TEMPORAL_CODEC_ENDPOINT: server.endpoint, TEMPORAL_CODEC_AUTH: AUTH });

  beforeAll(async () => {
    installQuietRuntime();
    const bundlePath = process.env.AGENT_TEST_WORKFLOW_BUNDLE;
    if (!bundlePath) throw new Error('AGENT_TEST_WORKFLOW_BUNDLE is not set: run the tests with `npm test`.');
    model = await ScriptedModelServer.start();
    workerConnection = await NativeConnection.connect({ address: testServerAddress() });
    clientConnection = await Connection.connect({ address: testServerAddress() });
    const remote = loadPayloadEncryption(remoteEnv());
    expect(remote.remoteEndpoint).toBe(server.endpoint);
    worker = await createAgentWorker({
      connection: workerConnection,
      namespace: 'default',
      taskQueue,
      tools: createBuiltinTools({ workspace: await mkdtemp(path.join(os.tmpdir(), 'remote-codec-')) }),
      model: { baseURL: model.baseURL, apiKey: 'test-key', defaultModel: 'unused' },
      workflowBundle: { codePath: bundlePath },
      overrides: { dataConverter: remote.dataConverter },
    });
    workerRun = worker.run();
  }, 120_000);

  afterAll(async () => {
    worker?.shutdown();
    await workerRun;
    await clientConnection?.close();
    await workerConnection?.close();
    await model?.close();
  });

  test('a client with local keys starts it, the worker decodes and encodes via the server, a keyless client reads it', async () => {
    const name = `remote-${randomUUID().slice(0, 8)}`;
    model.script(name, [{ content: 'Secret answer, sealed.' }]);
    const withKeys = new Client({
      connection: clientConnection,
      namespace: 'default',
      dataConverter: loadPayloadEncryption({ AGENT_CODEC_KEYS: `k1=${KEYS[0]!.key.toString('base64')}` }).dataConverter,
    });
    const keyless = new Client({
      connection: clientConnection,
      namespace: 'default',
      dataConverter: loadPayloadEncryption(remoteEnv()).dataConverter,
    });
    const before = server.requests.length;

    const handle = await withKeys.workflow.start(WORKFLOW_TYPE, {
      taskQueue,
      workflowId: `remote-codec-${randomUUID()}`,
      args: [{ model: name, tools: [], message: 'tell me a secret' }],
    });
    const result = (await keyless.workflow.getHandle(handle.workflowId).result()) as AgentWorkflowResult;

    expect(result.response).toBe('Secret answer, sealed.');
    expect(((await handle.result()) as AgentWorkflowResult).response).toBe('Secret answer, sealed.');
    // What the server stores is sealed: the input as the history holds it is an encrypted payload of key k1.
    const history = await handle.fetchHistory();
    const input = history.events?.[0]?.workflowExecutionStartedEventAttributes?.input?.payloads?.[0];
    expect(text.decode(input!.metadata!.encoding!)).toBe(ENCRYPTED_ENCODING);
    expect(text.decode(input!.metadata!['encryption-key-id']!)).toBe('k1');
    expect(Buffer.from(input!.data!).toString('latin1')).not.toContain('tell me a secret');
    // The worker (and the keyless client) asked the server, both ways.
    const paths = new Set(server.requests.slice(before).map((request) => request.path));
    expect(paths).toEqual(new Set(['/encode', '/decode']));
  }, 120_000);
});
