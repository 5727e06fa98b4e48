import type { Client } from '@temporalio/client';
import { optionalTsToMs } from '@temporalio/common/lib/time';
import { temporal } from '@temporalio/proto';

/**
 * How many workers polled `taskQueue` for workflow tasks within the last `withinMs`: Temporal's task-queue
 * description lists each poller it saw in the last minutes with its last poll, and a live worker polls again at
 * least every minute or so (a long poll), so an older last poll is a worker that stopped. Not a billed action.
 */
export async function recentWorkflowPollers(client: Client, taskQueue: string, withinMs: number): Promise<number> {
  const answer = await client.workflowService.describeTaskQueue({
    namespace: client.options.namespace,
    taskQueue: { name: taskQueue, kind: temporal.api.enums.v1.TaskQueueKind.TASK_QUEUE_KIND_NORMAL },
    taskQueueType: temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW,
  });
  const since = Date.now() - withinMs;
  return (answer.pollers ?? []).filter((poller) => (optionalTsToMs(poller.lastAccessTime) ?? 0) >= since).length;
}
