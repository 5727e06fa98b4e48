import type { Client } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';

/** The activities a run scheduled, in order: type and the summary the web UI shows. */
export async function scheduledActivities(
  client: Client,
  workflowId: string,
): Promise<{ type: string; summary?: string; input: unknown }[]> {
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

/**
 * The local activities a run recorded (each a `MarkerRecorded` event of core's local activity
 * marker), in order: type and the summary the web UI shows. A local activity is never an
 * `ActivityTaskScheduled` event, so {@link scheduledActivities} does not list it.
 */
export async function localActivities(
  client: Client,
  workflowId: string,
): Promise<{ type: string; summary?: string }[]> {
  const history = await client.workflow.getHandle(workflowId).fetchHistory();
  return (history.events ?? []).flatMap((event) => {
    const marker = event.markerRecordedEventAttributes;
    if (marker?.markerName !== 'core_local_activity') return [];
    const dataPayload = marker.details?.data?.payloads?.[0];
    const data = dataPayload ? defaultPayloadConverter.fromPayload<{ activity_type?: string }>(dataPayload) : {};
    const summaryPayload = event.userMetadata?.summary;
    return [
      {
        type: data.activity_type ?? '',
        ...(summaryPayload ? { summary: defaultPayloadConverter.fromPayload<string>(summaryPayload) } : {}),
      },
    ];
  });
}

/** The ids of the patches (`wf.patched`) whose markers a run's history holds, in order. */
export async function patchMarkers(client: Client, workflowId: string): Promise<string[]> {
  const history = await client.workflow.getHandle(workflowId).fetchHistory();
  return (history.events ?? []).flatMap((event) => {
    const marker = event.markerRecordedEventAttributes;
    const idPayload = marker?.markerName === 'core_patch' ? marker.details?.['patch-data']?.payloads?.[0] : undefined;
    return idPayload ? [defaultPayloadConverter.fromPayload<{ id: string }>(idPayload).id] : [];
  });
}
