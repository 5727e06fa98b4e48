import { checkBudgets, type BudgetCheck, type LatencyCounts } from './budgets';
import { totalOf } from './prometheus';
import type { ScenarioResult } from './actions';
import { predictedActions } from './formula';

/** The section's measured runs grouped by latency, as the budgets read them. */
function latencyCounts(results: readonly ScenarioResult[]): LatencyCounts[] {
  const latencies = [...new Set(results.map((result) => result.latencyMs))];
  return latencies.map((latencyMs) => {
    const runs = results.filter((result) => result.latencyMs === latencyMs);
    // Per run: the console scenario's namespace holds CONSOLE_RUNS runs (reported in the table, not gated: its 20
    // runs side by side make the follow's reads depend on the machine's load more than one run's do).
    const actions = (kind: string) => {
      const run = runs.find((candidate) => candidate.kind === kind);
      return totalOf(run?.actions) / (run?.runs ?? 1);
    };
    return {
      latencyMs,
      iterations: runs[0]?.iterations ?? 0,
      bare: actions('bare'),
      unwatched: actions('unwatched'),
      watched: {
        cli: actions('cli'),
        'sse-1': actions('sse-1'),
        'sse-10': actions('sse-10'),
      },
    };
  });
}

/** The report: a table per latency, where the difference goes, and each budget's verdict. */
export function actionsReport(results: readonly ScenarioResult[]): { lines: string[]; checks: BudgetCheck[] } {
  const lines: string[] = [];
  const counts = latencyCounts(results);
  lines.push(
    '| model latency | iterations | run | actions | × bare | over unwatched, per iteration | run took | by type (over the bare loop) |',
    '| --- | --- | --- | --- | --- | --- | --- | --- |',
  );
  for (const { latencyMs, iterations, bare, unwatched } of counts) {
    const bareRun = results.find((result) => result.latencyMs === latencyMs && result.kind === 'bare');
    for (const run of results.filter((result) => result.latencyMs === latencyMs)) {
      const total = totalOf(run.actions) / run.runs;
      const watchedExtra =
        run.kind === 'bare' || run.kind === 'unwatched' || run.kind === 'local'
          ? ''
          : ((total - unwatched) / iterations).toFixed(2);
      lines.push(
        `| ${latencyMs / 1000} s | ${iterations} | ${run.kind === 'console' ? `console on ${run.runs} runs (per run)` : run.kind} | ${Number(total.toFixed(2))} | ${(total / bare).toFixed(2)}× | ${watchedExtra} | ${run.seconds.toFixed(1)} s | ${run.kind === 'bare' ? byType(run.actions) : run.kind === 'console' ? `${byType(run.actions)} (all ${run.runs} runs)` : byTypeOver(run.actions, bareRun?.actions)} |`,
      );
    }
  }
  lines.push('');
  for (const run of results.filter((result) => result.kind === 'unwatched' || result.kind === 'local')) {
    const tools = run.iterations - 1;
    const { total } = predictedActions({
      modelCalls: run.iterations,
      regularToolCalls: run.kind === 'local' ? 0 : tools,
      localToolTasks: run.kind === 'local' ? tools : 0,
      heartbeats: 0,
    });
    const measured = totalOf(run.actions);
    lines.push(
      `${measured === total ? 'formula holds' : 'FORMULA DIFFERS'}: ${run.latencyMs / 1000} s, ${run.kind}, measured ${measured}, formula ${total} (docs/operations/actions.md, no heartbeat below the interval)`,
    );
  }
  const checks = checkBudgets(counts);
  lines.push('');
  for (const check of checks)
    lines.push(
      `${check.pass ? 'PASS' : 'FAIL'}  ${check.latencyMs / 1000} s, ${check.what}: ${check.measured} (at most ${check.allowed})`,
    );
  return { lines, checks };
}

function byType(actions: ReadonlyMap<string, number>): string {
  return [...actions]
    .sort(([left], [right]) => left.localeCompare(right))
    .map(([type, value]) => `${shortType(type)} ${value}`)
    .join(', ');
}

function byTypeOver(actions: ReadonlyMap<string, number>, bare: ReadonlyMap<string, number> | undefined): string {
  const types = new Set([...actions.keys(), ...(bare?.keys() ?? [])]);
  return [...types]
    .sort()
    .flatMap((type) => {
      const delta = (actions.get(type) ?? 0) - (bare?.get(type) ?? 0);
      return delta === 0 ? [] : [`${shortType(type)} ${delta > 0 ? '+' : ''}${delta}`];
    })
    .join(', ');
}

/** `grpc_RecordActivityTaskHeartbeat` → `RecordActivityTaskHeartbeat`; command types as they are. */
function shortType(type: string): string {
  return type.replace(/^grpc_/, '');
}
