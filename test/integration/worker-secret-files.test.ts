import { randomUUID } from 'node:crypto';
import { copyFile, mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { AesGcmPayloadCodec } from '../../src/codec/aes-gcm-codec';
import { ScriptedModelServer } from '../../src/scripted-model/server';
import { WORKFLOW_TYPE } from '../../src/shared/defaults/names';
import { newCodecKey } from '../helpers/encrypted-agent';
import { cleanEnv, startScript, stopChild } from '../helpers/processes';
import { selfSignedCert } from '../helpers/self-signed-cert';
import { testServerAddress } from '../helpers/test-env';

/**
 * `npm run worker` with its payload keys in AGENT_CODEC_KEY_FILE and a TLS key for its model stream: a tool that
 * reads either file hands the model `[redacted]` in place of every key, as it would OPENAI_API_KEY.
 */
test('the keys of AGENT_CODEC_KEY_FILE and AGENT_STREAM_TLS_KEY never reach the model', async () => {
  const model = await ScriptedModelServer.start();
  const workspace = await mkdtemp(path.join(os.tmpdir(), 'secret-files-'));
  const key = newCodecKey('primary');
  const encodedKey = key.key.toString('base64');
  const keyFile = path.join(workspace, 'codec.keys');
  await writeFile(keyFile, `# the workers' payload keys\nprimary=${encodedKey}\n`);
  const pair = selfSignedCert();
  await copyFile(pair.keyPath, path.join(workspace, 'stream.key'));
  const taskQueue = `secret-files-${randomUUID()}`;
  const modelName = `secret-files-${randomUUID().slice(0, 8)}`;
  model.script(modelName, [
    {
      toolCalls: [
        { name: 'read_file', arguments: { path: 'codec.keys' } },
        { name: 'read_file', arguments: { path: 'stream.key' } },
      ],
    },
    { content: 'done' },
  ]);
  const worker = await startScript(
    'src/processes/worker.ts',
    cleanEnv({
      TEMPORAL_ADDRESS: testServerAddress(),
      AGENT_TASK_QUEUE: taskQueue,
      OPENAI_BASE_URL: model.baseURL,
      OPENAI_API_KEY: 'test-key',
      OPENAI_MODEL: modelName,
      AGENT_WORKSPACE: workspace,
      AGENT_CODEC_KEY_FILE: keyFile,
      AGENT_STREAM_TLS_CERT: pair.certPath,
      AGENT_STREAM_TLS_KEY: pair.keyPath,
    }),
    /Worker polling task queue/,
    180_000,
  );
  const connection = await Connection.connect({ address: testServerAddress() });
  try {
    const client = new Client({
      connection,
      namespace: 'default',
      dataConverter: { payloadCodecs: [new AesGcmPayloadCodec([key])] },
    });
    await client.workflow.execute(WORKFLOW_TYPE, {
      taskQueue,
      workflowId: `secret-files-${randomUUID()}`,
      args: [{ tools: ['read_file'], message: 'read the key files' }],
    });
    const toolResults = JSON.stringify(
      model.requests(modelName)[1]?.messages.filter((message) => message.role === 'tool'),
    );
    expect(toolResults).toContain('[redacted]');
    expect(toolResults).not.toContain(encodedKey);
    const streamKeyLines = pair.key
      .toString('utf8')
      .split('\n')
      .filter((line) => line.trim() !== '' && !line.startsWith('-----'));
    expect(streamKeyLines.length).toBeGreaterThan(0);
    for (const line of streamKeyLines) expect(toolResults).not.toContain(line.trim());
  } finally {
    await connection.close();
    await stopChild(worker.child);
    await model.close();
  }
}, 240_000);
