import { writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import { DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
import { ScriptedModelServer } from '../src/scripted-model/server';
import { WORKFLOW_TYPE, type AgentInput } from '../src/shared';
import { startDevServer } from '../src/temporal/dev-server';
import { createBuiltinTools } from '../src/tools/builtin';
import { createAgentWorker } from '../src/worker';

/**
 * `npm run record-history`: runs one scripted scenario that passes through
 * every branch of the loop (tool catalog, a nudge, parallel tool calls, a
 * tool error, a terminating tool) on a fresh dev server and writes its event
 * history to test/replay/histories/. Commit the file when the workflow's
 * behaviour changes on purpose, and say why in the commit.
 */
const OUTPUT = path.resolve(__dirname, '..', 'test', 'replay', 'histories', 'agent-loop.json');
const MODEL = 'recorded-scenario';

async function main(): Promise<void> {
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const server = await startDevServer({ port: 0, uiPort: 0, log: (line) => console.log(line) });
  const model = await ScriptedModelServer.start();
  model.script(MODEL, [
    { content: 'Let me think about it.' },
    {
      toolCalls: [
        { name: 'calculator', arguments: { expression: '(2 + 3) * 4' }, id: 'call_a' },
        { name: 'calculator', arguments: { expression: '1 / 0' }, id: 'call_b' },
      ],
    },
    { toolCalls: [{ name: 'task_completion', arguments: { result: '20, and 1/0 is undefined.' }, id: 'call_done' }] },
  ]);
  const workerConnection = await NativeConnection.connect({ address: server.address });
  const clientConnection = await Connection.connect({ address: server.address });
  try {
    const worker = await createAgentWorker({
      connection: workerConnection,
      namespace: 'default',
      taskQueue: 'record-history',
      tools: createBuiltinTools({ workspace: os.tmpdir() }),
      model: { baseURL: model.baseURL, apiKey: 'unused', defaultModel: MODEL },
    });
    const client = new Client({ connection: clientConnection });
    const input: AgentInput = {
      instructions: 'Compute, then report with task_completion.',
      tools: ['calculator', 'task_completion'],
      message: 'What is (2 + 3) * 4, and what is 1 / 0?',
      terminating: { toolIds: ['task_completion'], consecutiveNudges: 1 },
    };
    const handle = await worker.runUntil(async () => {
      const started = await client.workflow.start(WORKFLOW_TYPE, {
        taskQueue: 'record-history',
        workflowId: 'recorded-agent-loop',
        args: [input],
      });
      await started.result();
      return started;
    });
    await writeFile(OUTPUT, `${JSON.stringify(JSON.parse(historyToJSON(await handle.fetchHistory())), null, 2)}\n`);
    console.log(`Wrote ${OUTPUT}`);
  } finally {
    await clientConnection.close();
    await workerConnection.close();
    await model.close();
    await server.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
