import { stat } from 'node:fs/promises';
import type { RunOutcome } from '../client/run-control';
import { describeTerminationReason } from '../cli/outcome-lines';

/**
 * The demo's last word on its summary file: written by this run (modified since it started), or not, and why
 * the run ended when it ended otherwise than by its `finish` tool. A run that failed or was stopped has said
 * so already; nothing is added then.
 */
export async function summaryLine(
  summaryPath: string,
  startedAtMs: number,
  outcome: RunOutcome,
): Promise<string | undefined> {
  if (outcome.kind !== 'completed') return undefined;
  const written = await writtenSince(summaryPath, startedAtMs);
  const reason = outcome.result.terminationReason;
  if (written && reason.type === 'terminating_tool') return `Summary written to ${summaryPath}.`;
  if (written)
    return `Summary written to ${summaryPath}, though the run ended by ${describeTerminationReason(reason)}.`;
  return `No summary was written to ${summaryPath}: the run ended by ${describeTerminationReason(reason)} before writing one.`;
}

/** Whether `file` exists and was modified at or after `sinceMs` (a summary from an earlier run does not count). */
async function writtenSince(file: string, sinceMs: number): Promise<boolean> {
  try {
    // File times have coarser steps than the clock on some file systems: a second's leeway.
    return (await stat(file)).mtimeMs >= sinceMs - 1_000;
  } catch {
    return false;
  }
}
