import { randomUUID } from 'node:crypto';
import os from 'node:os';
import { Client, Connection } from '@temporalio/client';
import type { ChatCompletionRequest, ScriptStep } from '../../src/scripted-model/script';
import { ScriptedModelServer } from '../../src/scripted-model/server';
import { WORKFLOW_TYPE } from '../../src/shared/defaults/names';
import type { AgentResult } from '../../src/shared/agent-result';
import { temporalRunsOf } from '../../src/temporal/run-chain';
import { percentile } from '../statistics';
import { addFigures, historyFigures, type HistoryFigures } from './history-figures';
import { descendantCount, machineCpuSeconds, rssBytes, treeCpuSeconds } from './proc-stat';
import { devShape, stackShape, useWorkers, type ShapeUnderTest } from './shapes';

/** How the scale bench runs. */
export interface ScaleOptions {
  /** Runs started at once in each phase. */
  runs: number;
  /** Model calls per run (a calculator call each but the last), each answered after `modelLatencyMs`. */
  iterations: number;
  modelLatencyMs: number;
  /** The phases of each shape: this many workers, in order. */
  workerCounts: number[];
  shapes: Array<'stack' | 'dev'>;
  /** Iterations of the runs whose histories give the per-run figures (on the first shape). */
  historyIterations: number;
  historyRuns: number;
  /** `history.transferProcessorMaxPollRPS` added to the stack's dynamic config (absent: the compose file's). */
  transferProcessorMaxPollRPS?: number;
  log: (line: string) => void;
}

/** One phase: `runs` started at once on `workers` workers of one shape. */
export interface PhaseReport {
  shape: 'stack' | 'dev';
  workers: number;
  runs: number;
  failed: number;
  wallSeconds: number;
  runsPerSecond: number;
  latencyMs: { min: number; p50: number; p95: number; max: number };
  /** Each worker's RSS before the phase (after warm-up) and its largest sample during it. */
  workerRss: Array<{ baseline: number; peak: number }>;
  /** CPU seconds used during the phase, per process (PostgreSQL: the postmaster and all its backends). */
  cpuSeconds: Record<string, number>;
  /** The machine's busy CPU seconds over its CPU seconds (all cores) during the phase. */
  machineBusyShare: number;
  loadAverage: { before: number; after: number };
  /** The most PostgreSQL processes seen at a sample. */
  postgresProcesses?: number;
}

/** What the histories of the long runs hold, per run and per iteration. */
interface RunFigures {
  iterations: number;
  runs: number;
  /** Per run (the sum of its Temporal runs, if it continued as new). */
  temporalRuns: number;
  historyBytes: number;
  figures: HistoryFigures;
}

export interface ScaleReport {
  machine: { cores: number; memoryBytes: number };
  options: Omit<ScaleOptions, 'log'>;
  phases: PhaseReport[];
  runFigures?: RunFigures;
  /**
   * Temporal's databases (the stack only) before its first run and after everything it ran, and the runs that had
   * finished then: the growth over the runs is what a run leaves in the database until its retention ends.
   */
  database?: {
    before: { store: number; visibility: number };
    after: { store: number; visibility: number };
    runsFinished: number;
  };
}

const MODEL = 'scale-model';
/** The model name of the long runs whose histories are counted: the scripted agent answers after their length. */
const LONG_MODEL = 'scale-long-model';
const TOOL = 'calculator';

/** The agent of every run: a calculator call per model call, then an answer on the last. */
function scaleAgent(iterations: number, latencyMs: number) {
  return (request: ChatCompletionRequest): ScriptStep => {
    const done = request.messages.filter((message) => message.role === 'assistant').length;
    if (done + 1 >= iterations) return { content: `Finished after ${done} tool calls.`, delayMs: latencyMs };
    return { toolCalls: [{ name: TOOL, arguments: { expression: `${done} * 2` } }], delayMs: latencyMs };
  };
}

/**
 * `npm run scale`: for each shape (the production stack on PostgreSQL, the dev server), `runs` agent runs started
 * at once, first on one worker, then on two, against a model that answers each call after `modelLatencyMs`; and
 * on the first shape, the histories of a few runs of `historyIterations` iterations, counted. One shape at a time:
 * each is stopped before the next starts.
 */
