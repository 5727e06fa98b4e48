import { mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { ScriptedModelServer } from '../../src/scripted-model/server';
import { WORKFLOW_TYPE } from '../../src/shared/defaults/names';
import { withAnswerRestored, type AgentWorkflowResult } from '../../src/shared/result-answer';
import { everythingStdio } from '../helpers/mcp-servers';
import { cleanEnv, startScript, stopChild } from '../helpers/processes';
import { rawHistory } from '../helpers/raw-history';
import { testServerAddress } from '../helpers/test-env';

/**
 * `npm run worker` with `AGENT_MCP_CONFIG`: the file's servers are started by the worker process and their tools
 * called by a run; at LOG_LEVEL=debug the worker's whole output (the SDK logs a worker's options at that level)
 * holds none of the server's credentials, nor does the run's history.
 */

const SECRET = 'process-secret-93be10c4';

let model: ScriptedModelServer;
let client: Client;
let connection: Connection;
beforeAll(async () => {
  model = await ScriptedModelServer.start();
  connection = await Connection.connect({ address: testServerAddress() });
  client = new Client({ connection, namespace: 'default' });
});
afterAll(async () => {
  await connection?.close();
  await model?.close();
});

test('the servers of AGENT_MCP_CONFIG serve a run; no credential in the output or the history', async () => {
  const directory = await mkdtemp(path.join(os.tmpdir(), 'mcp-worker-'));
  const config = path.join(directory, 'mcp.json');
  await writeFile(config, JSON.stringify({ mcpServers: { everything: everythingStdio({ SERVICE_TOKEN: SECRET }) } }));
  const taskQueue = `mcp-process-${randomUUID()}`;
  const modelName = `mcp-process-${randomUUID()}`;
  model.script(modelName, [
    {
      toolCalls: [
        { name: 'everything__echo', arguments: { message: 'through npm run worker' } },
        { name: 'everything__get-env', arguments: {} },
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
      OPENAI_MODEL: modelName,
      AGENT_MCP_CONFIG: config,
      LOG_LEVEL: 'debug',
    }),
    /Worker polling task queue/,
  );
  let failure: unknown;
  let workflowId = '';
  try {
    expect(worker.output()).toContain('MCP servers everything (stdio)');
    workflowId = `mcp-process-${randomUUID()}`;
    const handle = await client.workflow.start(WORKFLOW_TYPE, {
      taskQueue,
      workflowId,
      args: [{ tools: ['everything__*'], message: 'go', resultMessages: 'all' }],
    });
    const result = withAnswerRestored((await handle.result()) as AgentWorkflowResult);
    const [echo, environment] = result.messages.filter((message) => message.role === 'tool').map((m) => m.content);
    expect(echo).toBe('Echo: through npm run worker');
    expect(JSON.parse(String(environment))).toMatchObject({ SERVICE_TOKEN: '[redacted]' });
  } catch (error) {
    failure = error;
  }
  await stopChild(worker.child);
  if (failure !== undefined) throw failure;
  const output = worker.output();
  // The debug log did print the worker's options (plugins included), and MCP's own lines.
  expect(output).toMatch(/Creating worker/);
  expect(output).toMatch(/MCP server "everything" connected/);
  expect(output).not.toContain(SECRET);
  expect((await rawHistory(workflowId)).holding([SECRET])).toEqual([]);
}, 180_000);
