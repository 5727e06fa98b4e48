import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { PROJECT_ROOT, cleanEnv, runProcess, type Finished } from '../helpers/processes';
import { testServerAddress } from '../helpers/test-env';

/**
 * The package as a user gets it: built into dist/ by `npm run build`, installed into a consumer
 * (node_modules/agent-runner, a symlink to this repository), and used only through its exports
 * map — by a node script that loads the four entry points and runs an agent on the suite's
 * Temporal server, and by tsc with `moduleResolution: node16`, which reads the `types` conditions.
 */

let consumer: string;

/** Runs `args` with node (or tsc) in the consumer, failing with its output when it exits non-zero. */
async function inConsumer(args: string[], env: NodeJS.ProcessEnv = {}): Promise<Finished> {
  const finished = await runProcess(process.execPath, args, { cwd: consumer, env: cleanEnv(env), timeoutMs: 180_000 });
  if (finished.code !== 0)
    throw new Error(`node ${args.join(' ')} exited with ${finished.code}:\n${finished.stdout}\n${finished.stderr}`);
  return finished;
}

/** The JSON the consumer script printed last. */
function report<T>(finished: Finished): T {
  const lines = finished.stdout.trim().split('\n');
  return JSON.parse(lines[lines.length - 1] ?? '') as T;
}

beforeAll(async () => {
  const build = await runProcess('npm', ['run', 'build'], { timeoutMs: 180_000 });
  if (build.code !== 0) throw new Error(`npm run build failed:\n${build.stdout}\n${build.stderr}`);

  consumer = await mkdtemp(path.join(os.tmpdir(), 'agent-runner-consumer-'));
  const modules = path.join(consumer, 'node_modules');
  await mkdir(modules);
  await symlink(PROJECT_ROOT, path.join(modules, 'agent-runner'), 'dir');
  // What a user installs next to agent-runner: the Temporal SDK, zod for their tools, Node's types.
  for (const dependency of ['@temporalio', 'zod', '@types']) {
    await symlink(path.join(PROJECT_ROOT, 'node_modules', dependency), path.join(modules, dependency), 'dir');
  }
  await writeFile(
    path.join(consumer, 'package.json'),
    JSON.stringify({ name: 'consumer', private: true, type: 'commonjs' }),
  );
  await writeFile(path.join(consumer, 'entries.js'), ENTRIES_SCRIPT);
  await writeFile(path.join(consumer, 'run-agent.js'), RUN_AGENT_SCRIPT);
  await writeFile(path.join(consumer, 'workflows.ts'), USER_WORKFLOWS);
  await writeFile(path.join(consumer, 'consumer.ts'), TYPED_CONSUMER);
  await writeFile(
    path.join(consumer, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        target: 'ES2022',
        module: 'node16',
        moduleResolution: 'node16',
        strict: true,
        noEmit: true,
        skipLibCheck: true,
        types: ['node'],
      },
      files: ['consumer.ts'],
    }),
  );
}, 240_000);
afterAll(async () => {
  if (consumer !== undefined) await rm(consumer, { recursive: true, force: true });
});

