import { fork, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import type { ChatCompletionRequest, ScriptStep } from '../../src/scripted-model/script';
import { ScriptedModelServer } from '../../src/scripted-model/server';
import { WORKFLOW_TYPE } from '../../src/shared/defaults/names';
import { type AgentResult } from '../../src/shared/agent-result';
import { startDevServer } from '../../src/dev-server/dev-server';
import { READY_LINE, type InFlightWorkerEnvironment, type MemorySample } from './worker-contract';

/** How the in-flight section is run. */
export interface InFlightOptions {
  /** Runs started at once on one worker. */
  runs: number;
  /** Model calls per run (one calculator call each but the last), each answered after 1 s. */
  iterations: number;
  log: (line: string) => void;
}

/** What the section measured. */
export interface InFlightReport {
  runs: number;
  failed: number;
  wallMs: number;
  /** Runs still in flight when the worker's RSS was largest. */
  inFlightAtPeak: number;
  /** The largest number of runs in flight at a sample (all of them, until the first ends). */
  maxInFlight: number;
  baseline: MemorySample;
  peak: MemorySample;
}

const MODEL_LATENCY_MS = 1_000;
const WORKER_SCRIPT = path.join(__dirname, 'worker-process.ts');
const ROOT = path.resolve(__dirname, '..', '..');
const MiB = 1024 * 1024;

function inFlightAgent(iterations: number) {
  return (request: ChatCompletionRequest): ScriptStep => {
    const done = request.messages.filter((message) => message.role === 'assistant').length;
    if (done + 1 >= iterations) return { content: `Finished after ${done} tool calls.`, delayMs: MODEL_LATENCY_MS };
    return { toolCalls: [{ name: 'calculator', arguments: { expression: `${done} * 2` } }], delayMs: MODEL_LATENCY_MS };
  };
}

/** The worker process, once it polls; `sample` asks it for its memory after a collection. */
async function startWorker(
  environment: InFlightWorkerEnvironment,
): Promise<{ child: ChildProcess; sample: () => Promise<MemorySample> }> {
  const child = fork(WORKER_SCRIPT, [], {
    cwd: ROOT,
    env: { ...process.env, ...environment },
    execArgv: ['--expose-gc', '--import', 'tsx'],
    stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
  });
  await new Promise<void>((resolve, reject) => {
    let output = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes(READY_LINE)) resolve();
    });
    child.once('exit', (code) => reject(new Error(`the in-flight worker exited (${code}) before it was ready`)));
  });
  let pending: ((sample: MemorySample) => void) | undefined;
  child.on('message', (message: MemorySample) => {
    if (message.type === 'memory') pending?.(message);
  });
  const sample = () =>
    new Promise<MemorySample>((resolve) => {
      pending = resolve;
      child.send({ type: 'sample' });
    });
  return { child, sample };
}

/**
 * `npm run bench -- --only inflight`: `runs` agent runs started at once on one
 * worker (createAgentWorker's defaults, in a process of its own), against a
 * model that answers each call after 1 s, on the dev server as the project
 * starts it. Every run must finish with its iterations; the worker's memory
 * (after a collection) is sampled every second, and its growth over an idle
 * worker that has run one run, at the sample with the largest RSS, is divided
 * by the runs. The heap is the main thread's (activities, connections): the
 * workflows run in the SDK's workflow thread, whose heap only RSS counts.
 */
export async function benchInFlight(options: InFlightOptions): Promise<InFlightReport> {
  const model = await ScriptedModelServer.start();
  const dev = await startDevServer({ port: 0, uiPort: 0, log: () => undefined });
  const connection = await Connection.connect({ address: dev.address });
  const client = new Client({ connection });
  const taskQueue = `inflight-${randomUUID()}`;
  model.respond('inflight', inFlightAgent(options.iterations));
  const worker = await startWorker({
    INFLIGHT_TEMPORAL_ADDRESS: dev.address,
    INFLIGHT_TASK_QUEUE: taskQueue,
    INFLIGHT_MODEL_URL: model.baseURL,
  });
  const runOne = async (): Promise<AgentResult> =>
    (await client.workflow.execute(WORKFLOW_TYPE, {
      taskQueue,
      workflowId: `inflight-${randomUUID()}`,
      args: [{ tools: ['calculator'], message: 'Double a few numbers.' }],
    })) as AgentResult;
  try {
    await runOne(); // warm-up: the workflow bundle loaded, the caches filled
    const baseline = await worker.sample();
    options.log(
      `[inflight] worker after one run: RSS ${(baseline.rss / MiB).toFixed(1)} MiB, heap ${(baseline.heapUsed / MiB).toFixed(1)} MiB; starting ${options.runs} runs`,
    );
    let finished = 0;
    let failed = 0;
    const started = performance.now();
    const runs = Array.from({ length: options.runs }, () =>
      runOne().then(
        (result) => {
          finished += 1;
          if (result.iterations !== options.iterations) failed += 1;
        },
        (error: unknown) => {
          finished += 1;
          failed += 1;
          if (failed <= 3)
            options.log(`[inflight] a run failed: ${error instanceof Error ? error.message : String(error)}`);
        },
      ),
    );
    const all = Promise.all(runs);
    let peak = baseline;
    let inFlightAtPeak = 0;
    let maxInFlight = 0;
    let done = false;
    void all.then(() => {
      done = true;
    });
    while (!done) {
      await Promise.race([all, new Promise((resolve) => setTimeout(resolve, 1_000))]);
      if (done) break;
      const inFlight = options.runs - finished;
      const sample = await worker.sample();
      maxInFlight = Math.max(maxInFlight, inFlight);
      if (sample.rss > peak.rss) {
        peak = sample;
        inFlightAtPeak = inFlight;
      }
      options.log(
        `[inflight] ${((performance.now() - started) / 1000).toFixed(0)} s: ${inFlight} in flight, worker RSS ${(sample.rss / MiB).toFixed(0)} MiB, heap ${(sample.heapUsed / MiB).toFixed(0)} MiB`,
      );
    }
    const wallMs = performance.now() - started;
    return { runs: options.runs, failed, wallMs, inFlightAtPeak, maxInFlight, baseline, peak };
  } finally {
    worker.child.disconnect();
    await new Promise((resolve) => worker.child.once('exit', resolve));
    await connection.close();
    await dev.stop();
    await model.close();
  }
}

/** The report in words, one line a figure. */
export function inFlightLines(report: InFlightReport, iterations: number): string[] {
  const perRun = (bytes: number) => `${(bytes / report.runs / 1024).toFixed(0)} KiB`;
  return [
    `${report.runs} runs started at once (at most ${report.maxInFlight} in flight at a sample), ${iterations} model calls of 1 s each: ${report.runs - report.failed} finished, ${report.failed} failed, in ${(report.wallMs / 1000).toFixed(1)} s`,
    `worker memory at its largest RSS (${report.inFlightAtPeak} runs in flight): RSS ${(report.peak.rss / MiB).toFixed(0)} MiB (+${((report.peak.rss - report.baseline.rss) / MiB).toFixed(0)}), main-thread heap ${(report.peak.heapUsed / MiB).toFixed(0)} MiB (+${((report.peak.heapUsed - report.baseline.heapUsed) / MiB).toFixed(0)})`,
    `per run: RSS ${perRun(report.peak.rss - report.baseline.rss)}, main-thread heap ${perRun(report.peak.heapUsed - report.baseline.heapUsed)}`,
  ];
}
