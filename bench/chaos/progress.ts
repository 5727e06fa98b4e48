import { CHAOS_MCP_TOOL } from './chaos-mcp';
import type { FeatureCoverage } from './feature-coverage';
import type { RunBatch } from './run-batch';

/**
 * Prints progress every ten seconds until every run of the batch has ended (or is stuck), then terminates the
 * stuck ones so they load neither the next phase nor the server.
 */
export async function followProgress(batch: RunBatch, extra: () => string, say: (line: string) => void): Promise<void> {
  const timer = setInterval(() => say(`${batch.ended()}/${batch.workflowIds.length} runs ended${extra()}`), 10_000);
  try {
    await batch.outcomes;
  } finally {
    clearInterval(timer);
  }
  say(`${batch.ended()}/${batch.workflowIds.length} runs ended${extra()}`);
  const stuck = (await batch.outcomes).filter((outcome) => outcome.status === 'stuck').length;
  if (stuck > 0) {
    say(`terminating the ${stuck} stuck run(s)`);
    await batch.terminateUnfinished();
  }
}

/** The report's lines on nested agents, the result cache and MCP calls. */
export function coverageNotes(coverage: FeatureCoverage): string[] {
  return [
    `nested agents:            ${coverage.childRuns} child runs (${coverage.childRunsInterrupted} with a lost workflow task or a retried activity)`,
    `result cache:             ${coverage.cachedResults} results cached, ${coverage.cacheReads} slices read back with result_cache`,
    `MCP tool calls:           ${coverage.mcpCalls} answered by the chaos MCP server (${CHAOS_MCP_TOOL})`,
  ];
}

/** `count` run labels: `<prefix>00`, `<prefix>01`, ... */
export function labels(prefix: string, count: number): string[] {
  return Array.from({ length: count }, (_, index) => `${prefix}${String(index).padStart(2, '0')}`);
}

/** Milliseconds as seconds with one decimal, for the report. */
export function seconds(milliseconds: number | undefined): string {
  return `${((milliseconds ?? 0) / 1000).toFixed(1)} s`;
}