describe('the package through its exports map', () => {
  test('the four entry points load by their package names, carry the public names only, and a deep import is refused', async () => {
    const { entries, deepImport } = report<{ entries: Record<string, string[]>; deepImport: string }>(
      await inConsumer(['entries.js']),
    );

    expect(entries['agent-runner']).toEqual(
      expect.arrayContaining([
        'connectAgentClient',
        'startAgentRun',
        'getAgentResult',
        'getAgentState',
        'runAgent',
        'decideToolCall',
        'terminateAgentRun',
        'stopAgentRun',
        'followRunEvents',
        'getRunOutcome',
        'listAgentRuns',
        'sendUserMessage',
        'sendChatTurn',
        'getConversation',
        'endConversation',
        'InvalidAgentInputError',
        'AgentRunFailedError',
        'RunNotFoundError',
        'RunEndedError',
        'DecisionRejectedError',
        'ChatTurnFailedError',
        'WORKFLOW_TYPE',
        'CONVERSATION_WORKFLOW_TYPE',
        'DEFAULT_TASK_QUEUE',
        'stateQuery',
        'eventsQuery',
        'approveSignal',
        'denySignal',
        'decideUpdate',
        'setLimitsUpdate',
        'terminateSignal',
        'stopSignal',
        'userMessageSignal',
        'chatUpdate',
        'conversationQuery',
        'endConversationSignal',
        'ConversationFailure',
        'parseAgentInput',
        'FailureType',
        'FAILURE_CATALOGUE',
        'isFailureType',
        'payloadCodecDataConverter',
        'loadCodecKeys',
        'parseCodecKeys',
        'PayloadKeyError',
      ]),
    );
    // The runner's internals stay internal.
    for (const internal of [
      'INPUT_BOUNDS',
      'TOOL_OUTPUT_LIMIT_BYTES',
      'TEMPORAL_PAYLOAD_LIMIT_BYTES',
      'findTooDeep',
      'agentInputSchema',
      'ACTIVITY_DEFAULTS',
      'API_MAX_JSON_DEPTH',
      'unknownToolMessage',
      'turnWorkflowId',
      'cutToBytes',
    ]) {
      expect(entries['agent-runner']).not.toContain(internal);
    }
    expect(entries['agent-runner/worker']).toEqual(
      expect.arrayContaining([
        'createAgentWorker',
        'AgentRunnerPlugin',
        'defineTool',
        'defineAgentTool',
        'createBuiltinTools',
        'TerminateResponse',
        'WaitForInput',
        'RetryableToolError',
        'payloadCodecDataConverter',
        'loadCodecKeys',
        'PayloadKeyError',
      ]),
    );
    expect(entries['agent-runner/workflow']).toEqual([
      'AGENT_SEARCH_ATTRIBUTE_KEYS',
      'AgentCostUsdKey',
      'AgentIterationsKey',
      'AgentPendingApprovalsKey',
      'AgentStatusKey',
      'AgentTerminationReasonKey',
      'AgentTotalTokensKey',
      'CONVERSATION_WORKFLOW_TYPE',
      'WORKFLOW_TYPE',
      'agentWorkflow',
      'approveSignal',
      'chatUpdate',
      'conversationQuery',
      'conversationWorkflow',
      'decideUpdate',
      'denySignal',
      'endConversationSignal',
      'eventsQuery',
      'registerApprovalPolicy',
      'registerStopCondition',
      'setLimitsUpdate',
      'stateQuery',
      'stopSignal',
      'terminateSignal',
      'transcriptQuery',
      'userMessageSignal',
      'withAnswerRestored',
    ]);
    expect(entries['agent-runner/testing']).toEqual(['ScriptedModelServer', 'replayAgentHistories', 'startDevServer']);
    expect(deepImport).toBe('ERR_PACKAGE_PATH_NOT_EXPORTED');
  }, 60_000);

  test("a consumer runs an agent through the package: the plugin on the user's worker, the scripted model from testing, a run from the client", async () => {
    const run = report<{ response: string; terminationReason: unknown; toolResults: string[]; greeting: string }>(
      await inConsumer(['run-agent.js'], { TEMPORAL_ADDRESS: testServerAddress() }),
    );
    expect(run.response).toBe('Order 42 has shipped.');
    expect(run.terminationReason).toEqual({ type: 'complete' });
    expect(run.toolResults).toEqual([JSON.stringify({ orderNumber: '42', status: 'shipped' })]);
    // The user's own workflow, bundled from the same module that re-exports agent-runner/workflow.
    expect(run.greeting).toBe('Hello from the consumer');
  }, 240_000);

  test('a TypeScript consumer type-checks against the types conditions (node16 resolution), and the same deep import is refused', async () => {
    const tsc = path.join(PROJECT_ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
    const finished = await inConsumer([tsc, '-p', 'tsconfig.json']);
    expect(finished.stdout + finished.stderr).toBe('');
  }, 120_000);
});

/** Loads each entry point and a path outside the map; prints what it found. */
const ENTRIES_SCRIPT = `'use strict';
const entries = {};
for (const name of ['agent-runner', 'agent-runner/worker', 'agent-runner/workflow', 'agent-runner/testing']) {
  entries[name] = Object.keys(require(name)).sort();
}
let deepImport = 'resolved';
try {
  require('agent-runner/dist/shared/defaults/names');
} catch (error) {
  deepImport = error.code;
}
console.log(JSON.stringify({ entries, deepImport }));
`;

/**
 * The user's workflows module, as docs/guide/plugin.md shows it: the agent's workflows re-exported from the
 * package (the Temporal bundler resolves agent-runner/workflow through the exports map), and one of their own.
 */
const USER_WORKFLOWS = `export * from 'agent-runner/workflow';

export async function greetingWorkflow(): Promise<string> {
  return 'Hello from the consumer';
}
`;

/** A user's worker with the plugin, a scripted model and a run started with the client, all through the package. */
const RUN_AGENT_SCRIPT = `'use strict';
const path = require('node:path');
const { randomUUID } = require('node:crypto');
const { DefaultLogger, NativeConnection, Runtime, Worker } = require('@temporalio/worker');
const { z } = require('zod');
const { connectAgentClient, runAgent } = require('agent-runner');
const { AgentRunnerPlugin, defineTool } = require('agent-runner/worker');
const { ScriptedModelServer } = require('agent-runner/testing');

async function main() {
  Runtime.install({ logger: new DefaultLogger('ERROR') });
  const model = await ScriptedModelServer.start();
  model.script('order-scenario', [
    { toolCalls: [{ name: 'lookup_order', arguments: { orderNumber: '42' } }] },
    { content: 'Order 42 has shipped.' },
  ]);
  const lookupOrder = defineTool({
    name: 'lookup_order',
    description: 'Find an order by its number.',
    parameters: z.object({ orderNumber: z.string() }),
    execute: async ({ orderNumber }) => ({ orderNumber, status: 'shipped' }),
  });
  const taskQueue = 'consumer-' + randomUUID();
  const connection = await NativeConnection.connect({ address: process.env.TEMPORAL_ADDRESS });
  const worker = await Worker.create({
    connection,
    namespace: 'default',
    taskQueue,
    workflowsPath: path.join(__dirname, 'workflows.ts'),
    plugins: [new AgentRunnerPlugin({ tools: [lookupOrder], model: { baseURL: model.baseURL, apiKey: 'test-key', defaultModel: 'unused' } })],
  });
  const running = worker.run();
  try {
    const client = await connectAgentClient();
    const result = await runAgent(client, { model: 'order-scenario', tools: ['lookup_order'], message: 'Where is order 42?' }, { taskQueue });
    const greeting = await client.workflow.execute('greetingWorkflow', { taskQueue, workflowId: 'greeting-' + randomUUID() });
    await client.connection.close();
    console.log(JSON.stringify({
      response: result.response,
      terminationReason: result.terminationReason,
      toolResults: result.messages.filter((message) => message.role === 'tool').map((message) => message.content),
      greeting,
    }));
  } finally {
    worker.shutdown();
    await running;
    await connection.close();
    await model.close();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
`;

/**
 * Compiled, never run: each import resolves only through the map's \`types\` conditions, and the
 * \`@ts-expect-error\` lines fail the check if what they refuse were ever accepted (an internal name
 * exported, a deep path resolving, or the types collapsing to \`any\`).
 */
const TYPED_CONSUMER = `import { Worker } from '@temporalio/worker';
import { z } from 'zod';
import {
  AgentRunFailedError,
  WORKFLOW_TYPE,
  connectAgentClient,
  getAgentState,
  runAgent,
  stateQuery,
  type AgentInput,
  type AgentResult,
  type AgentState,
  type TerminationReason,
} from 'agent-runner';
import { AgentRunnerPlugin, createAgentWorker, createBuiltinTools, defineTool, RetryableToolError, type ModelSettings } from 'agent-runner/worker';
import {
  agentWorkflow,
  conversationWorkflow,
  registerApprovalPolicy,
  registerStopCondition,
  type ApprovalPolicy,
  type CustomStopCondition,
} from 'agent-runner/workflow';
import { ScriptedModelServer, startDevServer, type ScriptStep } from 'agent-runner/testing';
// @ts-expect-error the input bounds are the runner's internals, not the client's
import { INPUT_BOUNDS } from 'agent-runner';
// @ts-expect-error a path outside the exports map does not resolve
import { DEFAULT_TASK_QUEUE } from 'agent-runner/dist/shared/defaults/names';

export async function useEverything(): Promise<void> {
  void INPUT_BOUNDS;
  void DEFAULT_TASK_QUEUE;
  const server = await startDevServer({ port: 0, uiPort: 0, log: (line) => console.log(line) });
  const model = await ScriptedModelServer.start();
  const step: ScriptStep = { toolCalls: [{ name: 'lookup_order', arguments: { orderNumber: '42' } }] };
  model.script('scenario', [step, { content: 'Shipped.' }]);
  const settings: ModelSettings = { baseURL: model.baseURL, defaultModel: 'unused' };
  const lookupOrder = defineTool({
    name: 'lookup_order',
    description: 'Find an order by its number.',
    parameters: z.object({ orderNumber: z.string() }),
    execute: ({ orderNumber }) => {
      if (orderNumber === '') throw new RetryableToolError('try again');
      return { orderNumber };
    },
  });
  const worker = await Worker.create({ taskQueue: 'q', plugins: [new AgentRunnerPlugin({ tools: [lookupOrder, ...createBuiltinTools({ workspace: '.' })], model: settings })] });
  // @ts-expect-error a model without defaultModel is refused
  new AgentRunnerPlugin({ tools: [], model: {} });
  void createAgentWorker;
  const input: AgentInput = { model: 'scenario', tools: ['lookup_order'], message: 'Where is order 42?' };
  // @ts-expect-error tools is a list of names
  const wrong: AgentInput = { tools: 'lookup_order', message: 'hi' };
  void wrong;
  const client = await connectAgentClient();
  const result = await runAgent(client, input, { taskQueue: 'q' });
  const asResult: AgentResult = result;
  const reason: TerminationReason['type'] = result.terminationReason.type;
  const state: AgentState = await getAgentState(client, result.workflowId);
  const viaQuery: AgentState = await client.workflow.getHandle(result.workflowId).query(stateQuery);
  const failed: string | undefined = new AgentRunFailedError('x', 'MaxInvocationsExceeded', []).type;
  const started = await client.workflow.start(agentWorkflow, { taskQueue: 'q', workflowId: 'w', args: [input] });
  // @ts-expect-error agentWorkflow takes an AgentInput: tools is a list of names
  await client.workflow.start(agentWorkflow, { taskQueue: 'q', workflowId: 'w2', args: [{ tools: 'lookup_order' }] });
  void [asResult, reason, state, viaQuery, failed, started, WORKFLOW_TYPE, conversationWorkflow, worker, server];
  const condition: CustomStopCondition = (context) => ({ stop: context.executedTools.length > 2 });
  registerStopCondition('three-tools', condition);
  const policy: ApprovalPolicy = (call, params) =>
    call.toolName === 'lookup_order' && call.iteration <= Number(params.upTo) ? { decision: 'approve' } : { decision: 'ask', reason: call.callId };
  registerApprovalPolicy('early-lookups', policy);
  // @ts-expect-error a policy decides approve, deny, modify or ask
  registerApprovalPolicy('wrong', () => ({ decision: 'maybe' }));
}
`;
