import type { Client } from '@temporalio/client';

/** How a batch's model calls read their conversation. */
export interface ModelCallCount {
  all: number;
  /** Calls whose conversation stayed out of their input (taken from the worker's memory, or read with the `modelRequest` query). */
  byReference: number;
  /** Of those, the calls whose completed attempt was not the first: a worker died during an earlier one. */
  byReferenceRetried: number;
}

/**
 * Counts the `callModel` activities in each workflow's history, those whose
 * input names the conversation (`{ iteration, count }`) instead of carrying
 * it, and those of them that completed on a later attempt: the calls that,
 * retried on a new worker after a kill, found nothing in its memory and read
 * the conversation back with the `modelRequest` query.
 */
export async function countModelCallsByReference(
  client: Client,
  workflowIds: readonly string[],
): Promise<ModelCallCount> {
  const count: ModelCallCount = { all: 0, byReference: 0, byReferenceRetried: 0 };
  for (const workflowId of workflowIds) {
    const history = await client.workflow.getHandle(workflowId).fetchHistory();
    const byReference = new Set<string>();
    for (const event of history.events ?? []) {
      const scheduled = event.activityTaskScheduledEventAttributes;
      if (scheduled?.activityType?.name === 'callModel') {
        count.all += 1;
        const payload = scheduled.input?.payloads?.[0]?.data;
        const input =
          payload === undefined || payload === null
            ? {}
            : (JSON.parse(Buffer.from(payload).toString('utf8')) as { conversation?: unknown });
        if (input.conversation !== undefined) {
          count.byReference += 1;
          byReference.add(String(event.eventId));
        }
      }
      const started = event.activityTaskStartedEventAttributes;
      if (
        started !== undefined &&
        started !== null &&
        byReference.has(String(started.scheduledEventId)) &&
        (started.attempt ?? 1) > 1
      ) {
        count.byReferenceRetried += 1;
      }
    }
  }
  return count;
}
