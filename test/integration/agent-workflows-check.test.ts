import { randomUUID } from 'node:crypto';
import { NativeConnection, Worker } from '@temporalio/worker';
import { AgentRunnerPlugin } from '../../src/worker/plugin';
import { installQuietRuntime } from '../helpers/quiet-runtime';
import { testServerAddress } from '../helpers/test-env';

/**
 * A worker whose own workflows module does not re-export the agent's is refused at `Worker.create`, with the line
 * to add; one that does is accepted (the plugin and child-agent tests run such workers).
 */

let connection: NativeConnection;

beforeAll(async () => {
  installQuietRuntime();
  connection = await NativeConnection.connect({ address: testServerAddress() });
});
afterAll(async () => {
  await connection.close();
});

function plugin(): AgentRunnerPlugin {
  return new AgentRunnerPlugin({
    tools: [],
    model: { baseURL: 'http://127.0.0.1:9/v1', apiKey: 'unused', defaultModel: 'unused' },
  });
}

test("a workflows module without the agent's workflows fails Worker.create, saying to add export * from 'agent-runner/workflow'", async () => {
  const workflowsPath = require.resolve('../fixtures/workflows-without-agent');
  const creating = Worker.create({
    connection,
    namespace: 'default',
    taskQueue: `no-agent-${randomUUID()}`,
    workflowsPath,
    plugins: [plugin()],
  });
  await expect(creating).rejects.toThrow(
    `AgentRunnerPlugin: the worker's workflows module ${workflowsPath} does not export agentWorkflow or conversationWorkflow`,
  );
  await expect(creating).rejects.toThrow("Add `export * from 'agent-runner/workflow';` to that module");
}, 240_000);

test("a webpackConfigHook of the worker's own still runs beside the check", async () => {
  const workflowsPath = require.resolve('../fixtures/user-workflows');
  let hooked = 0;
  const worker = await Worker.create({
    connection,
    namespace: 'default',
    taskQueue: `hooked-${randomUUID()}`,
    workflowsPath,
    bundlerOptions: {
      webpackConfigHook: (config) => {
        hooked += 1;
        return config;
      },
    },
    plugins: [plugin()],
  });
  // A worker that was created holds the connection until it has run and shut down.
  const running = worker.run();
  worker.shutdown();
  await running;
  expect(hooked).toBe(1);
  expect(worker.options.workflowsPath).toBe(workflowsPath);
}, 240_000);
