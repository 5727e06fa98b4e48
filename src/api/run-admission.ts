import type { Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { getRunOutcome } from '../client/run-control';
import { FailureType } from '../shared/failure-catalogue';
import { ApiError } from '../http/api-error';

const EventType = temporal.api.enums.v1.EventType;

/** Events that show the run got past its tool catalog: the catalog's local-activity marker, or its first activity. */
const PAST_CATALOG: ReadonlySet<number> = new Set([
  EventType.EVENT_TYPE_MARKER_RECORDED,
  EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED,
]);

/** Events that close the run. */
const CLOSED: ReadonlySet<number> = new Set([
  EventType.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED,
  EventType.EVENT_TYPE_WORKFLOW_EXECUTION_FAILED,
  EventType.EVENT_TYPE_WORKFLOW_EXECUTION_TIMED_OUT,
  EventType.EVENT_TYPE_WORKFLOW_EXECUTION_CANCELED,
  EventType.EVENT_TYPE_WORKFLOW_EXECUTION_TERMINATED,
]);

/**
 * Waits at most `waitMs` for a new run to check its input against the worker's catalog (only the worker knows its
 * tools) and throws 400 `invalid_agent_input` when refused; a worker that has not answered in time is left to go on.
 */
export async function awaitRunAdmission(
  client: Client,
  workflowId: string,
  runId: string,
  waitMs: number,
): Promise<void> {
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), waitMs);
  try {
    const closed = await watchFirstTask(client, workflowId, runId, abort.signal);
    if (!closed) return;
  } catch (error) {
    if (abort.signal.aborted) return;
    throw error;
  } finally {
    clearTimeout(timer);
  }
  const outcome = await getRunOutcome(client, workflowId);
  if (outcome.kind === 'failed' && outcome.type === FailureType.invalidInput)
    throw new ApiError(
      'invalid_agent_input',
      `${outcome.message}. The run "${workflowId}" failed before any model call; its run_id stays taken.`,
      outcome.details,
    );
}

/** Whether the run closed before it got past its tool catalog (false: it got past it, or the wait was aborted). */
async function watchFirstTask(
  client: Client,
  workflowId: string,
  runId: string,
  signal: AbortSignal,
): Promise<boolean> {
  let token: Uint8Array | undefined;
  while (!signal.aborted) {
    const response = await client.connection.withAbortSignal(signal, () =>
      client.workflowService.getWorkflowExecutionHistory({
        namespace: client.options.namespace,
        execution: { workflowId, runId },
        ...(token === undefined ? {} : { nextPageToken: token }),
        waitNewEvent: true,
        skipArchival: true,
      }),
    );
    // The catalog's marker and a refusal come in one workflow task's events: read the whole page before deciding.
    const types = (response.history?.events ?? []).map((event) => event.eventType ?? EventType.EVENT_TYPE_UNSPECIFIED);
    if (types.some((type) => CLOSED.has(type))) return true;
    if (types.some((type) => PAST_CATALOG.has(type))) return false;
    const next = response.nextPageToken;
    token = next !== undefined && next !== null && next.length > 0 ? next : undefined;
    // No token: the history is whole and closed (a close event would have been seen), or the run continued as new.
    if (token === undefined) return false;
  }
  return false;
}
