import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { bundleWorkflowCode, NativeConnection, Worker } from '@temporalio/worker';
import { z } from 'zod';
import { createActivities } from '../../src/activities';
import { buildApiServer } from '../../src/api/server';
import { ScriptedModelServer } from '../../src/scripted-model/server';
import type { ChatCompletionRequest, ScriptStep } from '../../src/scripted-model/script';
import { WORKFLOW_TYPE } from '../../src/shared/defaults/names';
import { evaluateArithmetic } from '../../src/tools/builtin/arithmetic';
import { defineTool } from '../../src/tools/define-tool';
import { createToolRegistry } from '../../src/tools/tool-registry';
import { startDevServer } from '../../src/dev-server/dev-server';
import { freePort } from '../../src/os/ports';
import { AGENT_PRELOADED_MODULES } from '../../src/worker/plugin';
import { createAgentWorker } from '../../src/worker';
import { actionCounts, type ActionCounts } from './prometheus';
import { watchWithConsole } from './console-watch';

/**
 * `npm run bench -- --only actions`: what a run costs in Temporal actions, read from the dev server's own `action`
 * counter (`--metrics-port`), never estimated. Each scenario runs in a namespace of its own, so all run side by side
 * and each namespace's count is one run's: the bare Temporal loop (one model activity, one tool activity per
 * iteration: the peer's shape), the runner unwatched, and the runner followed by the `agent-runner watch` process,
 * by one and by ten SSE clients of `GET /runs/:id/events` through one API server. Every run makes `iterations` model
 * calls and one calculator call (a regular activity) after each but the last, against the same scripted model
 * answering after the latency.
 */

/** The calculator as a regular activity: the runner's own is a local activity, which the peer has no equal of. */
const ACTIVITY_CALCULATOR = 'calculator_activity';

/** How a run is watched while it runs. */
const WATCH_FORMS = ['unwatched', 'cli', 'sse-1', 'sse-10', 'console'] as const;

/** The runs the `console` scenario runs side by side, each with its page open in the console (the 20). */
const CONSOLE_RUNS = 20;
type WatchForm = (typeof WATCH_FORMS)[number];

/** A scenario: the bare loop, the runner watched in one of the forms, or the runner with its calculator local. */
type ScenarioKind = 'bare' | 'local' | WatchForm;

/** One scenario's run: its namespace's actions by type, and how long it took. */
export interface ScenarioResult {
  latencyMs: number;
  iterations: number;
  kind: ScenarioKind;
  namespace: string;
  /** Runs in the scenario's namespace: {@link CONSOLE_RUNS} for `console`, else 1. */
  runs: number;
  actions: Map<string, number>;
  seconds: number;
}

export interface ActionsBenchOptions {
  /** The model's latency of each case, with the model calls per run at that latency. */
  cases: readonly { latencyMs: number; iterations: number }[];
  log: (line: string) => void;
}

const API_TOKEN = `actions-bench-${randomUUID()}`;

const activityCalculator = defineTool({
  name: ACTIVITY_CALCULATOR,
  description: 'Evaluate an arithmetic expression.',
  parameters: z.object({ expression: z.string() }),
  execute: ({ expression }) => String(evaluateArithmetic(expression)),
});

/** The same calculator as a local activity, as the runner's built-in one runs: the `local` scenario's. */
const localCalculator = defineTool({ ...activityCalculator, local: true });

/** One calculator call after each answer but the last, each answer after `latencyMs`. */
function benchModel(iterations: number, latencyMs: number) {
  return (request: ChatCompletionRequest): ScriptStep => {
    const done = request.messages.filter((message) => message.role === 'assistant').length;
    if (done + 1 >= iterations) return { content: `Finished after ${done} calculations.`, delayMs: latencyMs };
    return {
      toolCalls: [{ name: ACTIVITY_CALCULATOR, arguments: { expression: `${done} * 3 + 1` } }],
      delayMs: latencyMs,
    };
  };
}

/**
 * Runs every case's scenarios side by side on one dev server, the console's after the others, and reads each
 * namespace's actions once all ended.
 */
