import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client, Connection } from '@temporalio/client';
import { Command } from 'commander';
import { prepareChaosWorkers } from './chaos-setup';
import { CHAOS_DELEGATE } from './chaos-delegate';
import { CHAOS_MCP_TOOL, orphanedMcpServers } from './chaos-mcp';
import { coverageNotes, followProgress, labels, seconds } from './progress';
import { countFeatureCoverage } from './feature-coverage';
import { printPhaseReports, type PhaseResult } from './phase-report';
import { RestartableServer } from './restartable-server';
import { runStackFaults, type StackFaultOptions } from './stack-faults';
import { startRunBatch, type RunBatch } from './run-batch';
import type { RunOutcome } from './run-comparison';
import { countModelCallsByReference } from './model-calls-by-reference';
import { seededRandom } from './seeded-random';
import { readSideEffects, summarizeSideEffects } from './side-effects';
import { WorkerSupervisor } from './worker-supervisor';

/**
 * `npm run chaos`: do runs survive crashes unchanged? Runs chaos runs while
 * their worker is SIGKILLed and restarted at random moments, then others
 * while the (SQLite-backed) Temporal server is SIGKILLed and restarted, and
 * compares every run, and the nested agent runs under it, with the same run
 * on a worker that never crashed. The runs cache long tool results and read
 * them back with `result_cache`, hand a task to a nested agent, and call an
 * MCP server's tool (a stdio server each worker starts, chaos-mcp-server.mjs). The chaos
 * tool logs each side effect with its idempotency key, so the report says
 * which side effects ran more than once and whether their keys agreed.
 * Exits 1 if any run differs, is stuck or failed, or a repeat had another
 * key, or if the kill phase killed no worker or ran no nested agent or no
 * `result_cache` read or MCP call, or if a killed worker left its MCP server running.
 * With `--stack` the same runs go to the production shape instead (stack-faults.ts).
 */
const command = new Command()
  .option('--runs <n>', 'runs while the worker is killed', Number, 50)
  .option('--iterations <n>', 'model calls per run (the last one calls finish)', Number, 6)
  .option(
    '--kill-min <s>',
    'least time a worker lives after it is ready, in seconds (a restarted one never less than it took to start)',
    Number,
    2,
  )
  .option('--kill-max <s>', 'most time a worker lives after it is ready, in seconds', Number, 6)
  .option('--server-runs <n>', 'runs across a server kill and restart', Number, 20)
  .option('--tool-work <ms>', 'how long the chaos tool works after its side effect', Number, 1_000)
  .option(
    '--model-work <ms>',
    'how long the chaos model takes to answer, so some kills land in a model call',
    Number,
    500,
  )
  .option(
    '--result-bytes <n>',
    'bytes of padding in each chaos tool result: past 8 KiB of conversation a model call takes it by reference',
    Number,
    4_096,
  )
  .option(
    '--inline-threshold <n>',
    'tool results longer than this many characters go to the result cache (resultProcessing.inlineThreshold)',
    Number,
    2_048,
  )
  .option('--deadline <s>', 'seconds each phase may take before its unfinished runs count as stuck', Number, 1_200)
  .option('--seed <n>', 'seed of the random kill times', Number, 1)
  .option('--short', 'the short form CI runs: 8 runs of 5 iterations, 4 runs across a server restart')
  .option(
    '--stack',
    'on the production shape (npm run stack: Temporal on PostgreSQL, two workers, two APIs): worker kills, a Temporal restart, a PostgreSQL restart, PostgreSQL unreachable, an API process killed under SSE followers; --server-runs runs in each phase after the worker kills',
  )
  .option(
    '--temporal-down <s>',
    'with --stack: seconds the Temporal server stays down before it is started again',
    Number,
    5,
  )
  .option(
    '--postgres-down <s>',
    'with --stack: seconds PostgreSQL stays stopped (unreachable) before it is started again',
    Number,
    8,
  )
  .parse();
const options = command.opts<StackFaultOptions & { short?: boolean; stack?: boolean }>();
if (options.short) {
  // Explicit options still win over the short form's sizes.
  // A lost activity waits out its 10 s heartbeat timeout, so an unlucky run under kills can take minutes: the
  // deadline is a bound on a hung run, not the expected time (about 100 s in all on this machine). Kills come
  // 1-4 s apart: on a quiet machine the 8 runs end about 4 s after they start, before a kill 2-6 s away would land.
  // Five model calls: room for a step, two in parallel, the result_cache reads and the nested agent (chaos-agent.ts).
  const shortForm = { runs: 8, iterations: 5, serverRuns: 4, deadline: 360, killMin: 1, killMax: 4 };
  for (const [name, value] of Object.entries(shortForm)) {
    if (command.getOptionValueSource(name) === 'default') Object.assign(options, { [name]: value });
  }
}

