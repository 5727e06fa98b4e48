import { median } from '../statistics';
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import OpenAI from 'openai';
import { createActivities } from '../../src/activities';
import type { ChatCompletionRequest, ScriptStep } from '../../src/scripted-model/script';
import { ScriptedModelServer } from '../../src/scripted-model/server';
import { WORKFLOW_TYPE } from '../../src/shared/defaults/names';
import { type AgentResult } from '../../src/shared/agent-result';
import { startDevServer } from '../../src/dev-server/dev-server';
import { createBuiltinTools } from '../../src/tools/builtin';
import { createToolRegistry } from '../../src/tools/tool-registry';
import { createAgentWorker } from '../../src/worker';
import { inProcessLoop } from './in-process-loop';

/** One measurement: a dev server, a run's length and the model's latency. */
export interface ComparisonCase {
  server: 'stock' | 'tuned';
  /** Model calls per run: one calculator call each but the last, which answers in text. */
  iterations: number;
  /** The scripted model's latency per call. */
  latencyMs: number;
  /**
   * Bytes of each tool result: past 0, each call reads a file of this size
   * (`read_file`) instead of calling the calculator, so the conversation
   * soon passes what a model call carries inline and the runner's calls read
   * it by query, while the bare loop carries it whole. @default 0
   */
  resultBytes?: number;
}

/** How the three loops are compared. */
export interface ComparisonOptions {
  /** Measured runs of each loop (after one warm-up each), interleaved. */
  runs: number;
  /** What to measure; cases on one server share its dev server and workers. */
  cases: ComparisonCase[];
  log: (line: string) => void;
}

/**
 * The default comparison: 10-iteration runs at 0 and 500 ms on both servers,
 * 20-iteration runs at 0 and 500 ms on the tuned one (where the targets are
 * set), and there a 20-iteration run at 0 ms with 4 KB tool results (what a
 * model call that reads its conversation by query costs) and a run of one
 * model call that answers at once (what starting and ending a run costs: a
 * chat turn, a nested agent).
 */
export function defaultComparisonCases(latenciesMs: readonly number[] = [0, 500], iterations = 10): ComparisonCase[] {
  return [
    ...(['stock', 'tuned'] as const).flatMap((server) =>
      latenciesMs.map((latencyMs) => ({ server, iterations, latencyMs })),
    ),
    ...latenciesMs.map((latencyMs) => ({ server: 'tuned' as const, iterations: 20, latencyMs })),
    { server: 'tuned', iterations: 20, latencyMs: 0, resultBytes: LARGE_RESULT_BYTES },
    { server: 'tuned', iterations: 1, latencyMs: 0 },
  ];
}

/** One case: milliseconds per iteration (median over the runs) of each loop. */
export interface ComparisonRow extends ComparisonCase {
  inProcess: number;
  bare: number;
  runner: number;
}

/** The large tool results' size in the default comparison: 20 of them pass 8 KiB many times over. */
const LARGE_RESULT_BYTES = 4096;

/**
 * One tool call per model call until `iterations - 1` of them, then an answer;
 * each call takes `delayMs`. The tool is the calculator, or `read_file` of
 * `file` when the case has large results.
 */
function anchorAgent(iterations: number, delayMs: number, file: string | undefined) {
  return (request: ChatCompletionRequest): ScriptStep => {
    const done = request.messages.filter((message) => message.role === 'assistant').length;
    if (done + 1 >= iterations) return { content: `Finished after ${done} tool calls.`, delayMs };
    const call =
      file === undefined
        ? { name: 'calculator', arguments: { expression: `${done} * 2` } }
        : { name: 'read_file', arguments: { path: file } };
    return { toolCalls: [call], delayMs };
  };
}

/** Writes a file of `bytes` bytes in the tools' workspace (the temporary directory) and returns its name there. */
function writeResultFile(bytes: number): string {
  const name = `agent-runner-anchor-${bytes}-${process.pid}.txt`;
  writeFileSync(path.join(os.tmpdir(), name), 'All work and no play. '.repeat(Math.ceil(bytes / 22)).slice(0, bytes));
  return name;
}

/**
 * The runner against its anchors, side by side: the in-process loop (same
 * client, same scripted server, no Temporal) and the bare Temporal loop (one
 * model activity, one tool activity per iteration), each on the stock dev
 * server and on the dev server as the project starts it (queue read limit
 * lifted, eager activities). Runs of the three loops are interleaved, so
 * they share the machine's state.
 */
