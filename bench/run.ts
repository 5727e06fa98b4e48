import { median, percentile } from './statistics';
import { randomUUID } from 'node:crypto';
import os from 'node:os';
import { DefaultLogger, Runtime, type NativeConnection } from '@temporalio/worker';
import { Command } from 'commander';
import type { ChatCompletionRequest, ScriptStep } from '../src/scripted-model/script';
import type { ScriptedModelServer } from '../src/scripted-model/server';
import { WORKFLOW_TYPE } from '../src/shared/defaults/names';
import { stateQuery } from '../src/workflow-contract/definitions';
import { type AgentResult } from '../src/shared/agent-result';
import type { Client } from '@temporalio/client';
import { buildApiServer } from '../src/api/server';
import { withLocalStack } from '../scripts/local-stack';
import { createBuiltinTools } from '../src/tools/builtin';
import { temporalRunsOf } from '../src/temporal/run-chain';
import { createAgentWorker } from '../src/worker';
import { benchHistoryGrowth } from './history-growth';
import { benchCompactedLongRun } from './compacted-long-run';
import { benchStreaming } from './streaming';
import { comparisonTable, compareLoops, defaultComparisonCases } from './anchors/compare-loops';
import { benchInFlight, inFlightLines } from './inflight/in-flight';
import { benchNestedOverhead } from './nested-overhead';
import {
  caseLabel,
  codecVariant,
  definedEchoVariant,
  featureCostTable,
  mcpEchoVariant,
  measureFeatureCost,
} from './features/feature-cost';
import { measureTracingCost, threadsLabel } from './features/tracing-cost';
import { benchActions, machineLine } from './actions/actions';
import { actionsReport } from './actions/report';

/**
 * `npm run bench`: how much the durable loop costs on top of the model.
 * Runs many agent runs against a scripted model that answers at once, so
 * every millisecond measured is the runner's own (Temporal round trips,
 * activities, payloads), and prints the figures.
 */
const program = new Command()
  .option('--runs <n>', 'agent runs to measure', (value) => Number(value), 60)
  .option('--concurrency <n>', 'runs in flight at once', (value) => Number(value), 10)
  .option(
    '--iterations <n>',
    'model calls per run (each but the last asks for two parallel tool calls)',
    (value) => Number(value),
    4,
  )
  .option('--conversations <n>', 'conversations driven through the HTTP API at once', (value) => Number(value), 10)
  .option('--turns <n>', 'chat turns per conversation', (value) => Number(value), 5)
  .option(
    '--long <n>',
    'iterations of the long run, measured with and without continue-as-new',
    (value) => Number(value),
    60,
  )
  .option('--per-run <n>', 'iterations per Temporal run of the long run', (value) => Number(value), 10)
  .option('--anchor-runs <n>', 'measured runs of each loop in the anchor comparison', (value) => Number(value), 5)
  .option('--anchor-iterations <n>', 'model calls per run in the anchor comparison', (value) => Number(value), 10)
  .option(
    '--anchor-latencies <ms,...>',
    "the scripted model's latencies in the anchor comparison",
    (value) => value.split(',').map(Number),
    [0, 500],
  )
  .option('--stream-runs <n>', 'runs per transport in the streaming section', (value) => Number(value), 3)
  .option('--stream-tokens <n>', 'tokens per streamed answer (one every 20 ms)', (value) => Number(value), 50)
  .option(
    '--history-lengths <n,...>',
    'iterations of the runs whose history is measured against their content',
    (value) => value.split(',').map(Number),
    [25, 50, 100],
  )
  .option('--history-result-bytes <n>', 'bytes of each tool result in the history runs', (value) => Number(value), 4096)
  .option(
    '--history-per-run <n>',
    'the history runs again, continuing as new every n iterations, without and with compaction (0: not)',
    (value) => Number(value),
    10,
  )
  .option(
    '--history-compaction-tokens <n>',
    'compaction.maxTokens of the history runs with compaction',
    (value) => Number(value),
    8000,
  )
  .option(
    '--compacted-long-iterations <n>',
    'iterations of the compacted long run (--only compacted-long; about 15 minutes)',
    (value) => Number(value),
    10_000,
  )
  .option(
    '--compacted-long-tokens <n>',
    'compaction.maxTokens of the compacted long run',
    (value) => Number(value),
    2000,
  )
  .option(
    '--anchor-servers <name,...>',
    'the dev servers of the anchor comparison: stock, tuned',
    (value) => value.split(','),
    ['stock', 'tuned'],
  )
  .option(
    '--inflight-runs <n>',
    'runs in flight at once on one worker in the inflight section',
    (value) => Number(value),
    1000,
  )
  .option(
    '--inflight-iterations <n>',
    'model calls per run in the inflight section (1 s each)',
    (value) => Number(value),
    3,
  )
  .option('--feature-runs <n>', 'measured runs of each variant in the features section', (value) => Number(value), 5)
  .option(
    '--tracing-rounds <n>',
    'processes of each kind (plain, tracing) in the tracing section',
    (value) => Number(value),
    3,
  )
  .option(
    '--only <section>',
    'run one section: anchors, features, history, streaming, inflight, compacted-long, nested, mcp, tracing or actions (the last six only when named; features includes mcp and tracing)',
  )
  .option(
    '--action-latencies <ms,...>',
    "the actions section's model latencies",
    (value) => value.split(',').map(Number),
    [500, 3000, 20_000],
  )
  .option('--action-iterations <n>', 'model calls per run in the actions section', (value) => Number(value), 10)
  .option(
    '--short',
    'with --only actions: the short form CI runs (10 model calls per run at 0.5, 3 and 10 s), failing when a budget is passed',
  )
  .option('--budgets', 'with --only actions: fail when a budget is passed')
  .parse();
