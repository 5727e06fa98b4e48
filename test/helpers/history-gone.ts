import type { Client } from '@temporalio/client';
import { temporalRunsOf } from '../../src/temporal/run-chain';
import { waitFor } from './wait';

/**
 * Deletes the first Temporal run of `workflowId`'s chain, as the namespace's retention does to an old closed run, and
 * waits until its history is gone: Temporal deletes it in the background, under load tens of seconds after it was asked.
 */
export async function deleteFirstTemporalRun(client: Client, workflowId: string): Promise<void> {
  const [first] = await temporalRunsOf(client, workflowId);
  await client.workflowService.deleteWorkflowExecution({
    namespace: client.options.namespace,
    workflowExecution: { workflowId, runId: first!.runId },
  });
  await waitFor(
    () =>
      client.workflow
        .getHandle(workflowId, first!.runId)
        .fetchHistory()
        .then(
          () => 'kept',
          () => 'gone',
        ),
    (history) => history === 'gone',
    90_000,
  );
}
