import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { bundleWorkflowCode, Worker } from '@temporalio/worker';
import { z } from 'zod';
import { AgentRunnerPlugin } from '../../src/worker/plugin';
import { defineTool } from '../../src/tools/define-tool';
import { PROJECT_ROOT } from '../helpers/processes';
import type { OrderReport } from '../fixtures/child-agent-workflows';
import { useWorkerWorld } from '../helpers/worker-world';

/**
 * An agent as a child of the user's own workflow: the fixture imports the workflow-safe entry
 * (`agent-runner/workflow`, here src/workflows) — the workflows, every signal, query and update definition, a
 * search attribute key — and runs `executeChild(agentWorkflow, { args: [input] })`, on a worker of the user's
 * built with AgentRunnerPlugin. Temporal's bundler refuses Node built-ins, so the worker bundling the fixture is
 * the check that the entry loads nothing that needs Node; the client entry, which does, is refused the same way.
 */

const CHILD_AGENT_WORKFLOWS = require.resolve('../fixtures/child-agent-workflows');
const silent = { trace() {}, debug() {}, info() {}, warn() {}, error() {}, log() {} };

const lookupOrder = defineTool({
  name: 'lookup_order',
  description: 'Find an order by its number.',
  parameters: z.object({ orderNumber: z.string() }),
  execute: ({ orderNumber }) => ({ orderNumber, status: 'shipped' }),
});

const world = useWorkerWorld();

describe('an agent as a child workflow', () => {
  test("the user's workflow runs the agent with executeChild(agentWorkflow) and uses its result", async () => {
    const taskQueue = `child-agent-${randomUUID()}`;
    const worker = await Worker.create({
      connection: world.workerConnection,
      namespace: 'default',
      taskQueue,
      workflowsPath: CHILD_AGENT_WORKFLOWS,
      plugins: [
        new AgentRunnerPlugin({
          tools: [lookupOrder],
          model: { baseURL: world.model.baseURL, apiKey: 'test-key', defaultModel: 'unused' },
        }),
      ],
    });
    const scenario = `child-${randomUUID().slice(0, 8)}`;
    world.model.script(scenario, [
      { toolCalls: [{ name: 'lookup_order', arguments: { orderNumber: '42' } }] },
      { content: 'Order 42 has shipped.' },
    ]);
    const workflowId = `order-report-${randomUUID()}`;
    const running = worker.run();
    let report: OrderReport;
    try {
      report = await world.client.workflow.execute('orderReportWorkflow', {
        taskQueue,
        workflowId,
        args: ['42', scenario],
      });
    } finally {
      worker.shutdown();
      await running;
    }
    expect(report).toEqual({
      orderNumber: '42',
      answer: 'Order 42 has shipped.',
      terminationReason: 'complete',
      invocations: 2,
      definitions: [
        'state',
        'events',
        'transcript',
        'userMessage',
        'approve',
        'deny',
        'stop',
        'terminate',
        'decide',
        'setLimits',
        'chat',
        'conversation',
        'end',
        'AgentStatus',
        'agentWorkflow',
      ],
    });
    // The agent ran as the parent's child, under the id the parent gave it.
    const child = await world.client.workflow.getHandle(`${workflowId}-agent`).describe();
    expect(child.type).toBe('agentWorkflow');
    expect(child.parentExecution?.workflowId).toBe(workflowId);
  }, 240_000);

  test('the client entry, which reads configuration from the file system, is refused by the same bundler', async () => {
    const directory = await mkdtemp(path.join(os.tmpdir(), 'client-in-workflow-'));
    try {
      const workflows = path.join(directory, 'workflows.ts');
      await writeFile(
        workflows,
        `import { stateQuery } from ${JSON.stringify(path.join(PROJECT_ROOT, 'src', 'client'))};\n` +
          'export async function wrong(): Promise<string> { return stateQuery.name; }\n',
      );
      await expect(bundleWorkflowCode({ workflowsPath: workflows, logger: silent })).rejects.toThrow(
        /Webpack finished with errors|disallowed modules/,
      );
    } finally {
      await rm(directory, { recursive: true, force: true });
    }
  }, 240_000);
});
