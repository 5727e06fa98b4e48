import type { Client, WorkflowExecutionDescription, WorkflowHandle } from '@temporalio/client';

/**
 * Every Temporal run of `workflowId`, oldest first: from the latest back,
 * each run's start event names the run it continues. For looking at a run
 * that continued as new (tests, the bench); callers of the runner need only
 * the workflow id.
 */
export async function temporalRunsOf(client: Client, workflowId: string): Promise<WorkflowExecutionDescription[]> {
  const runs: WorkflowExecutionDescription[] = [];
  let runId: string | undefined = (await client.workflow.getHandle(workflowId).describe()).runId;
  while (runId !== undefined) {
    const handle: WorkflowHandle = client.workflow.getHandle(workflowId, runId);
    runs.unshift(await handle.describe());
    const history = await handle.fetchHistory();
    runId = history.events?.[0]?.workflowExecutionStartedEventAttributes?.continuedExecutionRunId || undefined;
  }
  return runs;
}
