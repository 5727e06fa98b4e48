import os from 'node:os';
import { DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
import { createBuiltinTools } from '../../src/tools/builtin';
import { createAgentWorker } from '../../src/worker';
import { CHAOS_MODEL } from './chaos-agent';
import { chaosDelegateTool } from './chaos-delegate';
import { chaosMcpServers } from './chaos-mcp';
import { chaosTool } from './chaos-tool';
import { READY_LINE, type ChaosWorkerEnvironment } from './worker-contract';

/**
 * The chaos harness's worker, a process of its own so the harness can
 * SIGKILL it. Configured by the harness through the environment; it uses the
 * harness's prebuilt workflow bundle, so a restart costs a connection and no
 * bundling. Prints READY_LINE once the worker is created and about to poll.
 */

function setting(name: keyof ChaosWorkerEnvironment): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: this process is started by bench/chaos/run.ts (npm run chaos).`);
  return value;
}

async function main(): Promise<void> {
  // A SIGKILL gives no chance to drain anyway; SIGTERM from the harness at the end need not drain either.
  Runtime.install({ logger: new DefaultLogger('ERROR'), shutdownSignals: [] });
  // A worker of the stack (`npm run chaos -- --stack`) learns the address the way the stack's own workers do.
  const address = process.env.CHAOS_TEMPORAL_ADDRESS || process.env.TEMPORAL_ADDRESS;
  if (!address)
    throw new Error(
      'CHAOS_TEMPORAL_ADDRESS (or TEMPORAL_ADDRESS) is not set: this process is started by npm run chaos.',
    );
  const connection = await NativeConnection.connect({ address });
  const worker = await createAgentWorker({
    connection,
    namespace: 'default',
    taskQueue: setting('CHAOS_TASK_QUEUE'),
    tools: [
      ...createBuiltinTools({ workspace: os.tmpdir() }),
      chaosTool({
        logFile: setting('CHAOS_SIDE_EFFECT_LOG'),
        workMs: Number(setting('CHAOS_TOOL_WORK_MS')),
        resultBytes: Number(process.env.CHAOS_RESULT_BYTES ?? 0),
      }),
      chaosDelegateTool(),
    ],
    model: { baseURL: setting('CHAOS_MODEL_URL'), apiKey: 'unused', defaultModel: CHAOS_MODEL },
    workflowBundle: { codePath: setting('CHAOS_BUNDLE') },
    mcpServers: chaosMcpServers({
      sideEffectLog: setting('CHAOS_SIDE_EFFECT_LOG'),
      workMs: Number(setting('CHAOS_TOOL_WORK_MS')),
      pidLog: setting('CHAOS_MCP_PID_LOG'),
    }),
  });
  process.stdout.write(`${READY_LINE}\n`);
  await worker.run();
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? (error.stack ?? error.message) : error);
  process.exit(1);
});
