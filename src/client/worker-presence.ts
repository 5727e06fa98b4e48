import type { Client, WorkflowExecutionDescription } from '@temporalio/client';
import { CLIENT_DEFAULTS } from '../shared/defaults/client';
import { recentWorkflowPollers } from '../temporal/task-queue-pollers';
import { NoWorkerError } from './no-worker-error';

/**
 * Asks `ask` (a query or update only a worker answers) only once a worker has polled the run's task queue lately,
 * else throws {@link NoWorkerError} naming the queue at once; runs on versioned workers are asked as they are. Both
 * looks are unbilled reads.
 */
export async function unlessNoWorker<T>(client: Client, workflowId: string, ask: () => Promise<T>): Promise<T> {
  const description = await client.workflow.getHandle(workflowId).describe();
  if (await nobodyPolls(client, description)) throw new NoWorkerError(workflowId, description.taskQueue);
  return ask();
}

/**
 * Whether no worker polled the described run's task queue lately; false for a run on versioned workers, whose
 * pollers the queue's plain description does not list.
 */
export async function nobodyPolls(client: Client, description: WorkflowExecutionDescription): Promise<boolean> {
  if (description.raw.workflowExecutionInfo?.versioningInfo?.behavior) return false;
  return (await recentWorkflowPollers(client, description.taskQueue, CLIENT_DEFAULTS.recentPollerMs)) === 0;
}
