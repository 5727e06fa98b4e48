import type { RunSummary } from '../client/run-control';

/**
 * `agent-runner list`: one row per run, columns padded to the widest cell so
 * the table lines up in a terminal.
 */
const HEADER = ['ID', 'STATUS', 'ITERATIONS', 'TOKENS', 'COST', 'PENDING', 'STARTED'];

/** The table's lines, header first; a sentence instead when there are no runs. */
export function formatRunTable(runs: RunSummary[]): string[] {
  if (runs.length === 0) return ['No runs match.'];
  const rows = [HEADER, ...runs.map(rowOf)];
  const widths = HEADER.map((_, column) => Math.max(...rows.map((row) => row[column]?.length ?? 0)));
  return rows.map((row) =>
    row
      .map((cell, column) => cell.padEnd(widths[column] ?? 0))
      .join('  ')
      .trimEnd(),
  );
}

function rowOf(run: RunSummary): string[] {
  return [
    run.workflowId,
    // The agent's own status is more precise; Temporal's stands in until the run publishes one.
    run.status ?? run.temporalStatus.toLowerCase(),
    run.iterations === undefined ? '-' : String(run.iterations),
    run.totalTokens === undefined ? '-' : String(run.totalTokens),
    run.costUsd === undefined ? '-' : `$${run.costUsd.toFixed(4)}`,
    run.pendingApprovals === undefined ? '-' : String(run.pendingApprovals),
    run.startTime.replace('T', ' ').replace(/\.\d+Z$/, 'Z'),
  ];
}
