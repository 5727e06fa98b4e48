import { WorkflowFailedError, type Client } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { type AgentState } from '../shared/agent-result';
import {
  closedByTemporalState,
  closedRunInDetails,
  closedRunState,
  closedRunStateOf,
  failedRunState,
  type ClosedRunRecord,
} from '../shared/closed-run';
import { type AgentWorkflowResult, withAnswerRestored } from '../shared/result-answer';
import { replayClosedRun } from './run-replay';
import { HistoryNotReplayedError } from './history-not-replayed-error';

/** A finished run as its readers see it: its state and newest events. */
export interface ClosedRun {
  record: ClosedRunRecord;
  state: AgentState;
}

/** Temporal statuses whose close carries the run's record: a completed run's result, a failed run's failure. */
function carriesClosedRun(status: string): boolean {
  return status === 'COMPLETED' || status === 'FAILED';
}

/**
 * A closed run's state and newest events from its history (no action, no worker): its `closedRun` record, else its
 * history replayed here; undefined when neither can be read, and the caller asks the query.
 */
export async function readClosedRun(
  client: Client,
  workflowId: string,
  runId?: string,
): Promise<ClosedRun | undefined> {
  const handle = client.workflow.getHandle(workflowId, runId);
  const description = await handle.describe();
  const carried = carriesClosedRun(description.status.name)
    ? await readCarriedRecord(client, workflowId, description.runId)
    : undefined;
  return carried ?? (await readReplayed(client, workflowId, description.runId));
}

/** The record a completed run's result or a failed run's failure carries; undefined for a run without one. */
async function readCarriedRecord(client: Client, workflowId: string, runId: string): Promise<ClosedRun | undefined> {
  let result: AgentWorkflowResult;
  try {
    result = (await client.workflow.getHandle(workflowId, runId).result()) as AgentWorkflowResult;
  } catch (error) {
    const cause = error instanceof WorkflowFailedError ? error.cause : undefined;
    if (!(cause instanceof ApplicationFailure)) throw error;
    const details = cause.details ?? [];
    const record = closedRunInDetails(details);
    return record === undefined ? undefined : { record, state: failedRunState(details, record) };
  }
  const record = result.closedRun;
  return record === undefined ? undefined : { record, state: closedRunState(withAnswerRestored(result), record) };
}

/** The run as its replayed history left it, shaped as a carried record; undefined when it does not replay here. */
async function readReplayed(client: Client, workflowId: string, runId: string): Promise<ClosedRun | undefined> {
  let snapshot;
  try {
    snapshot = await replayClosedRun(client, workflowId, runId);
  } catch (error) {
    // A payload this process cannot decode is the reader's to report; only a history of other code falls back.
    if (HistoryNotReplayedError.isInstance(error)) return undefined;
    throw error;
  }
  if (snapshot === undefined) return undefined;
  const { events, closedByTemporal } = snapshot;
  const state =
    closedByTemporal === undefined ? snapshot.state : closedByTemporalState(snapshot.state, closedByTemporal);
  const nextSeq = (events.at(-1)?.seq ?? state.lastEvent?.seq ?? 0) + 1;
  return { record: { state: closedRunStateOf(state), events: { nextSeq, recent: events } }, state };
}
