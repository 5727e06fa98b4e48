import type { Client } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';

/** The activities a run scheduled, in order: type and the summary the web UI shows. */
export async function scheduledActivities(client: Client, workflowId: string): Promise<{ type: string; summary?: string; input: unknown }[]> {
  const history = await client.workflow.getHandle(workflowId).fetchHistory();
  return (history.events ?? []).flatMap((event) => {
    const attributes = event.activityTaskScheduledEventAttributes;
    if (!attributes) return [];
    const summaryPayload = event.userMetadata?.summary;
    const inputPayload = attributes.input?.payloads?.[0];
    return [
      {
        type: attributes.activityType?.name ?? '',
        ...(summaryPayload ? { summary: defaultPayloadConverter.fromPayload<string>(summaryPayload) } : {}),
        input: inputPayload ? defaultPayloadConverter.fromPayload(inputPayload) : undefined,
      },
    ];
  });
}