export async function benchScale(options: ScaleOptions): Promise<ScaleReport> {
  const { log } = options;
  const report: ScaleReport = {
    machine: { cores: os.cpus().length, memoryBytes: os.totalmem() },
    options: { ...options, log: undefined } as unknown as Omit<ScaleOptions, 'log'>,
    phases: [],
  };
  delete (report.options as { log?: unknown }).log;
  const model = await ScriptedModelServer.start();
  model.respond(MODEL, scaleAgent(options.iterations, options.modelLatencyMs));
  model.respond(LONG_MODEL, scaleAgent(options.historyIterations, options.modelLatencyMs));
  let finishedRuns = 0;
  try {
    for (const [shapeIndex, name] of options.shapes.entries()) {
      const taskQueue = `scale-${name}-${randomUUID()}`;
      const modelSettings = { baseURL: model.baseURL, model: MODEL };
      log(`[scale] starting the ${name === 'stack' ? 'production stack' : 'dev server'}`);
      const shape =
        name === 'stack'
          ? await stackShape(modelSettings, taskQueue, log, options.transferProcessorMaxPollRPS)
          : await devShape(modelSettings, taskQueue, log);
      const connection = await Connection.connect({ address: shape.address });
      const client = new Client({ connection, namespace: 'default' });
      finishedRuns = 0;
      const databaseBefore = await shape.databaseBytes?.();
      try {
        for (const workers of options.workerCounts) {
          await useWorkers(shape, workers);
          // Warm-up: every worker has its workflow bundle loaded and has run a few runs.
          await Promise.all(Array.from({ length: 4 * workers }, () => runOne(client, shape, options.iterations)));
          finishedRuns += 4 * workers;
          const phase = await measurePhase(client, shape, workers, options);
          finishedRuns += phase.runs;
          report.phases.push(phase);
          log(`[scale] ${phaseLine(phase)}`);
        }
        if (shapeIndex === 0 && options.historyRuns > 0) {
          report.runFigures = await measureRunFigures(client, shape, options);
          finishedRuns += options.historyRuns;
        }
        if (shape.databaseBytes !== undefined && databaseBefore !== undefined)
          report.database = { before: databaseBefore, after: await shape.databaseBytes(), runsFinished: finishedRuns };
      } finally {
        await connection.close();
        await shape.stop();
      }
    }
  } finally {
    await model.close();
  }
  return report;
}

async function runOne(
  client: Client,
  shape: ShapeUnderTest,
  iterations: number,
  model = MODEL,
): Promise<{ result: AgentResult; workflowId: string }> {
  const workflowId = `scale-${shape.name}-${randomUUID()}`;
  const result = (await client.workflow.execute(WORKFLOW_TYPE, {
    taskQueue: shape.taskQueue,
    workflowId,
    args: [{ model, tools: [TOOL], message: 'Double a few numbers.', maxInvocations: iterations + 1 }],
  })) as AgentResult;
  return { result, workflowId };
}

async function measurePhase(
  client: Client,
  shape: ShapeUnderTest,
  workers: number,
  options: ScaleOptions,
): Promise<PhaseReport> {
  const { log } = options;
  const servers = shape.serverPids();
  const workerPids = shape.workers.slice(0, workers).map((worker) => worker.pid() as number);
  const cpuNow = (): Record<string, number> => ({
    ...(servers.temporal === undefined ? {} : { temporal: treeCpuSeconds(servers.temporal) }),
    ...(servers.postgres === undefined ? {} : { postgres: treeCpuSeconds(servers.postgres) }),
    ...Object.fromEntries(workerPids.map((pid, index) => [`worker-${index + 1}`, treeCpuSeconds(pid)])),
    'bench (client + model)': process.cpuUsage().user / 1e6 + process.cpuUsage().system / 1e6,
  });
  const workerRss = workerPids.map((pid) => ({ baseline: rssBytes(pid), peak: rssBytes(pid) }));
  const cpuBefore = cpuNow();
  const machineBefore = machineCpuSeconds();
  const loadBefore = os.loadavg()[0] ?? 0;
  let postgresProcesses = 0;
  log(
    `[scale] ${shape.name}, ${workers} worker(s): starting ${options.runs} runs (load average ${loadBefore.toFixed(2)})`,
  );

  const latencies: number[] = [];
  let finished = 0;
  let failed = 0;
  const started = performance.now();
  const all = Promise.all(
    Array.from({ length: options.runs }, async () => {
      const runStarted = performance.now();
      try {
        const { result } = await runOne(client, shape, options.iterations);
        if (result.iterations !== options.iterations) failed += 1;
        latencies.push(performance.now() - runStarted);
      } catch (error) {
        failed += 1;
        if (failed <= 3) log(`[scale] a run failed: ${error instanceof Error ? error.message : String(error)}`);
      } finally {
        finished += 1;
      }
    }),
  );
  let done = false;
  void all.then(() => {
    done = true;
  });
  let lastLog = 0;
  while (!done) {
    await Promise.race([all, new Promise((resolve) => setTimeout(resolve, 1_000))]);
    for (const [index, pid] of workerPids.entries()) {
      const rss = rssBytes(pid);
      const entry = workerRss[index];
      if (entry !== undefined && rss > entry.peak) entry.peak = rss;
    }
    if (servers.postgres !== undefined)
      postgresProcesses = Math.max(postgresProcesses, 1 + descendantCount(servers.postgres));
    const seconds = (performance.now() - started) / 1000;
    if (seconds - lastLog >= 10 && !done) {
      lastLog = seconds;
      log(
        `[scale]   ${seconds.toFixed(0)} s: ${options.runs - finished} in flight, worker RSS ${workerPids.map((pid) => `${(rssBytes(pid) / 2 ** 20).toFixed(0)} MiB`).join(', ')}, load ${(os.loadavg()[0] ?? 0).toFixed(2)}`,
      );
    }
  }
  const wallSeconds = (performance.now() - started) / 1000;
  const cpuAfter = cpuNow();
  const machineAfter = machineCpuSeconds();
  const sorted = [...latencies].sort((a, b) => a - b);
  return {
    shape: shape.name,
    workers,
    runs: options.runs,
    failed,
    wallSeconds,
    runsPerSecond: (options.runs - failed) / wallSeconds,
    latencyMs: {
      min: sorted[0] ?? Number.NaN,
      p50: percentile(sorted, 0.5),
      p95: percentile(sorted, 0.95),
      max: sorted.at(-1) ?? Number.NaN,
    },
    workerRss,
    cpuSeconds: Object.fromEntries(
      Object.entries(cpuAfter).map(([part, seconds]) => [part, seconds - (cpuBefore[part] ?? 0)]),
    ),
    machineBusyShare: (machineAfter.busy - machineBefore.busy) / (machineAfter.total - machineBefore.total),
    loadAverage: { before: loadBefore, after: os.loadavg()[0] ?? 0 },
    ...(servers.postgres === undefined ? {} : { postgresProcesses }),
  };
}