export async function benchActions(options: ActionsBenchOptions): Promise<ScenarioResult[]> {
  const { log } = options;
  const scenarios = options.cases.flatMap(({ latencyMs, iterations }) =>
    (['bare', 'local', ...WATCH_FORMS] as const).map((kind) => ({
      latencyMs,
      iterations,
      kind,
      namespace: `actions-${latencyMs}ms-${kind}`,
      runs: kind === 'console' ? CONSOLE_RUNS : 1,
    })),
  );
  const metricsPort = await freePort();
  const server = await startDevServer({
    port: 0,
    uiPort: 0,
    metricsPort,
    namespaces: scenarios.map((scenario) => scenario.namespace),
    log: () => undefined,
  });
  const model = await ScriptedModelServer.start();
  const workerConnection = await NativeConnection.connect({ address: server.address });
  const clientConnection = await Connection.connect({ address: server.address });
  const cleanups: (() => Promise<unknown>)[] = [];
  try {
    const agentBundle = await bundleWorkflowCode({
      workflowsPath: require.resolve('../../src/workflows'),
      preloadModules: [...AGENT_PRELOADED_MODULES],
      logger: quietBundlerLogger,
    });
    const bareBundle = await bundleWorkflowCode({
      workflowsPath: require.resolve('../anchors/bare-loop-workflow'),
      logger: quietBundlerLogger,
    });
    const settings = { baseURL: model.baseURL, apiKey: 'unused', defaultModel: 'actions-bench' };
    // Priced, as a deployment's runs are: the cost rides on the attribute upserts, which this counts.
    const prices = Object.fromEntries(
      scenarios.map((scenario) => [modelNameOf(scenario), { inputPerMTok: 3, outputPerMTok: 15 }]),
    );
    const registry = createToolRegistry([activityCalculator]);
    const workers: Worker[] = [];
    for (const scenario of scenarios) {
      const taskQueue = `actions-${scenario.kind}`;
      workers.push(
        scenario.kind === 'bare'
          ? await Worker.create({
              connection: workerConnection,
              namespace: scenario.namespace,
              taskQueue,
              workflowBundle: { code: bareBundle.code },
              // The peer streams nothing: no stream listener, no announcement.
              activities: createActivities({ registry, model: { ...settings, stream: false }, hub: false }),
            })
          : await createAgentWorker({
              connection: workerConnection,
              namespace: scenario.namespace,
              taskQueue,
              tools: [scenario.kind === 'local' ? localCalculator : activityCalculator],
              model: { ...settings, prices },
              workflowBundle: { code: agentBundle.code },
            }),
      );
    }
    log(`${scenarios.length} scenarios in ${scenarios.length} namespaces on ${server.address}, one worker each`);
    const before = await readActions(metricsPort);
    const runEach = (batch: typeof scenarios) =>
      Promise.all(
        batch.map(async (scenario) => {
          const modelName = modelNameOf(scenario);
          model.respond(modelName, benchModel(scenario.iterations, scenario.latencyMs));
          const client = new Client({ connection: clientConnection, namespace: scenario.namespace });
          const started = performance.now();
          await runScenario(scenario, client, server.address, modelName, cleanups);
          const seconds = (performance.now() - started) / 1000;
          log(`${scenario.namespace}: ended in ${seconds.toFixed(1)} s`);
          return { ...scenario, seconds };
        }),
      );
    // The console's 20 runs a latency start only after the gated single runs ended, so their load cannot move those.
    const runAll = (async () => {
      const single = await runEach(scenarios.filter((scenario) => scenario.kind !== 'console'));
      return [...single, ...(await runEach(scenarios.filter((scenario) => scenario.kind === 'console')))];
    })();
    const ran = await runUntilAll(workers, runAll);
    const after = await settledActions(metricsPort, new Set(scenarios.map((scenario) => scenario.namespace)));
    return ran.map((scenario) => ({ ...scenario, actions: difference(after, before, scenario.namespace) }));
  } finally {
    for (const cleanup of cleanups) await cleanup().catch(() => undefined);
    await clientConnection.close();
    await workerConnection.close();
    await model.close();
    await server.stop();
  }
}

/** One scenario's run, watched as its kind says, to its end and its followers' ends. */
async function runScenario(
  scenario: { kind: ScenarioKind; iterations: number; namespace: string },
  client: Client,
  address: string,
  modelName: string,
  cleanups: (() => Promise<unknown>)[],
): Promise<void> {
  const taskQueue = `actions-${scenario.kind}`;
  const workflowId = `actions-${scenario.kind}-${randomUUID().slice(0, 8)}`;
  const message = 'Calculate, one step at a time.';
  if (scenario.kind === 'bare') {
    const iterations = await client.workflow.execute('bareLoopWorkflow', {
      taskQueue,
      workflowId,
      args: [{ model: modelName, message, tools: [ACTIVITY_CALCULATOR] }],
    });
    if (iterations !== scenario.iterations) throw new Error(`the bare loop ran ${iterations} iterations`);
    return;
  }
  if (scenario.kind === 'console') {
    const handles = await Promise.all(
      Array.from({ length: CONSOLE_RUNS }, (_, index) =>
        client.workflow.start(WORKFLOW_TYPE, {
          taskQueue,
          workflowId: `${workflowId}-${index}`,
          args: [{ model: modelName, tools: [ACTIVITY_CALCULATOR], message }],
        }),
      ),
    );
    await watchWithConsole(
      client,
      taskQueue,
      API_TOKEN,
      handles.map((handle) => handle.workflowId),
      cleanups,
    );
    for (const handle of handles) {
      const result = (await handle.result()) as { iterations?: number; invocations?: number };
      if ((result.invocations ?? result.iterations) !== scenario.iterations)
        throw new Error(`${scenario.namespace}: a run made ${result.invocations ?? result.iterations} model calls`);
    }
    return;
  }
  const handle = await client.workflow.start(WORKFLOW_TYPE, {
    taskQueue,
    workflowId,
    args: [{ model: modelName, tools: [ACTIVITY_CALCULATOR], message }],
  });
  if (scenario.kind === 'cli') await watchWithCli(address, scenario.namespace, workflowId);
  if (scenario.kind === 'sse-1' || scenario.kind === 'sse-10') {
    const clients = scenario.kind === 'sse-1' ? 1 : 10;
    const api = buildApiServer({
      client,
      taskQueue,
      auth: { token: API_TOKEN },
      defaults: { tools: [ACTIVITY_CALCULATOR] },
    });
    cleanups.push(() => api.close());
    await api.listen({ host: '127.0.0.1', port: 0 });
    const { port } = api.server.address() as { port: number };
    const url = `http://127.0.0.1:${port}/runs/${encodeURIComponent(workflowId)}/events`;
    await Promise.all(Array.from({ length: clients }, () => readToEnd(url)));
  }
  const result = (await handle.result()) as { iterations?: number; invocations?: number };
  const calls = result.invocations ?? result.iterations;
  if (calls !== scenario.iterations) throw new Error(`${scenario.namespace}: the run made ${calls} model calls`);
}

