import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { resolveJaeger, startJaeger } from '../../dev/jaeger/jaeger';
import { median } from '../statistics';
import type { FeatureCase, FeatureRow } from './feature-cost';
import type { ThreadKind } from './thread-cpu';

/**
 * What tracing costs per iteration. Tracing is process-wide (OpenTelemetry's provider and Temporal's interceptors),
 * so the same runs go through processes that alternate, one without tracing and one exporting every span over OTLP
 * to a real Jaeger: `rounds` of each, their per-iteration medians' median compared. Rows are shaped like the other
 * features' (`plain` and `tracing`), for the same table; `cpuRatios` are each round's tracing/plain CPU ratios, whose
 * spread says how far one round's ratio can be trusted on a loaded machine.
 */
export async function measureTracingCost(options: {
  cases: FeatureCase[];
  runs: number;
  rounds: number;
  log: (line: string) => void;
}): Promise<TracingCostRow[]> {
  const jaeger = await startJaeger(await resolveJaeger(options.log));
  const rounds: Record<'plain' | 'tracing', FeatureRow[][]> = { plain: [], tracing: [] };
  try {
    for (let round = 0; round < options.rounds; round += 1) {
      for (const variant of ['plain', 'tracing'] as const) {
        const rows = await child({
          FEATURE_CASES: JSON.stringify(options.cases),
          FEATURE_RUNS: String(options.runs),
          ...(variant === 'tracing'
            ? { OTEL_EXPORTER_OTLP_ENDPOINT: jaeger.otlpEndpoint, OTEL_SERVICE_NAME: 'agent-runner-bench' }
            : {}),
        });
        rounds[variant].push(rows);
        options.log(
          `[features] tracing round ${round + 1}, ${variant} (load ${loadAverage()}): ${rows.map((row) => `${row.msPerIteration.plain!.toFixed(1)} ms (CPU ${row.cpuMsPerIteration.plain!.toFixed(1)} ms: ${threadsLabel(row.threadCpuMsPerIteration)})`).join(', ')}`,
        );
      }
    }
  } finally {
    await jaeger.stop();
  }
  return options.cases.map((entry, index) => {
    const of = (variant: 'plain' | 'tracing') => rounds[variant].map((rows) => rows[index]!);
    return {
      ...entry,
      msPerIteration: {
        plain: median(of('plain').map((row) => row.msPerIteration.plain!)),
        tracing: median(of('tracing').map((row) => row.msPerIteration.plain!)),
      },
      cpuMsPerIteration: {
        plain: median(of('plain').map((row) => row.cpuMsPerIteration.plain!)),
        tracing: median(of('tracing').map((row) => row.cpuMsPerIteration.plain!)),
      },
      historyBytes: {
        plain: of('plain').at(-1)!.historyBytes.plain!,
        tracing: of('tracing').at(-1)!.historyBytes.plain!,
      },
      threadCpuMsPerIteration: {
        plain: medianThreads(of('plain')),
        tracing: medianThreads(of('tracing')),
      },
      cpuRatios: of('tracing').map(
        (row, round) => row.cpuMsPerIteration.plain! / of('plain')[round]!.cpuMsPerIteration.plain!,
      ),
    };
  });
}

/** A case's row, with each round's tracing/plain CPU ratio. */
export interface TracingCostRow extends Omit<FeatureRow, 'threadCpuMsPerIteration'> {
  cpuRatios: number[];
  /** The rounds' median CPU per iteration by kind of thread, plain and tracing. */
  threadCpuMsPerIteration: Record<'plain' | 'tracing', Record<ThreadKind, number>>;
}

/** Each kind of thread's median over the rounds. */
function medianThreads(rows: readonly FeatureRow[]): Record<ThreadKind, number> {
  const kinds = Object.keys(rows[0]!.threadCpuMsPerIteration) as ThreadKind[];
  return Object.fromEntries(
    kinds.map((kind) => [kind, median(rows.map((row) => row.threadCpuMsPerIteration[kind]))]),
  ) as Record<ThreadKind, number>;
}

/** CPU ms per iteration by kind of thread, on one line. */
export function threadsLabel(threads: Record<ThreadKind, number>): string {
  return Object.entries(threads)
    .map(([kind, ms]) => `${kind} ${ms.toFixed(1)}`)
    .join(', ');
}

/** The machine's 1-minute load average, which says how far a round's figures were inflated by others' work. */
function loadAverage(): string {
  try {
    return readFileSync('/proc/loadavg', 'utf8').split(' ')[0]!;
  } catch {
    return '?';
  }
}

function child(env: Record<string, string>): Promise<FeatureRow[]> {
  const clean = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('OTEL_')));
  return new Promise((resolve, reject) => {
    const process_ = spawn(process.execPath, [require.resolve('tsx/cli'), path.join(__dirname, 'feature-child.ts')], {
      // --expose-gc: each run starts after a full collection, so a collection of the process's earlier garbage
      // (100 ms and more once its heap has grown) does not land in whichever run it happens to fall in.
      env: { ...clean, ...env, NODE_OPTIONS: `${clean.NODE_OPTIONS ?? ''} --expose-gc`.trim() },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let output = '';
    process_.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    process_.on('error', reject);
    process_.on('close', (code) => {
      if (code !== 0) return reject(new Error(`the feature process exited with ${code}`));
      const line = output.trim().split('\n').at(-1) ?? '[]';
      resolve(JSON.parse(line) as FeatureRow[]);
    });
  });
}
