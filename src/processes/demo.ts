import { copyFile, mkdir, readdir } from 'node:fs/promises';
import path from 'node:path';
import { Runtime } from '@temporalio/worker';
import { Command } from 'commander';
import { ExitCode } from '../cli/exit-codes';
import { followRun } from '../cli/follow-run';
import { createOutput } from '../cli/output';
import { getRunOutcome } from '../client/run-control';
import { startAgentRun } from '../client/start-agent-run';
import { summaryLine } from './demo-summary';
import { configuredSecrets, loadModelConfig, loadTemporalConfig, type ModelConfig } from '../config';
import { loadLocalRunConfig, loadLocalServerConfig } from '../config/local-server';
import { loadDemoModelChoice } from '../config/model';
import { describePayloadEncryption, loadPayloadEncryption } from '../config/payload-codec';
import { DEMO_MODEL, SUMMARY_FILE, demoAgent } from '../scripted-model/demo-agent';
import { ScriptedModelServer } from '../scripted-model/server';
import { DEMO_TASK_QUEUE } from '../shared/defaults/names';
import { WORKER_DEFAULTS } from '../shared/defaults/worker';
import { type AgentInput } from '../shared/agent-input';
import { connectToLocalServer, ensureLocalServer } from '../dev-server/local-server';
import { createBuiltinTools } from '../tools/builtin';
import { createAgentWorker } from '../worker';
import { runnerLogger } from '../worker/runner-logger';

const EXAMPLES = path.resolve(__dirname, '..', '..', 'examples', 'workspace');

const DEFAULT_TASK =
  `Read every file in the workspace, write a short summary of them to ${SUMMARY_FILE}, ` +
  'then call finish with a one-line note.';

const INSTRUCTIONS =
  'You are a careful assistant working in a sandboxed workspace. Use the file tools to look before you write. ' +
  'When the task is done, call the finish tool.';

/**
 * `npm run demo`: a real agent run as a Temporal workflow on a local dev
 * server, printed live as `agent-runner run` prints it, with a link to the
 * run in the web UI.
 */
async function main(): Promise<number> {
  const choice = loadDemoModelChoice();
  const localServer = loadLocalServerConfig();
  const localRun = loadLocalRunConfig();
  const encryption = loadPayloadEncryption(
    process.env,
    localServer.temporal ?? loadTemporalConfig(process.env, { readDefaultFile: false }),
  );
  const options = new Command()
    .name('demo')
    .description('Run one agent task as a durable Temporal workflow and follow it live.')
    .option('-m, --message <text>', 'the task for the agent', DEFAULT_TASK)
    .option('--model <name>', 'model name (with OPENAI_API_KEY or OPENAI_BASE_URL)')
    .option('-w, --workspace <dir>', 'directory the file tools are confined to', choice.workspace)
    .parse()
    .opts<{ message: string; model?: string; workspace: string }>();

  // Ctrl-C is the follower's (it terminates the run gracefully); the worker stops when the run has ended.
  Runtime.install({ logger: runnerLogger('WARN', configuredSecrets()), shutdownSignals: [] });
  const say = (line: string) => console.log(line);
  const workspace = path.resolve(options.workspace);

  const online = choice.modelConfigured;
  let scripted: ScriptedModelServer | undefined;
  let model: ModelConfig;
  if (online) {
    model = { ...loadModelConfig(), workspace };
    say(`Model: ${options.model ?? model.defaultModel} via ${model.baseURL ?? WORKER_DEFAULTS.modelBaseUrl}.`);
  } else {
    scripted = (await ScriptedModelServer.start()).respond(DEMO_MODEL, demoAgent);
    model = { baseURL: scripted.baseURL, defaultModel: DEMO_MODEL, workspace };
    say(
      'No OPENAI_API_KEY or OPENAI_BASE_URL is set, so this demo uses the bundled scripted offline model: ' +
        `a fixed policy, not an LLM, served over the same OpenAI-compatible HTTP API at ${scripted.baseURL} ` +
        'so the real client, workflow and activities all run. Set OPENAI_API_KEY to use a real model.',
    );
  }

  const server = await ensureLocalServer(say, localServer);
  say(`Temporal: ${server.address} (${server.description}).`);
  await prepareWorkspace(workspace, say);

  // A named server's namespace comes from its profile too (TEMPORAL_NAMESPACE still wins).
  const namespace = localServer.temporal?.namespace ?? localRun.namespace;
  // The offline model must not meet workers of a real deployment, so it gets a task queue of its own.
  const taskQueue = online ? localRun.taskQueue : DEMO_TASK_QUEUE;
  const { client, clientConnection, workerConnection } = await connectToLocalServer(
    server,
    namespace,
    say,
    encryption.dataConverter,
  );
  // Said only when on: the demo's other lines stay as they are for the usual run in clear.
  if (encryption.keyIds.length > 0)
    say(`${describePayloadEncryption(encryption).replace(/^p/, 'P')}; the web UI shows them as ciphertext.`);
  const worker = await createAgentWorker({
    connection: workerConnection,
    namespace,
    taskQueue,
    tools: createBuiltinTools({ workspace }),
    model,
    dataConverter: encryption.dataConverter,
  });

  const input: AgentInput = {
    ...(online && options.model ? { model: options.model } : {}),
    instructions: INSTRUCTIONS,
    tools: ['list_files', 'read_file', 'write_file', 'finish'],
    message: options.message,
    terminating: { toolIds: ['finish'], maxInvocations: 20 },
  };

  let exitCode: number = ExitCode.ok;
  try {
    await worker.runUntil(async () => {
      const startedAtMs = Date.now();
      const run = await startAgentRun(client, input, {
        workflowId: `demo-${new Date().toISOString().replace(/[:.]/g, '-')}`,
        taskQueue,
      });
      const link =
        server.uiUrl === undefined
          ? undefined
          : `${server.uiUrl}/namespaces/${namespace}/workflows/${run.workflowId}/${run.runId}/history`;
      say(`Started run ${run.workflowId} on task queue "${taskQueue}".${link ? ` Watch it: ${link}` : ''}`);
      // The demo's worker stops with it, so Ctrl-C ends the run rather than leave it with no worker.
      exitCode = await followRun(client, run.workflowId, { output: createOutput(false), policy: 'terminate' });
      // Said from what happened: a run the circuit breaker ended completes (exit 0) without having written it.
      if (exitCode === ExitCode.ok) {
        const line = await summaryLine(
          path.join(workspace, SUMMARY_FILE),
          startedAtMs,
          await getRunOutcome(client, run.workflowId),
        );
        if (line !== undefined) say(line);
      }
      if (link) say(`Web UI: ${link}`);
    });
  } finally {
    await clientConnection.close();
    await workerConnection.close();
    await scripted?.close();
    if (server.stop !== undefined) {
      await server.stop();
    } else if (localServer.address === undefined) {
      say('The dev server keeps running so you can browse the run; `npm run server:stop` stops it.');
    }
  }
  return exitCode;
}

/** Seeds the workspace with the example files the first time. */
async function prepareWorkspace(workspace: string, say: (line: string) => void): Promise<void> {
  await mkdir(workspace, { recursive: true });
  const present = (await readdir(workspace)).filter((name) => name !== SUMMARY_FILE);
  if (present.length > 0) {
    say(`Workspace: ${workspace} (${present.length} entries).`);
    return;
  }
  const examples = await readdir(EXAMPLES);
  await Promise.all(examples.map((name) => copyFile(path.join(EXAMPLES, name), path.join(workspace, name))));
  say(`Workspace: ${workspace} (seeded with ${examples.length} example files).`);
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  },
);