const startedAt = performance.now();
const elapsed = () => `${((performance.now() - startedAt) / 1000).toFixed(0)} s`;
const say = (line: string) => console.log(`[chaos ${elapsed()}] ${line}`);

async function main(): Promise<void> {
  const directory = await mkdtemp(path.join(os.tmpdir(), 'agent-runner-chaos-'));
  say(`working in ${directory} (worker log, side-effect log, SQLite file)`);
  const server = await RestartableServer.start(directory, say);
  const taskQueue = `chaos-${process.pid}`;
  const { model, workerEnvironment, sideEffectLog, mcpPidLog } = await prepareChaosWorkers(
    directory,
    taskQueue,
    options,
    say,
  );
  const connection = await Connection.connect({ address: server.address });
  const client = new Client({ connection });
  const supervisor = new WorkerSupervisor(
    { CHAOS_TEMPORAL_ADDRESS: server.address, ...workerEnvironment },
    path.join(directory, 'worker.log'),
  );
  let exitCode = 1;
  try {
    await supervisor.start();
    say(`server ${server.address} (SQLite), worker ready in ${((supervisor.startTimes[0] ?? 0) / 1000).toFixed(1)} s`);
    const killLabels = labels('k', options.runs);
    const serverLabels = labels('s', options.serverRuns);
    const batch = (prefix: string, runLabels: string[]) =>
      startRunBatch({
        client,
        taskQueue,
        prefix: `chaos-${process.pid}-${prefix}`,
        labels: runLabels,
        iterations: options.iterations,
        inlineThreshold: options.inlineThreshold,
        deadline: performance.now() + options.deadline * 1_000,
      });

    say(`crash-free reference: ${killLabels.length + serverLabels.length} runs on a worker that is never killed`);
    const referenceBatch = await batch('reference', [...killLabels, ...serverLabels]);
    await followProgress(referenceBatch, () => '', say);
    const references = new Map(
      (await referenceBatch.outcomes).map((outcome, index) => [[...killLabels, ...serverLabels][index] ?? '', outcome]),
    );

    const phases: PhaseResult[] = [];
    if (killLabels.length > 0)
      phases.push(await workerKillPhase(client, supervisor, killLabels, references, batch, sideEffectLog, mcpPidLog));
    if (serverLabels.length > 0)
      phases.push(await serverKillPhase(server, supervisor, serverLabels, references, batch, sideEffectLog));

    console.log('');
    console.log(
      `agent-runner chaos: seed ${options.seed}, ${options.iterations} model calls per run of ${options.modelWork} ms each, the chaos tool works ${options.toolWork} ms after its side effect ` +
        `and answers ${options.resultBytes} bytes of padding, cached past ${options.inlineThreshold} characters; ${os.cpus().length} cores, node ${process.version}`,
    );
    const problems: string[] = [];
    exitCode = printPhaseReports(phases, problems, elapsed);
  } finally {
    await supervisor.stop();
    await model.close();
    await server.stop();
    if (exitCode === 0) await rm(directory, { recursive: true, force: true });
    else say(`kept ${directory} for a look (worker.log, side-effects.jsonl)`);
    // Last, and the process exits right after: a read still retrying on a closed connection throws from a timer.
    await connection.close();
  }
  process.exitCode = exitCode;
}

