import type { Client, WorkflowExecutionDescription, WorkflowHandle } from '@temporalio/client';
import type { temporal } from '@temporalio/proto';

type History = temporal.api.history.v1.IHistory;

/** What reading one Temporal run of a chain gave: the caller's own reading, and the history whose start event it read. */
export interface ChainRunRead<Run> {
  run: Run;
  /** The run's history, or its first page: its first event names the run it continues. */
  history: History | null | undefined;
}

/** The Temporal run a run continues, as the start event of its history names it; undefined for a chain's first run. */
export function continuedRunId(history: History | null | undefined): string | undefined {
  return history?.events?.[0]?.workflowExecutionStartedEventAttributes?.continuedExecutionRunId || undefined;
}

/**
 * The Temporal runs of one workflow id's continue-as-new chain, latest first, each as `read` read it: from
 * `latestRunId` (the workflow id's latest run when undefined) back to the chain's first run, each run's start event
 * naming the one before. A caller that has what it needs stops the walk, and no earlier run is read.
 */
export async function* runChain<Run>(
  read: (runId: string | undefined) => Promise<ChainRunRead<Run>>,
  latestRunId?: string,
): AsyncGenerator<Run> {
  const visited = new Set<string>();
  let runId = latestRunId;
  do {
    if (runId !== undefined) visited.add(runId);
    const { run, history } = await read(runId);
    yield run;
    runId = continuedRunId(history);
    // A history that names a run already read would walk for ever: the chain ends there.
  } while (runId !== undefined && !visited.has(runId));
}

/**
 * Every Temporal run of `workflowId`, oldest first, walked back through each start event's predecessor; for tests and
 * the bench (callers need only the workflow id).
 */
export async function temporalRunsOf(client: Client, workflowId: string): Promise<WorkflowExecutionDescription[]> {
  const runs: WorkflowExecutionDescription[] = [];
  const latestRunId = (await client.workflow.getHandle(workflowId).describe()).runId;
  const read = async (runId: string | undefined): Promise<ChainRunRead<WorkflowExecutionDescription>> => {
    const handle: WorkflowHandle = client.workflow.getHandle(workflowId, runId);
    return { run: await handle.describe(), history: await handle.fetchHistory() };
  };
  for await (const run of runChain(read, latestRunId)) runs.unshift(run);
  return runs;
}
