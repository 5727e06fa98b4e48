import { randomUUID } from 'node:crypto';
import os from 'node:os';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { Command } from 'commander';
import type { ChatCompletionRequest, ScriptStep } from '../src/scripted-model/script';
import { WORKFLOW_TYPE, stateQuery, type AgentResult } from '../src/shared';
import { withLocalStack } from '../scripts/local-stack';
import { createBuiltinTools } from '../src/tools/builtin';
import { createAgentWorker } from '../src/worker';

/**
 * `npm run bench`: how much the durable loop costs on top of the model.
 * Runs many agent runs against a scripted model that answers at once, so
 * every millisecond measured is the runner's own (Temporal round trips,
 * activities, payloads), and prints the figures.
 */
const options = new Command()
  .option('--runs <n>', 'agent runs to measure', (value) => Number(value), 60)
  .option('--concurrency <n>', 'runs in flight at once', (value) => Number(value), 10)
  .option('--iterations <n>', 'model calls per run (each but the last asks for two parallel tool calls)', (value) => Number(value), 4)
  .parse()
  .opts<{ runs: number; concurrency: number; iterations: number }>();

const MODEL = 'bench-model';

/** Two calculator calls per iteration until the run has had `iterations - 1` of them, then an answer. */
function benchAgent(iterations: number) {
  return (request: ChatCompletionRequest): ScriptStep => {
    const done = request.messages.filter((message) => message.role === 'assistant').length;
    if (done + 1 >= iterations) return { content: `Finished after ${done} tool rounds.` };
    return {
      toolCalls: [
        { name: 'calculator', arguments: { expression: `${done} * 2` } },
        { name: 'calculator', arguments: { expression: `${done} + 2` } },
      ],
    };
  };
}

function percentile(sorted: number[], fraction: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))] ?? Number.NaN;
}

function megabytes(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

async function main(): Promise<void> {
  Runtime.install({ logger: new DefaultLogger('ERROR') });
  await withLocalStack(async ({ model, client, workerConnection }) => {
    model.respond(MODEL, benchAgent(options.iterations));
    const taskQueue = `bench-${randomUUID()}`;
    const worker = await createAgentWorker({
      connection: workerConnection,
      namespace: 'default',
      taskQueue,
      tools: createBuiltinTools({ workspace: os.tmpdir() }),
      model: { baseURL: model.baseURL, apiKey: 'unused', defaultModel: MODEL },
    });

    const runOnce = async (): Promise<{ latency: number; result: AgentResult; workflowId: string }> => {
      const started = performance.now();
      const handle = await client.workflow.start(WORKFLOW_TYPE, {
        taskQueue,
        workflowId: `bench-${randomUUID()}`,
        args: [{ tools: ['calculator'], message: 'Compute a few things.' }],
      });
      const result = (await handle.result()) as AgentResult;
      return { latency: performance.now() - started, result, workflowId: handle.workflowId };
    };

    await worker.runUntil(async () => {
      for (let warm = 0; warm < 5; warm++) await runOnce();
      global.gc?.();
      const memoryBefore = process.memoryUsage();

      const latencies: number[] = [];
      let iterations = 0;
      let lastWorkflowId = '';
      const started = performance.now();
      let next = 0;
      await Promise.all(
        Array.from({ length: options.concurrency }, async () => {
          while (next < options.runs) {
            next += 1;
            const { latency, result, workflowId } = await runOnce();
            latencies.push(latency);
            iterations += result.iterations;
            lastWorkflowId = workflowId;
          }
        }),
      );
      const elapsed = (performance.now() - started) / 1000;
      const memoryAfter = process.memoryUsage();

      const history = await client.workflow.getHandle(lastWorkflowId).fetchHistory();
      const queryTimes: number[] = [];
      for (let query = 0; query < 50; query++) {
        const queryStarted = performance.now();
        await client.workflow.getHandle(lastWorkflowId).query(stateQuery);
        queryTimes.push(performance.now() - queryStarted);
      }

      latencies.sort((left, right) => left - right);
      queryTimes.sort((left, right) => left - right);
      const toolCalls = 2 * (options.iterations - 1);
      console.log('');
      console.log(`agent-runner bench: ${options.runs} runs, ${options.concurrency} at a time, ${options.iterations} model calls and ${toolCalls} tool calls per run`);
      console.log(`machine: ${os.cpus().length} cores, node ${process.version}; model and worker in this process, Temporal dev server (in memory) beside it`);
      console.log(`throughput:        ${(options.runs / elapsed).toFixed(1)} runs/s, ${(iterations / elapsed).toFixed(1)} iterations/s`);
      console.log(`run latency:       p50 ${percentile(latencies, 0.5).toFixed(0)} ms, p95 ${percentile(latencies, 0.95).toFixed(0)} ms, max ${(latencies.at(-1) ?? 0).toFixed(0)} ms`);
      console.log(`per iteration:     ${(percentile(latencies, 0.5) / options.iterations).toFixed(1)} ms at p50 (model call + tool calls + workflow tasks)`);
      console.log(`history per run:   ${history.events?.length ?? 0} events`);
      console.log(`state query:       p50 ${percentile(queryTimes, 0.5).toFixed(1)} ms, p95 ${percentile(queryTimes, 0.95).toFixed(1)} ms`);
      console.log(`process memory:    rss ${megabytes(memoryBefore.rss)} -> ${megabytes(memoryAfter.rss)}, heap used ${megabytes(memoryBefore.heapUsed)} -> ${megabytes(memoryAfter.heapUsed)}`);
    });
  });
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