const options = program.opts<{
  runs: number;
  concurrency: number;
  iterations: number;
  conversations: number;
  turns: number;
  long: number;
  perRun: number;
  anchorRuns: number;
  anchorIterations: number;
  anchorLatencies: number[];
  historyLengths: number[];
  historyResultBytes: number;
  historyPerRun: number;
  historyCompactionTokens: number;
  compactedLongIterations: number;
  compactedLongTokens: number;
  streamRuns: number;
  streamTokens: number;
  anchorServers: string[];
  inflightRuns: number;
  inflightIterations: number;
  featureRuns: number;
  tracingRounds: number;
  actionLatencies: number[];
  actionIterations: number;
  short?: boolean;
  budgets?: boolean;
  only?: string;
}>();

const MODEL = 'bench-model';
const CHAT_MODEL = 'bench-chat-model';
const LONG_MODEL = 'bench-long-model';
const TOKEN = 'bench-token-0123456789';

/** A chat turn: one calculator call after each human message, then an answer. */
function chatAgent(request: ChatCompletionRequest): ScriptStep {
  const last = request.messages.at(-1);
  if (last?.role === 'tool') return { content: `The result is ${last.content ?? ''}.` };
  return { toolCalls: [{ name: 'calculator', arguments: { expression: `${request.messages.length} * 3` } }] };
}

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

/** One calculator call per iteration, its arguments 2 KB long, until `iterations - 1` of them, then an answer. */
function longAgent(iterations: number) {
  return (request: ChatCompletionRequest): ScriptStep => {
    const done = request.messages.filter((message) => message.role === 'assistant').length;
    if (done + 1 >= iterations) return { content: `Finished after ${done} tool calls.` };
    return { toolCalls: [{ name: 'calculator', arguments: { expression: `${done} + ${'0 + '.repeat(500)}1` } }] };
  };
}

/** The actions section: each scenario's Temporal actions from the server's own counter, and the budgets. */
async function benchActionsSection(): Promise<void> {
  // The short form: enough calls that the follower's first read (one query) does not weigh as a per-iteration cost.
  const short = options.short === true;
  const iterations =
    short && program.getOptionValueSource('actionIterations') === 'default' ? 10 : options.actionIterations;
  const latencies =
    short && program.getOptionValueSource('actionLatencies') === 'default'
      ? [500, 3000, 10_000]
      : options.actionLatencies;
  console.log(
    `Temporal actions per run (the dev server's \`action\` counter): ${iterations} model calls per run at ${latencies.map((ms) => `${ms / 1000} s`).join(', ')}; ${machineLine()}`,
  );
  const results = await benchActions({
    cases: latencies.map((latencyMs) => ({ latencyMs, iterations })),
    log: (line) => console.log(`  ${line}`),
  });
  const { lines, checks } = actionsReport(results);
  console.log('');
  for (const line of lines) console.log(line);
  if ((options.short === true || options.budgets === true) && checks.some((check) => !check.pass)) process.exitCode = 1;
}

