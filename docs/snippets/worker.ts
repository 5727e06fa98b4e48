import { NativeConnection, Worker } from '@temporalio/worker';
import { AgentRunnerPlugin, registerSearchAttributes, type ModelSettings } from 'agent-runner/worker';
import { lookupOrder } from './tools.js';

/**
 * The agent on a worker you already run: the plugin adds its activities; your workflows module re-exports its
 * workflows (workflows.ts). `workflowsPath` is that module's path, for example `require.resolve('./workflows')`.
 */
export async function createWorker(options: {
  address: string;
  taskQueue: string;
  workflowsPath: string;
  model: ModelSettings;
}): Promise<Worker> {
  const connection = await NativeConnection.connect({ address: options.address });
  // Once per namespace (a deploy step does it as well): runs set the agent's search attributes.
  await registerSearchAttributes(connection, 'default');
  return Worker.create({
    connection,
    namespace: 'default',
    taskQueue: options.taskQueue,
    workflowsPath: options.workflowsPath,
    plugins: [new AgentRunnerPlugin({ tools: [lookupOrder], model: options.model })],
  });
}
