import type { Client } from '@temporalio/client';
import { decodeFromPayloadsAtIndex } from '@temporalio/common/lib/internal-non-workflow';
import type { DescribeToolsResult } from '../../shared/activity-types';

/** The marker the Temporal SDK records for a local activity's result (the catalog is loaded by one). */
const LOCAL_ACTIVITY_MARKER = 'core_local_activity';

/** Most history pages read looking for the catalog: it is loaded in the run's first workflow tasks. */
const MAX_PAGES = 3;

/**
 * Each tool's JSON Schema, by name, as the run's worker described them when the run loaded its catalog: read once
 * from the run's history (not billed), decoded with the client's data converter, so an encrypted run reads as any
 * other. Empty when the history holds no catalog (a run continued as new carries its catalog without loading it).
 */
export async function readToolSchemas(
  client: Client,
  workflowId: string,
): Promise<Record<string, Record<string, unknown>>> {
  let nextPageToken: Uint8Array | undefined;
  for (let page = 0; page < MAX_PAGES; page += 1) {
    const answer = await client.workflowService.getWorkflowExecutionHistory({
      namespace: client.options.namespace,
      execution: { workflowId },
      ...(nextPageToken === undefined ? {} : { nextPageToken }),
    });
    for (const event of answer.history?.events ?? []) {
      const marker = event.markerRecordedEventAttributes;
      if (marker?.markerName !== LOCAL_ACTIVITY_MARKER) continue;
      const converter = client.options.loadedDataConverter;
      const data = await decodeFromPayloadsAtIndex<{ activity_type?: string }>(
        converter,
        0,
        marker.details?.data?.payloads,
      ).catch(() => undefined);
      if (data?.activity_type !== 'describeTools') continue;
      const catalog = await decodeFromPayloadsAtIndex<Partial<DescribeToolsResult>>(
        converter,
        0,
        marker.details?.result?.payloads,
      ).catch(() => undefined);
      return Object.fromEntries(
        (Array.isArray(catalog?.tools) ? catalog.tools : [])
          .filter((tool) => typeof tool?.name === 'string' && typeof tool.parameters === 'object')
          .map((tool) => [tool.name, tool.parameters]),
      );
    }
    nextPageToken = answer.nextPageToken?.length ? answer.nextPageToken : undefined;
    if (nextPageToken === undefined) break;
  }
  return {};
}