function megabytes(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

async function main(): Promise<void> {
  Runtime.install({ logger: new DefaultLogger('ERROR') });
  if (options.only === 'actions') {
    await benchActionsSection();
    return;
  }
  if (options.only === 'nested') {
    await benchNestedOverhead({ log: (line) => console.log(line) });
    return;
  }
  if (options.only === 'inflight') {
    const report = await benchInFlight({
      runs: options.inflightRuns,
      iterations: options.inflightIterations,
      log: (line) => console.log(line),
    });
    console.log('');
    for (const line of inFlightLines(report, options.inflightIterations)) console.log(line);
    if (report.failed > 0) process.exitCode = 1;
    return;
  }
  const streaming = (stack: { client: Client; workerConnection: NativeConnection; model: ScriptedModelServer }) =>
    benchStreaming({
      ...stack,
      runs: options.streamRuns,
      tokens: options.streamTokens,
      tokenDelayMs: 20,
      log: (line) => console.log(line),
    });
  if (options.only === 'streaming') {
    await withLocalStack(streaming);
    return;
  }
  if (options.only === undefined || options.only === 'anchors') await benchAnchors();
  if (options.only === undefined || options.only === 'features') await benchFeatures();
  if (options.only === 'mcp') await benchMcpCost();
  if (options.only === 'tracing') await benchTracing();
  if (options.only === undefined || options.only === 'history') {
    await benchHistoryGrowth({
      lengths: options.historyLengths,
      resultBytes: options.historyResultBytes,
      ...(options.historyPerRun > 0 ? { perRun: options.historyPerRun } : {}),
      compactionTokens: options.historyCompactionTokens,
    });
  }
  if (options.only === 'compacted-long')
    await benchCompactedLongRun({
      iterations: options.compactedLongIterations,
      maxTokens: options.compactedLongTokens,
    });
  if (options.only !== undefined) return;
  await withLocalStack(async ({ model, client, workerConnection }) => {
    model.respond(MODEL, benchAgent(options.iterations));
    model.respond(CHAT_MODEL, chatAgent);
    model.respond(LONG_MODEL, longAgent(options.long));
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
      console.log(
        `agent-runner bench: ${options.runs} runs, ${options.concurrency} at a time, ${options.iterations} model calls and ${toolCalls} tool calls per run`,
      );
      console.log(
        `machine: ${os.cpus().length} cores, node ${process.version}; model and worker in this process, Temporal dev server (in memory) beside it`,
      );
      console.log(
        `throughput:        ${(options.runs / elapsed).toFixed(1)} runs/s, ${(iterations / elapsed).toFixed(1)} iterations/s`,
      );
      console.log(
        `run latency:       p50 ${percentile(latencies, 0.5).toFixed(0)} ms, p95 ${percentile(latencies, 0.95).toFixed(0)} ms, max ${(latencies.at(-1) ?? 0).toFixed(0)} ms`,
      );
      console.log(
        `per iteration:     ${(percentile(latencies, 0.5) / options.iterations).toFixed(1)} ms at p50 (model call + tool calls + workflow tasks)`,
      );
      console.log(`history per run:   ${history.events?.length ?? 0} events`);
      console.log(
        `state query:       p50 ${percentile(queryTimes, 0.5).toFixed(1)} ms, p95 ${percentile(queryTimes, 0.95).toFixed(1)} ms`,
      );
      console.log(
        `process memory:    rss ${megabytes(memoryBefore.rss)} -> ${megabytes(memoryAfter.rss)}, heap used ${megabytes(memoryBefore.heapUsed)} -> ${megabytes(memoryAfter.heapUsed)}`,
      );

      await benchChat(client, taskQueue);
      await benchLongRun(client, taskQueue);
    });
    await streaming({ client, workerConnection, model });
  });
}

/**
 * The runner against its anchors, measured in this run: an in-process loop
 * and a bare Temporal loop, on the stock dev server and on the dev server as
 * the project starts it.
 */
async function benchAnchors(): Promise<void> {
  const cases = defaultComparisonCases(options.anchorLatencies, options.anchorIterations).filter((entry) =>
    options.anchorServers.includes(entry.server),
  );
  const rows = await compareLoops({ runs: options.anchorRuns, cases, log: (line) => console.log(line) });
  console.log('');
  console.log(
    `the runner against its anchors: ${options.anchorRuns} runs of each loop, interleaved, n model calls and n - 1 tool calls per run; median ms per iteration`,
  );
  for (const line of comparisonTable(rows)) console.log(line);
}

