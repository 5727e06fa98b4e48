import { randomBytes, randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import type { PayloadCodec } from '@temporalio/common';
import { NativeConnection, type Worker } from '@temporalio/worker';
import { AesGcmPayloadCodec } from '../../src/codec/aes-gcm-codec';
import type { CodecKey } from '../../src/codec/codec-keys';
import { ScriptedModelServer } from '../../src/scripted-model/server';
import { WORKFLOW_TYPE } from '../../src/shared/defaults/names';
import { createAgentWorker } from '../../src/worker';
import { installQuietRuntime } from './quiet-runtime';

/** A fresh AES-256 key under `id`. */
export function newCodecKey(id: string): CodecKey {
  return { id, key: randomBytes(32) };
}

/** `AGENT_CODEC_KEYS` for `keys`. */
export function codecKeysVariable(keys: CodecKey[]): string {
  return keys.map((key) => `${key.id}=${key.key.toString('base64')}`).join(',');
}

/**
 * An agent worker and client whose payloads are encrypted with `keys` (the worker's `dataConverter` override, as a
 * deployment with a payload codec has it), on the server at `address`, with a scripted model of its own.
 */
export class EncryptedAgent {
  private constructor(
    readonly client: Client,
    readonly model: ScriptedModelServer,
    readonly taskQueue: string,
    private readonly worker: Worker,
    private readonly workerRun: Promise<void>,
    private readonly connections: { client: Connection; worker: NativeConnection },
  ) {}

  static async start(address: string, keys: CodecKey[]): Promise<EncryptedAgent> {
    installQuietRuntime();
    const bundlePath = process.env.AGENT_TEST_WORKFLOW_BUNDLE;
    if (!bundlePath) throw new Error('AGENT_TEST_WORKFLOW_BUNDLE is not set: run the tests with `npm test`.');
    const codec: PayloadCodec = new AesGcmPayloadCodec(keys);
    const model = await ScriptedModelServer.start();
    const taskQueue = `codec-${randomUUID()}`;
    const workerConnection = await NativeConnection.connect({ address });
    const clientConnection = await Connection.connect({ address });
    const worker = await createAgentWorker({
      connection: workerConnection,
      namespace: 'default',
      taskQueue,
      tools: [],
      model: { baseURL: model.baseURL, apiKey: 'test-key', defaultModel: 'unused-default' },
      workflowBundle: { codePath: bundlePath },
      overrides: { dataConverter: { payloadCodecs: [codec] } },
    });
    const client = new Client({
      connection: clientConnection,
      namespace: 'default',
      dataConverter: { payloadCodecs: [codec] },
    });
    return new EncryptedAgent(client, model, taskQueue, worker, worker.run(), {
      client: clientConnection,
      worker: workerConnection,
    });
  }

  /** Runs an agent whose model answers `answer` to `message`, to its end; returns the workflow id. */
  async run(message: string, answer: string): Promise<string> {
    const model = `codec-${randomUUID().slice(0, 8)}`;
    this.model.script(model, [{ content: answer }]);
    const handle = await this.client.workflow.start(WORKFLOW_TYPE, {
      taskQueue: this.taskQueue,
      workflowId: `codec-test-${randomUUID()}`,
      args: [{ model, tools: [], message }],
    });
    await handle.result();
    return handle.workflowId;
  }

  async close(): Promise<void> {
    this.worker.shutdown();
    await this.workerRun;
    await this.connections.client.close();
    await this.connections.worker.close();
    await this.model.close();
  }
}
