import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import {
  followRunEvents,
  registerSearchAttributes,
  runAgent,
  SearchAttributesMissingError,
  startAgentRun,
} from '../../src/client';
import { createActivities } from '../../src/activities';
import { ScriptedModelServer } from '../../src/scripted-model/server';
import { createToolRegistry } from '../../src/tools/tool-registry';
import { startDevServer, type StartedDevServer } from '../../src/dev-server/dev-server';
import { AgentRunnerPlugin, createAgentWorker } from '../../src/worker';
import { installQuietRuntime } from '../helpers/quiet-runtime';
import { waitFor } from '../helpers/wait';

/**
 * A namespace as a plain `temporal server start-dev` has it, without the agent's search attributes. There a run
 * never gets going (each workflow task fails with BadSearchAttributes), so the plugin and createAgentWorker refuse
 * to start, followRunEvents says why a run stalls, and registerSearchAttributes is the fix.
 */

const AGENT_ATTRIBUTES = [
  'AgentStatus',
  'AgentIterations',
  'AgentTotalTokens',
  'AgentCostUsd',
  'AgentPendingApprovals',
  'AgentTerminationReason',
  'AgentForkedFrom',
];
const COMMAND = /temporal operator search-attribute create --namespace default --name AgentStatus --type Keyword/;

let server: StartedDevServer;
let workerConnection: NativeConnection;
let client: Client;
let model: ScriptedModelServer;

function workflowBundle(): { codePath: string } {
  const codePath = process.env.AGENT_TEST_WORKFLOW_BUNDLE;
  if (!codePath) throw new Error('AGENT_TEST_WORKFLOW_BUNDLE is not set: run the tests with `npm test`.');
  return { codePath };
}

beforeAll(async () => {
  installQuietRuntime();
  server = await startDevServer({ port: 0, uiPort: 0, log: () => {}, searchAttributes: false });
  workerConnection = await NativeConnection.connect({ address: server.address });
  client = new Client({ connection: await Connection.connect({ address: server.address }), namespace: 'default' });
  model = await ScriptedModelServer.start();
}, 120_000);
afterAll(async () => {
  await model?.close();
  await client?.connection.close();
  await workerConnection?.close();
  await server?.stop();
});

test('a worker with the plugin refuses to run, naming the missing attributes and the command that registers them', async () => {
  const worker = await Worker.create({
    connection: workerConnection,
    namespace: 'default',
    taskQueue: `missing-${randomUUID()}`,
    workflowBundle: workflowBundle(),
    plugins: [new AgentRunnerPlugin({ tools: [], model: { baseURL: model.baseURL, defaultModel: 'unused' } })],
  });
  const refused = await worker.run().then(
    () => undefined,
    (error: unknown) => error,
  );
  expect(refused).toBeInstanceOf(SearchAttributesMissingError);
  const error = refused as SearchAttributesMissingError;
  // A fork's attribute is set by the client that starts it, never by a run: workers do without it.
  expect(error.missing).toEqual(AGENT_ATTRIBUTES.filter((name) => name !== 'AgentForkedFrom'));
  expect(error.message).toMatch(COMMAND);
  expect(error.message).toContain('registerSearchAttributes');
});

test('createAgentWorker refuses at once, before it bundles anything', async () => {
  await expect(
    createAgentWorker({
      connection: workerConnection,
      namespace: 'default',
      taskQueue: `missing-${randomUUID()}`,
      tools: [],
      model: { baseURL: model.baseURL, defaultModel: 'unused' },
    }),
  ).rejects.toThrow(COMMAND);
});

test("followRunEvents on a run that stalls on them says so, instead of the server's FAILED_PRECONDITION", async () => {
  // The agent's workflows and activities without the plugin, so without its check: the run's workflow tasks fail on the attributes.
  const taskQueue = `stalled-${randomUUID()}`;
  const activities = createActivities({
    registry: createToolRegistry([]),
    model: { baseURL: model.baseURL, defaultModel: 'unused' },
  });
  const worker = await Worker.create({
    connection: workerConnection,
    namespace: 'default',
    taskQueue,
    workflowBundle: workflowBundle(),
    activities,
  });
  const running = worker.run();
  try {
    const run = await startAgentRun(client, { model: 'unused', tools: [], message: 'hi' }, { taskQueue });
    // Once its first workflow task has failed, a query gets the server's FAILED_PRECONDITION.
    await waitFor(
      () => run.handle.fetchHistory(),
      (history) => (history.events ?? []).some((event) => event.workflowTaskFailedEventAttributes != null),
    );
    const followed = (async () => {
      for await (const event of followRunEvents(client, run.workflowId)) void event;
    })();
    await expect(followed).rejects.toBeInstanceOf(SearchAttributesMissingError);
    await expect(followed).rejects.toThrow(COMMAND);
    await run.handle.terminate('test over');
  } finally {
    worker.shutdown();
    await running;
  }
});

test('registerSearchAttributes registers what is missing, once; then an agent runs on the namespace through the plugin', async () => {
  expect(await registerSearchAttributes(client.connection, 'default')).toEqual(AGENT_ATTRIBUTES);
  expect(await registerSearchAttributes(workerConnection, 'default')).toEqual([]);

  model.script('registered', [{ content: 'Registered and running.' }]);
  const taskQueue = `registered-${randomUUID()}`;
  const worker = await Worker.create({
    connection: workerConnection,
    namespace: 'default',
    taskQueue,
    workflowBundle: workflowBundle(),
    plugins: [new AgentRunnerPlugin({ tools: [], model: { baseURL: model.baseURL, defaultModel: 'unused' } })],
  });
  const running = worker.run();
  try {
    const result = await runAgent(client, { model: 'registered', tools: [], message: 'hi' }, { taskQueue });
    expect(result.response).toBe('Registered and running.');
  } finally {
    worker.shutdown();
    await running;
  }
}, 60_000);

test('a namespace that lacks only an attribute added since is told that one and its command', async () => {
  await client.connection.operatorService.removeSearchAttributes({
    namespace: 'default',
    searchAttributes: ['AgentCostUsd'],
  });
  const refused = await createAgentWorker({
    connection: workerConnection,
    namespace: 'default',
    taskQueue: `upgraded-${randomUUID()}`,
    tools: [],
    model: { baseURL: model.baseURL, defaultModel: 'unused' },
  }).then(
    () => undefined,
    (error: unknown) => error,
  );
  expect(refused).toBeInstanceOf(SearchAttributesMissingError);
  const error = refused as SearchAttributesMissingError;
  expect(error.missing).toEqual(['AgentCostUsd']);
  expect(error.command).toBe(
    'temporal operator search-attribute create --namespace default --name AgentCostUsd --type Double',
  );
  expect(error.message).toContain(error.command);
  expect(await registerSearchAttributes(client.connection, 'default')).toEqual(['AgentCostUsd']);
});