/**
 * What payload encryption, an MCP tool ({@link benchMcpCost}) and tracing cost per iteration: the same runs without
 * and with each, on the tuned dev
 * server, 20 iterations with the calculator's few bytes and with 4 KB tool results against a model that answers at
 * once (the runner's own cost, magnified), and 5 iterations against a model that takes 500 ms (what a user sees).
 */
async function benchFeatures(): Promise<void> {
  const cases = FEATURE_CASES;
  const codec = await measureFeatureCost({
    variants: [codecVariant()],
    cases,
    runs: options.featureRuns,
    log: (line) => console.log(line),
  });
  const tracing = await tracingRows();
  console.log('');
  console.log(
    `what payload encryption costs: ${options.featureRuns} runs of each variant, interleaved in one process; median ms per iteration and the ratio to plain runs`,
  );
  for (const line of featureCostTable(codec)) console.log(line);
  console.log('');
  await benchMcpCost();
  console.log('');
  printTracing(tracing);
}

/** The runs each feature is measured on: the runner's own cost magnified (a model answering at once), and a 500 ms model. */
const FEATURE_CASES = [
  { iterations: 20, resultBytes: 0 },
  { iterations: 20, resultBytes: 4096 },
  { iterations: 5, resultBytes: 0, latencyMs: 500 },
];

/** What tracing costs per iteration, on its own (`--only tracing`). */
async function benchTracing(): Promise<void> {
  printTracing(await tracingRows());
}

function tracingRows() {
  return measureTracingCost({
    cases: FEATURE_CASES,
    runs: options.featureRuns,
    rounds: options.tracingRounds,
    log: (line) => console.log(line),
  });
}

function printTracing(rows: Awaited<ReturnType<typeof tracingRows>>): void {
  console.log(
    `what tracing costs (every span exported to a real Jaeger over OTLP): ${options.tracingRounds} processes of each, alternating, ${options.featureRuns} runs each; median ms per iteration`,
  );
  for (const line of featureCostTable(rows)) console.log(line);
  console.log('the same runs in CPU time (user + system of the worker process, which other load does not inflate):');
  for (const line of featureCostTable(rows.map((row) => ({ ...row, msPerIteration: row.cpuMsPerIteration }))))
    console.log(line);
  console.log("CPU ms per iteration by thread (rounds' median), plain → tracing:");
  for (const row of rows)
    console.log(
      `${caseLabel(row).padEnd(32)} ${threadsLabel(row.threadCpuMsPerIteration.plain)} → ${threadsLabel(row.threadCpuMsPerIteration.tracing)}`,
    );
  console.log("each round's CPU ratio, tracing / plain (the two processes of one round run one after the other):");
  for (const row of rows) {
    const sorted = [...row.cpuRatios].sort((left, right) => left - right);
    console.log(
      `${caseLabel(row).padEnd(32)} median ${median(sorted).toFixed(2)}×, ${sorted[0]!.toFixed(2)}×–${sorted.at(-1)!.toFixed(2)}× (${sorted.map((ratio) => ratio.toFixed(2)).join(', ')})`,
    );
  }
}

/**
 * What an MCP tool call costs per iteration: server-everything's `echo`, started by the worker over stdio, against a
 * `defineTool` echo doing the same (both ordinary activities), with the calculator's runs of the same process as the
 * anchor: 20 iterations against a model that answers at once, and 5 against a 500 ms model.
 */
async function benchMcpCost(): Promise<void> {
  const rows = await measureFeatureCost({
    variants: [definedEchoVariant(), mcpEchoVariant()],
    cases: [
      { iterations: 20, resultBytes: 0 },
      { iterations: 5, resultBytes: 0, latencyMs: 500 },
    ],
    runs: options.featureRuns,
    log: (line) => console.log(line),
  });
  console.log('');
  console.log(
    `what an MCP tool call costs (server-everything's echo over stdio against a defined echo; calculator runs are the anchor): ${options.featureRuns} runs of each, interleaved in one process; median ms per iteration and the ratio to the anchor`,
  );
  for (const line of featureCostTable(rows)) console.log(line);
}

