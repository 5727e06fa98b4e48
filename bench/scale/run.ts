import { writeFile } from 'node:fs/promises';
import os from 'node:os';
import { Command } from 'commander';
import { benchScale, phaseLine, type ScaleReport } from './scale';

/**
 * `npm run scale`: runs in flight on the production stack (Temporal on PostgreSQL) and on the dev server, side by
 * side, with one worker then two, and the per-run figures the projection in docs/operations/scale.md is built on.
 * Needs the built worker (`npm run build`). `--short` is a quick look (100 runs of 3 iterations); the figures in
 * the docs come from the full run (1,000 runs of 5 iterations, about half an hour on two cores).
 */
const options = new Command()
  .option('--runs <n>', 'runs started at once in each phase', (value) => Number(value))
  .option('--iterations <n>', 'model calls per run (a calculator call each but the last)', (value) => Number(value))
  .option('--model-latency-ms <n>', "the scripted model's answer time", (value) => Number(value), 1_000)
  .option('--workers <n,...>', 'the phases: this many workers', (value) => value.split(',').map(Number), [1, 2])
  .option('--shapes <name,...>', 'stack, dev', (value) => value.split(','), ['stack', 'dev'])
  .option(
    '--history-iterations <n>',
    'iterations of the runs whose histories are counted',
    (value) => Number(value),
    20,
  )
  .option('--history-runs <n>', 'how many such runs (0: none)', (value) => Number(value), 3)
  .option(
    '--transfer-rps <n>',
    "the stack's history.transferProcessorMaxPollRPS (absent: the compose file's dynamic config)",
    (value) => Number(value),
  )
  .option('--short', 'a quick look: 100 runs of 3 iterations unless --runs/--iterations say otherwise')
  .option('--json <file>', 'also write the report as JSON')
  .parse()
  .opts<{
    runs?: number;
    iterations?: number;
    modelLatencyMs: number;
    workers: number[];
    shapes: string[];
    historyIterations: number;
    historyRuns: number;
    transferRps?: number;
    short?: boolean;
    json?: string;
  }>();

const MiB = 2 ** 20;

