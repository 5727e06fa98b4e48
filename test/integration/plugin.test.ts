import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils';
import { Worker, type WorkerOptions } from '@temporalio/worker';
import { z } from 'zod';
import { runAgent } from '../../src/client';
import { AGENT_WORKFLOWS_PATH, AgentRunnerPlugin } from '../../src/worker/plugin';
import { defineTool } from '../../src/tools/define-tool';
import type { UserActivities } from '../fixtures/user-workflows';
import { useWorkerWorld } from '../helpers/worker-world';

/**
 * The plugin on a worker its user already runs: the user's own workflows module and activity, plus
 * `plugins: [new AgentRunnerPlugin(...)]`, against the suite's real Temporal server and a scripted model.
 */

const USER_WORKFLOWS = require.resolve('../fixtures/user-workflows');

const lookups: string[] = [];
const lookupOrder = defineTool({
  name: 'lookup_order',
  description: 'Find an order by its number.',
  parameters: z.object({ orderNumber: z.string() }),
  execute: ({ orderNumber }) => {
    lookups.push(orderNumber);
    return { orderNumber, status: 'shipped' };
  },
});

const greeted: string[] = [];
const userActivities: UserActivities = {
  greet: (name) => {
    greeted.push(name);
    return Promise.resolve(`Hello, ${name}!`);
  },
};

const world = useWorkerWorld();

function plugin(): AgentRunnerPlugin {
  return new AgentRunnerPlugin({
    tools: [lookupOrder],
    model: { baseURL: world.model.baseURL, apiKey: 'test-key', defaultModel: 'unused-default' },
  });
}

/** Runs `worker` while `use` does its work, then shuts it down. */
async function whileRunning(worker: Worker, use: () => Promise<void>): Promise<void> {
  const running = worker.run();
  try {
    await use();
  } finally {
    worker.shutdown();
    await running;
  }
}

/** An agent run that calls `lookup_order` once and answers; returns its result. */
async function orderRun(taskQueue: string) {
  const scenario = `plugin-${randomUUID().slice(0, 8)}`;
  world.model.script(scenario, [
    { toolCalls: [{ name: 'lookup_order', arguments: { orderNumber: scenario } }] },
    { content: `Order ${scenario} has shipped.` },
  ]);
  const result = await runAgent(
    world.client,
    { model: scenario, tools: ['lookup_order'], message: 'Where is my order?' },
    { taskQueue },
  );
  return { scenario, result };
}

describe('AgentRunnerPlugin', () => {
  test("on the user's worker, with their own workflows and activity: an agent run completes and their workflow still runs", async () => {
    const taskQueue = `plugin-${randomUUID()}`;
    const worker = await Worker.create({
      connection: world.workerConnection,
      namespace: 'default',
      taskQueue,
      workflowsPath: USER_WORKFLOWS,
      activities: userActivities,
      plugins: [plugin()],
    });
    // The plugin keeps the user's workflows and sets the heartbeat throttle tools rely on for prompt cancellation.
    expect(worker.options.workflowsPath).toBe(USER_WORKFLOWS);
    expect(worker.options.maxHeartbeatThrottleIntervalMs).toBe(1_000);

    await whileRunning(worker, async () => {
      const { scenario, result } = await orderRun(taskQueue);
      expect(result.response).toBe(`Order ${scenario} has shipped.`);
      expect(result.terminationReason).toEqual({ type: 'complete' });
      expect(result.messages.filter((message) => message.role === 'tool').map((message) => message.content)).toEqual([
        JSON.stringify({ orderNumber: scenario, status: 'shipped' }),
      ]);
      expect(lookups).toContain(scenario);

      const greeting = await world.client.workflow.execute('greetingWorkflow', {
        taskQueue,
        workflowId: `greeting-${randomUUID()}`,
        args: ['Ada'],
      });
      expect(greeting).toBe('Hello, Ada!');
      expect(greeted).toEqual(['Ada']);
    });
  }, 240_000);

  test('on a worker with no workflows of its own, the plugin brings the agent workflows', async () => {
    const taskQueue = `plugin-${randomUUID()}`;
    const worker = await Worker.create({
      connection: world.workerConnection,
      namespace: 'default',
      taskQueue,
      plugins: [plugin()],
    });
    expect(worker.options.workflowsPath).toBe(AGENT_WORKFLOWS_PATH);

    await whileRunning(worker, async () => {
      const { scenario, result } = await orderRun(taskQueue);
      expect(result.response).toBe(`Order ${scenario} has shipped.`);
      expect(result.invocations).toBe(2);
    });
  }, 240_000);

  test('a replay worker with only the plugin replays a committed agent history', async () => {
    const file = path.join(__dirname, '..', 'replay', 'histories', 'agent-loop.json');
    const history = historyFromJSON(JSON.parse(await readFile(file, 'utf8')));
    await expect(Worker.runReplayHistory({ plugins: [plugin()] }, history)).resolves.toBeUndefined();
  }, 240_000);

  test("a worker's own explicit heartbeat throttle and prebuilt bundle are kept", () => {
    const bundle = { codePath: '/prebuilt/workflow-bundle.js' };
    const options: WorkerOptions = {
      taskQueue: 'q',
      workflowBundle: bundle,
      maxHeartbeatThrottleInterval: '5 seconds',
      activities: userActivities,
    };
    const configured = plugin().configureWorker(options);
    expect(configured.workflowBundle).toBe(bundle);
    expect(configured.workflowsPath).toBeUndefined();
    expect(configured.maxHeartbeatThrottleInterval).toBe('5 seconds');
    expect(Object.keys(configured.activities ?? {}).sort()).toEqual([
      'callModel',
      'compactConversation',
      'describeTools',
      'executeTool',
      'extractToolResult',
      'greet',
    ]);
  });

  test("a worker that already has an activity named like one of the agent's is refused, naming it", async () => {
    const attempt = Worker.create({
      connection: world.workerConnection,
      namespace: 'default',
      taskQueue: `plugin-${randomUUID()}`,
      workflowsPath: USER_WORKFLOWS,
      activities: { ...userActivities, callModel: () => Promise.resolve('mine') },
      plugins: [plugin()],
    });
    await expect(attempt).rejects.toThrow(
      "AgentRunnerPlugin: the worker already has activities named callModel, which the agent's workflows call. Rename yours, or run the agent on a worker of its own.",
    );
  });
});