/**
 * Chat turns through the HTTP API: each turn is an HTTP request, an update on
 * the conversation workflow and a child agent run of two model calls and one
 * tool call; every conversation's history grows turn by turn.
 */
async function benchChat(client: Client, taskQueue: string): Promise<void> {
  const app = buildApiServer({
    client,
    taskQueue,
    auth: { token: TOKEN },
    defaults: { tools: ['calculator'], model: CHAT_MODEL },
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = app.server.address() as { port: number };
  const chat = async (contextId: string, turn: number): Promise<number> => {
    const started = performance.now();
    const response = await fetch(`http://127.0.0.1:${port}/chat`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ context_id: contextId, message: `turn ${turn}: compute something` }),
    });
    if (response.status !== 200) throw new Error(`chat turn answered ${response.status}: ${await response.text()}`);
    await response.json();
    return performance.now() - started;
  };
  try {
    await chat(`bench-warm-${randomUUID()}`, 1);
    const latencies: number[] = [];
    const byTurn: number[][] = Array.from({ length: options.turns }, () => []);
    const started = performance.now();
    await Promise.all(
      Array.from({ length: options.conversations }, async () => {
        const contextId = `bench-${randomUUID()}`;
        for (let turn = 0; turn < options.turns; turn++) {
          const latency = await chat(contextId, turn + 1);
          latencies.push(latency);
          byTurn[turn]?.push(latency);
        }
      }),
    );
    const elapsed = (performance.now() - started) / 1000;
    latencies.sort((left, right) => left - right);
    const median = (values: number[] | undefined) =>
      percentile(
        [...(values ?? [])].sort((left, right) => left - right),
        0.5,
      );
    console.log('');
    console.log(
      `chat over HTTP: ${options.conversations} conversations at once, ${options.turns} turns each (2 model calls, 1 tool call per turn)`,
    );
    console.log(`throughput:        ${(latencies.length / elapsed).toFixed(1)} turns/s`);
    console.log(
      `turn latency:      p50 ${percentile(latencies, 0.5).toFixed(0)} ms, p95 ${percentile(latencies, 0.95).toFixed(0)} ms`,
    );
    console.log(
      `first / last turn: p50 ${median(byTurn[0]).toFixed(0)} ms / ${median(byTurn.at(-1)).toFixed(0)} ms (the history grows each turn)`,
    );
  } finally {
    await app.close();
  }
}

/**
 * One long run, twice: continuing as new every `--per-run` iterations, and
 * only when Temporal suggests it (history past 4 MiB or 4,096 events). The
 * difference in time is what the hand-overs cost; the largest Temporal run's
 * history is what they save.
 */
async function benchLongRun(client: Client, taskQueue: string): Promise<void> {
  const measure = async (iterationsPerRun: number | undefined) => {
    const started = performance.now();
    const handle = await client.workflow.start(WORKFLOW_TYPE, {
      taskQueue,
      workflowId: `bench-long-${randomUUID()}`,
      args: [
        {
          model: LONG_MODEL,
          tools: ['calculator'],
          message: 'Keep adding.',
          maxInvocations: options.long + 1,
          ...(iterationsPerRun === undefined ? {} : { iterationsPerRun }),
        },
      ],
    });
    const result = (await handle.result()) as AgentResult;
    const elapsed = performance.now() - started;
    const runs = (await temporalRunsOf(client, handle.workflowId)).map((run) => ({
      events: run.historyLength,
      bytes: run.historySize ?? 0,
    }));
    const largest = runs.reduce((left, right) => (right.bytes > left.bytes ? right : left));
    const total = runs.reduce((sum, run) => sum + run.bytes, 0);
    return { perIteration: elapsed / result.iterations, runs: runs.length, largest, total };
  };
  const describe = (measured: Awaited<ReturnType<typeof measure>>) =>
    `${measured.perIteration.toFixed(1)} ms per iteration; ${measured.runs} Temporal run(s), the largest ${measured.largest.events} events and ${megabytes(measured.largest.bytes)}, ${megabytes(measured.total)} in all`;
  const continued = await measure(options.perRun);
  const suggested = await measure(undefined);
  console.log('');
  console.log(
    `long run: ${options.long} iterations, one tool call with 2 KB of arguments each (every model call records the whole conversation)`,
  );
  console.log(`continue-as-new every ${options.perRun}:        ${describe(continued)}`);
  console.log(`only when Temporal suggests it: ${describe(suggested)}`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
