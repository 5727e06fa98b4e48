import type { Client } from '@temporalio/client';
import { decodeFromPayloadsAtIndex } from '@temporalio/common/lib/internal-non-workflow';
import type { temporal } from '@temporalio/proto';
import type { DescribeToolsResult } from '../../shared/activity-types';
import { runChain, type ChainRunRead } from '../../temporal/run-chain';

/** The marker the Temporal SDK records for a local activity's result (the catalog is loaded by one). */
const LOCAL_ACTIVITY_MARKER = 'core_local_activity';

/** Most history pages read in one Temporal run looking for the catalog: it is loaded in the run's first workflow tasks. */
const MAX_PAGES = 3;

/** Most Temporal runs of a chain read: the latest, and the ones before it while a run's catalog is still loading. */
const MAX_RUNS = 3;

type Schemas = Record<string, Record<string, unknown>>;

/**
 * Each tool's JSON Schema as the run's catalog recorded it, read from history (not billed), through the run it
 * continues when this Temporal run has no catalog yet; empty when none holds one.
 */
export async function readToolSchemas(client: Client, workflowId: string): Promise<Schemas> {
  let read = 0;
  for await (const schemas of runChain((runId) => readRunSchemas(client, workflowId, runId))) {
    if (schemas !== undefined) return schemas;
    read += 1;
    if (read === MAX_RUNS) break;
  }
  return {};
}

/** One Temporal run's catalog (the latest's when `runId` is absent), with the first page of its history. */
async function readRunSchemas(
  client: Client,
  workflowId: string,
  runId: string | undefined,
): Promise<ChainRunRead<Schemas | undefined>> {
  let firstPage: temporal.api.history.v1.IHistory | null | undefined;
  let nextPageToken: Uint8Array | undefined;
  for (let page = 0; page < MAX_PAGES; page += 1) {
    const answer = await client.workflowService.getWorkflowExecutionHistory({
      namespace: client.options.namespace,
      execution: runId === undefined ? { workflowId } : { workflowId, runId },
      ...(nextPageToken === undefined ? {} : { nextPageToken }),
    });
    firstPage ??= answer.history;
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
      const schemas = Object.fromEntries(
        (Array.isArray(catalog?.tools) ? catalog.tools : [])
          .filter((tool) => typeof tool?.name === 'string' && typeof tool.parameters === 'object')
          .map((tool) => [tool.name, tool.parameters]),
      );
      return { run: schemas, history: firstPage };
    }
    nextPageToken = answer.nextPageToken?.length ? answer.nextPageToken : undefined;
    if (nextPageToken === undefined) break;
  }
  return { run: undefined, history: firstPage };
}