/** Worker crashes: SIGKILL the worker at random moments and start another at once, until every run has ended. */
async function workerKillPhase(
  client: Client,
  supervisor: WorkerSupervisor,
  runLabels: string[],
  references: Map<string, RunOutcome>,
  batch: (prefix: string, runLabels: string[]) => Promise<RunBatch>,
  sideEffectLog: string,
  mcpPidLog: string,
): Promise<PhaseResult> {
  const started = performance.now();
  say(
    `worker kills: ${runLabels.length} runs; the worker is SIGKILLed ${options.killMin}-${options.killMax} s after it is ready (a restarted one never sooner than it took to start), and restarted at once`,
  );
  const runs = await batch('kill', runLabels);
  supervisor.startKilling(seededRandom(options.seed), options.killMin * 1_000, options.killMax * 1_000);
  await followProgress(runs, () => `, ${supervisor.kills} kills`, say);
  supervisor.stopKilling();
  const outcomes = await runs.outcomes;
  const startTimes = [...supervisor.startTimes].sort((left, right) => left - right);
  const modelCalls = await countModelCallsByReference(client, runs.workflowIds);
  const coverage = countFeatureCoverage(outcomes);
  // The MCP servers of killed workers end when their stdin closes: give the last one a moment.
  let orphans = orphanedMcpServers(mcpPidLog, supervisor.workerPid);
  for (let wait = 0; orphans.length > 0 && wait < 50; wait += 1) {
    await sleep(100);
    orphans = orphanedMcpServers(mcpPidLog, supervisor.workerPid);
  }
  const sideEffects = summarizeSideEffects(readSideEffects(sideEffectLog), new Set(runs.workflowIds));
  const mcpRepeats = sideEffects.repeated.filter((entry) => entry.effect.startsWith('mcp:')).length;
  return {
    title: `worker kills: ${runLabels.length} runs, worker SIGKILLed ${options.killMin}-${options.killMax} s after each start (a restart at least its start time)`,
    runs: runLabels.map((label, index) => ({
      label,
      workflowId: runs.workflowIds[index] ?? '',
      reference: references.get(label) ?? { status: 'stuck' },
      observed: outcomes[index] ?? { status: 'stuck' },
    })),
    sideEffects,
    notes: [
      `kills:                    ${supervisor.kills} (worker start p50 ${seconds(startTimes[Math.floor(startTimes.length / 2)])}, max ${seconds(startTimes.at(-1))})`,
      `model calls by reference: ${modelCalls.byReference} of ${modelCalls.all} (conversation past 8 KiB, out of the input); ${modelCalls.byReferenceRetried} retried after a kill, reading it with the modelRequest query`,
      ...coverageNotes(coverage),
      `MCP servers:              ${mcpRepeats} calls run again after a kill; ${orphans.length} server processes outlived their killed worker`,
      ...(supervisor.unexpectedExits > 0 ? [`worker exits not caused by a kill: ${supervisor.unexpectedExits}`] : []),
    ],
    // A phase whose runs all ended before a kill, or whose calls never went by reference, never started a nested
    // agent or never read the result cache, tested nothing of it.
    problems: [
      ...(supervisor.kills === 0 ? ['no worker was killed while the runs were in flight'] : []),
      ...(options.resultBytes >= 4_096 && modelCalls.byReference === 0
        ? ['no model call took its conversation by reference']
        : []),
      ...(coverage.childRuns === 0 ? [`no nested agent (${CHAOS_DELEGATE}) ran`] : []),
      ...(coverage.cacheReads === 0
        ? [
            `no result_cache read was answered (results of ${options.resultBytes} bytes of padding, cached past ${options.inlineThreshold} characters)`,
          ]
        : []),
      ...(coverage.mcpCalls === 0 ? [`no MCP tool call (${CHAOS_MCP_TOOL}) was answered`] : []),
      ...(orphans.length > 0 ? [`MCP server processes ${orphans.join(', ')} outlived their killed worker`] : []),
    ],
    elapsedMs: performance.now() - started,
  };
}

/** Server crash: SIGKILL the dev server once its runs are under way, start it again on the same port and SQLite file. */
async function serverKillPhase(
  server: RestartableServer,
  supervisor: WorkerSupervisor,
  runLabels: string[],
  references: Map<string, RunOutcome>,
  batch: (prefix: string, runLabels: string[]) => Promise<RunBatch>,
  sideEffectLog: string,
): Promise<PhaseResult> {
  const started = performance.now();
  say(
    `server restart: ${runLabels.length} runs; the dev server is SIGKILLed mid-run and restarted on the same port and SQLite file`,
  );
  const runs = await batch('server', runLabels);
  const ids = new Set(runs.workflowIds);
  // Mid-run: once every run has performed at least one side effect, so all are between a tool call and their end.
  const midRun = performance.now() + 60_000;
  while (
    summarizeSideEffects(readSideEffects(sideEffectLog), ids).distinct < runLabels.length &&
    performance.now() < midRun
  )
    await sleep(100);
  const effectsBefore = summarizeSideEffects(readSideEffects(sideEffectLog), ids).distinct;
  const killedAt = performance.now();
  await server.kill();
  say(`server SIGKILLed after ${effectsBefore} side effects of this phase; restarting it`);
  await server.restart();
  const downFor = performance.now() - killedAt;
  say(`server answers again after ${seconds(downFor)}`);
  await followProgress(runs, () => '', say);
  const outcomes = await runs.outcomes;
  return {
    title: `server restart: ${runLabels.length} runs, dev server SIGKILLed mid-run and restarted on its SQLite file`,
    runs: runLabels.map((label, index) => ({
      label,
      workflowId: runs.workflowIds[index] ?? '',
      reference: references.get(label) ?? { status: 'stuck' },
      observed: outcomes[index] ?? { status: 'stuck' },
    })),
    sideEffects: summarizeSideEffects(readSideEffects(sideEffectLog), ids),
    notes: [
      `server down:              ${seconds(downFor)} (killed after ${effectsBefore} side effects of this phase)`,
      ...coverageNotes(countFeatureCoverage(outcomes)),
      ...(supervisor.unexpectedExits > 0 ? [`worker exits not caused by a kill: ${supervisor.unexpectedExits}`] : []),
    ],
    elapsedMs: performance.now() - started,
  };
}

(options.stack ? runStackFaults(options, say, elapsed).then((code) => void (process.exitCode = code)) : main()).then(
  // Reads of stuck runs may still be retrying on the closed connection: end here, with the verdict.
  () => process.exit(process.exitCode ?? 0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