export async function compareLoops(options: ComparisonOptions): Promise<ComparisonRow[]> {
  const rows: ComparisonRow[] = [];
  const model = await ScriptedModelServer.start();
  const registry = createToolRegistry(createBuiltinTools({ workspace: os.tmpdir() }));
  const openai = new OpenAI({ baseURL: model.baseURL, apiKey: 'unused', maxRetries: 0 });
  try {
    for (const server of ['stock', 'tuned'] as const) {
      const cases = options.cases.filter((entry) => entry.server === server);
      if (cases.length === 0) continue;
      const dev = await startDevServer({ port: 0, uiPort: 0, stock: server === 'stock', log: () => undefined });
      const workerConnection = await NativeConnection.connect({ address: dev.address });
      const clientConnection = await Connection.connect({ address: dev.address });
      const client = new Client({ connection: clientConnection });
      const modelSettings = { baseURL: model.baseURL, apiKey: 'unused', defaultModel: 'anchor' };
      const runnerQueue = `anchor-runner-${randomUUID()}`;
      const bareQueue = `anchor-bare-${randomUUID()}`;
      const runnerWorker = await createAgentWorker({
        connection: workerConnection,
        namespace: 'default',
        taskQueue: runnerQueue,
        tools: createBuiltinTools({ workspace: os.tmpdir() }),
        model: modelSettings,
      });
      const bareWorker = await Worker.create({
        connection: workerConnection,
        namespace: 'default',
        taskQueue: bareQueue,
        workflowsPath: require.resolve('./bare-loop-workflow'),
        activities: createActivities({ registry, model: modelSettings }),
      });
      try {
        await runnerWorker.runUntil(() =>
          bareWorker.runUntil(async () => {
            for (const { iterations: expected, latencyMs, resultBytes = 0 } of cases) {
              const modelName = `anchor-${server}-${expected}-${latencyMs}-${resultBytes}`;
              const file = resultBytes > 0 ? writeResultFile(resultBytes) : undefined;
              const tools = file === undefined ? ['calculator'] : ['read_file'];
              model.respond(modelName, anchorAgent(expected, latencyMs, file));
              const loops = {
                inProcess: () => inProcessLoop(openai, registry, modelName, 'Double a few numbers.', tools),
                bare: () =>
                  client.workflow.execute('bareLoopWorkflow', {
                    taskQueue: bareQueue,
                    workflowId: `anchor-bare-${randomUUID()}`,
                    args: [{ model: modelName, message: 'Double a few numbers.', tools }],
                  }) as Promise<number>,
                runner: async () =>
                  (
                    (await client.workflow.execute(WORKFLOW_TYPE, {
                      taskQueue: runnerQueue,
                      workflowId: `anchor-runner-${randomUUID()}`,
                      args: [{ model: modelName, tools, message: 'Double a few numbers.' }],
                    })) as AgentResult
                  ).iterations,
              };
              const times: Record<keyof typeof loops, number[]> = { inProcess: [], bare: [], runner: [] };
              for (let run = -1; run < options.runs; run += 1) {
                for (const name of Object.keys(loops) as (keyof typeof loops)[]) {
                  const started = performance.now();
                  const iterations = await loops[name]();
                  if (iterations !== expected)
                    throw new Error(`the ${name} loop ran ${iterations} iterations, not ${expected}`);
                  if (run >= 0) times[name].push((performance.now() - started) / iterations);
                }
              }
              const row = {
                server,
                iterations: expected,
                latencyMs,
                resultBytes,
                inProcess: median(times.inProcess),
                bare: median(times.bare),
                runner: median(times.runner),
              };
              const results = resultBytes > 0 ? `, ${resultBytes}-byte tool results` : '';
              options.log(
                `[anchors] ${server} server, ${expected} iterations, ${latencyMs} ms model${results}: in-process ${row.inProcess.toFixed(1)}, bare ${row.bare.toFixed(1)}, runner ${row.runner.toFixed(1)} ms per iteration`,
              );
              rows.push(row);
            }
          }),
        );
      } finally {
        await clientConnection.close();
        await workerConnection.close();
        await dev.stop();
      }
    }
  } finally {
    await model.close();
  }
  return rows;
}

/** The comparison as a table: milliseconds per iteration and the runner's ratios to its anchors. */
export function comparisonTable(rows: ComparisonRow[]): string[] {
  const lines = [
    '| dev server | iterations | model latency | tool results | in-process | bare Temporal loop | runner | runner / bare | runner / in-process |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- |',
  ];
  for (const row of rows) {
    const server = row.server === 'stock' ? 'stock `start-dev`' : 'as the project starts it';
    lines.push(
      `| ${server} | ${row.iterations} | ${row.latencyMs} ms | ${row.resultBytes ? `${row.resultBytes} B` : 'calculator'} | ${row.inProcess.toFixed(1)} ms | ${row.bare.toFixed(1)} ms | ${row.runner.toFixed(1)} ms | ${(row.runner / row.bare).toFixed(2)}× | ${(row.runner / row.inProcess).toFixed(2)}× |`,
    );
  }
  return lines;
}