/** `agent-runner watch <run>` in a process of its own, to the run's end. */
function watchWithCli(address: string, namespace: string, workflowId: string): Promise<void> {
  const tsx = path.resolve(__dirname, '..', '..', 'node_modules', '.bin', 'tsx');
  const cli = path.resolve(__dirname, '..', '..', 'src', 'cli', 'index.ts');
  return new Promise((resolve, reject) => {
    const child = spawn(tsx, [cli, 'watch', workflowId], {
      env: { ...process.env, TEMPORAL_ADDRESS: address, TEMPORAL_NAMESPACE: namespace },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let errors = '';
    child.stderr?.on('data', (chunk: Buffer) => (errors = (errors + chunk.toString()).slice(-2000)));
    child.on('error', reject);
    child.on('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(`agent-runner watch exited with ${code}: ${errors}`)),
    );
  });
}

/** Reads an SSE stream to its end. */
async function readToEnd(url: string): Promise<void> {
  const response = await fetch(url, { headers: { authorization: `Bearer ${API_TOKEN}` } });
  if (response.status !== 200 || response.body === null) throw new Error(`GET ${url} answered ${response.status}`);
  const reader = response.body.getReader();
  for (;;) {
    const { done } = await reader.read();
    if (done) return;
  }
}

/** Runs every worker until `work` settles; its value. */
async function runUntilAll<T>(workers: Worker[], work: Promise<T>): Promise<T> {
  const [first, ...rest] = workers;
  if (first === undefined) return work;
  return first.runUntil(() => runUntilAll(rest, work));
}

async function readActions(metricsPort: number): Promise<ActionCounts> {
  const response = await fetch(`http://127.0.0.1:${metricsPort}/metrics`);
  return actionCounts(await response.text());
}

/** The counts once they stopped moving (a late heartbeat or query is counted as it reaches the server). */
async function settledActions(metricsPort: number, namespaces: ReadonlySet<string>): Promise<ActionCounts> {
  const signature = (counts: ActionCounts) =>
    JSON.stringify([...counts].filter(([label]) => labels.has(label)).map(([label, types]) => [label, [...types]]));
  const labels = new Set([...namespaces].map(metricLabel));
  let last = await readActions(metricsPort);
  for (let stable = 0; stable < 3;) {
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const next = await readActions(metricsPort);
    stable = signature(next) === signature(last) ? stable + 1 : 0;
    last = next;
  }
  return last;
}

/** A namespace as the server's metrics name it: what is not a letter, digit or `_` becomes `_`. */
function metricLabel(namespace: string): string {
  return namespace.replace(/[^A-Za-z0-9_]/g, '_');
}

function difference(after: ActionCounts, before: ActionCounts, namespace: string): Map<string, number> {
  const result = new Map<string, number>();
  const label = metricLabel(namespace);
  for (const [type, value] of after.get(label) ?? new Map<string, number>()) {
    const delta = value - (before.get(label)?.get(type) ?? 0);
    if (delta !== 0) result.set(type, delta);
  }
  return result;
}

const quietBundlerLogger = {
  trace() {},
  debug() {},
  info() {},
  warn() {},
  error: (message: string) => console.error(message),
  log() {},
};

/** Where the bench's figures come from, for its report's header. */
export function machineLine(): string {
  return `${os.cpus().length} cores, load ${os
    .loadavg()
    .map((value) => value.toFixed(1))
    .join(' ')}, node ${process.version}`;
}

/** The scripted model a scenario's runs ask for: one per latency and length, priced for the runner's workers. */
function modelNameOf(scenario: { latencyMs: number; iterations: number }): string {
  return `actions-${scenario.latencyMs}-${scenario.iterations}`;
}