function print(report: ScaleReport): void {
  const { machine } = report;
  console.log(
    `\n## Scale (${new Date().toISOString().slice(0, 10)}, ${machine.cores} cores, ${(machine.memoryBytes / 2 ** 30).toFixed(0)} GiB)`,
  );
  console.log(
    `${report.options.runs} runs at once, ${report.options.iterations} model calls of ${report.options.modelLatencyMs} ms each (a calculator call each but the last)\n`,
  );
  console.log(
    '| shape | workers | finished | wall | runs/s | p50 / p95 latency | worker RSS peak (per run in flight) | CPU s: Temporal / PostgreSQL / workers / bench | machine busy | load |',
  );
  console.log('| --- | ---: | ---: | ---: | ---: | --- | --- | --- | ---: | --- |');
  for (const phase of report.phases) {
    const perWorker = phase.runs / phase.workers;
    const workerCpu = Object.entries(phase.cpuSeconds)
      .filter(([part]) => part.startsWith('worker-'))
      .map(([, seconds]) => seconds.toFixed(0))
      .join(' + ');
    console.log(
      `| ${phase.shape} | ${phase.workers} | ${phase.runs - phase.failed}/${phase.runs} | ${phase.wallSeconds.toFixed(0)} s | ${phase.runsPerSecond.toFixed(2)} | ` +
        `${(phase.latencyMs.p50 / 1000).toFixed(1)} / ${(phase.latencyMs.p95 / 1000).toFixed(1)} s | ` +
        `${phase.workerRss.map((worker) => `${(worker.peak / MiB).toFixed(0)} MiB (${(worker.peak / perWorker / 1024).toFixed(0)} KiB; +${((worker.peak - worker.baseline) / perWorker / 1024).toFixed(0)} KiB over idle)`).join(', ')} | ` +
        `${(phase.cpuSeconds.temporal ?? 0).toFixed(0)} / ${phase.cpuSeconds.postgres === undefined ? '–' : phase.cpuSeconds.postgres.toFixed(0)} / ${workerCpu} / ${(phase.cpuSeconds['bench (client + model)'] ?? 0).toFixed(0)} | ` +
        `${(phase.machineBusyShare * 100).toFixed(0)}% | ${phase.loadAverage.before.toFixed(1)} → ${phase.loadAverage.after.toFixed(1)} |`,
    );
  }
  for (const phase of report.phases) console.log(`- ${phaseLine(phase)}`);
  const figures = report.runFigures;
  if (figures !== undefined) {
    const perIteration = (value: number) => (value / figures.iterations).toFixed(2);
    const { figures: counted } = figures;
    console.log(`\nPer run of ${figures.iterations} iterations (mean of ${figures.runs} runs):`);
    console.log(
      `- Temporal runs ${figures.temporalRuns}, history ${(figures.historyBytes / 1024).toFixed(1)} KiB (${(figures.historyBytes / figures.iterations / 1024).toFixed(2)} KiB per iteration), ${counted.events} events (${perIteration(counted.events)} per iteration)`,
    );
    console.log(
      `- activities ${Object.entries(counted.activities)
        .map(([type, count]) => `${type} ${count} (${perIteration(count)}/iteration)`)
        .join(
          ', ',
        )}; attempts ${counted.activityAttempts}; local activities ${counted.localActivities} in ${counted.localActivityTasks} workflow tasks; timers ${counted.timers} (${perIteration(counted.timers)}/iteration); workflow tasks ${counted.workflowTasks} (${perIteration(counted.workflowTasks)}/iteration)`,
    );
    console.log(
      `- search-attribute upserts ${counted.searchAttributeUpserts}, memo upserts ${counted.memoUpserts}, signals ${counted.signals}, updates ${counted.updates}, child workflows ${counted.childWorkflows}`,
    );
    console.log(`- Temporal Cloud actions in the history: ${counted.cloudActions} (heartbeats not included)`);
  }
  if (report.database !== undefined) {
    const { before, after, runsFinished } = report.database;
    const size = (bytes: { store: number; visibility: number }) =>
      `temporal ${(bytes.store / MiB).toFixed(1)} MiB, temporal_visibility ${(bytes.visibility / MiB).toFixed(1)} MiB`;
    const grown = after.store + after.visibility - before.store - before.visibility;
    console.log(
      `\nStack databases: ${size(before)} before the first run; ${size(after)} after ${runsFinished} runs: ${(grown / runsFinished / 1024).toFixed(1)} KiB per run (store ${((after.store - before.store) / runsFinished / 1024).toFixed(1)}, visibility ${((after.visibility - before.visibility) / runsFinished / 1024).toFixed(1)})`,
    );
  }
}

async function main(): Promise<void> {
  const short = options.short === true;
  const shapes = options.shapes.map((shape) => {
    if (shape !== 'stack' && shape !== 'dev') throw new Error(`--shapes: "${shape}" is neither stack nor dev`);
    return shape;
  });
  const log = (line: string) => console.log(`${new Date().toISOString().slice(11, 19)} ${line}`);
  log(
    `[scale] load average ${os
      .loadavg()
      .map((value) => value.toFixed(2))
      .join(' ')}`,
  );
  const report = await benchScale({
    runs: options.runs ?? (short ? 100 : 1_000),
    iterations: options.iterations ?? (short ? 3 : 5),
    modelLatencyMs: options.modelLatencyMs,
    workerCounts: options.workers,
    shapes,
    historyIterations: options.historyIterations,
    historyRuns: options.historyRuns,
    ...(options.transferRps === undefined ? {} : { transferProcessorMaxPollRPS: options.transferRps }),
    log,
  });
  print(report);
  if (options.json !== undefined) await writeFile(options.json, `${JSON.stringify(report, null, 2)}\n`);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? (error.stack ?? error.message) : error);
  process.exit(1);
});