/** `historyRuns` runs of `historyIterations` iterations at once, their histories fetched and counted. */
async function measureRunFigures(client: Client, shape: ShapeUnderTest, options: ScaleOptions): Promise<RunFigures> {
  options.log(
    `[scale] per-run figures: ${options.historyRuns} runs of ${options.historyIterations} iterations on the ${shape.name}`,
  );
  const runs = await Promise.all(
    Array.from({ length: options.historyRuns }, () => runOneOfLength(client, shape, options.historyIterations)),
  );
  let temporalRuns = 0;
  let historyBytes = 0;
  const figures: HistoryFigures[] = [];
  for (const workflowId of runs) {
    const chain = await temporalRunsOf(client, workflowId);
    temporalRuns += chain.length;
    historyBytes += chain.reduce((sum, run) => sum + (run.historySize ?? 0), 0);
    for (const run of chain) {
      const history = await client.workflow.getHandle(workflowId, run.runId).fetchHistory();
      figures.push(historyFigures(history.events ?? []));
    }
  }
  const total = addFigures(figures);
  const perRun = (value: number) => value / runs.length;
  return {
    iterations: options.historyIterations,
    runs: runs.length,
    temporalRuns: perRun(temporalRuns),
    historyBytes: perRun(historyBytes),
    figures: {
      ...total,
      ...Object.fromEntries(
        Object.entries(total)
          .filter((entry): entry is [string, number] => typeof entry[1] === 'number')
          .map(([key, value]) => [key, perRun(value)]),
      ),
      activities: Object.fromEntries(Object.entries(total.activities).map(([type, count]) => [type, perRun(count)])),
    },
  };
}

/** A run of `iterations` model calls, its workflow id once it finished. */
async function runOneOfLength(client: Client, shape: ShapeUnderTest, iterations: number): Promise<string> {
  const { result, workflowId } = await runOne(client, shape, iterations, LONG_MODEL);
  if (result.iterations !== iterations)
    throw new Error(`a ${iterations}-iteration run ended after ${result.iterations} iterations`);
  return workflowId;
}

const MiB = 2 ** 20;

/** A phase in one line. */
export function phaseLine(phase: PhaseReport): string {
  const cpu = Object.entries(phase.cpuSeconds)
    .map(([part, seconds]) => `${part} ${seconds.toFixed(1)} s`)
    .join(', ');
  const perWorker = phase.runs / phase.workers;
  const rss = phase.workerRss
    .map(
      (worker) =>
        `${(worker.baseline / MiB).toFixed(0)} → ${(worker.peak / MiB).toFixed(0)} MiB (${(worker.peak / perWorker / 1024).toFixed(0)} KiB per run in flight on it)`,
    )
    .join('; ');
  return (
    `${phase.shape}, ${phase.workers} worker(s): ${phase.runs - phase.failed}/${phase.runs} finished in ${phase.wallSeconds.toFixed(1)} s, ` +
    `${phase.runsPerSecond.toFixed(2)} runs/s, latency p50 ${(phase.latencyMs.p50 / 1000).toFixed(1)} s / p95 ${(phase.latencyMs.p95 / 1000).toFixed(1)} s; ` +
    `worker RSS ${rss}; CPU ${cpu}; machine busy ${(phase.machineBusyShare * 100).toFixed(0)}%; load ${phase.loadAverage.before.toFixed(2)} → ${phase.loadAverage.after.toFixed(2)}`
  );
}
