import { WorkflowFailedError, type Client } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { type AgentState } from '../shared/agent-result';
import { closedRunInDetails, closedRunState, failedRunState, type ClosedRunRecord } from '../shared/closed-run';
import { type AgentWorkflowResult, withAnswerRestored } from '../shared/result-answer';

/** A finished run as its readers see it: its state and newest events. */
export interface ClosedRun {
  record: ClosedRunRecord;
  state: AgentState;
}

/** Temporal statuses whose close carries the run's record: a completed run's result, a failed run's failure. */
export function carriesClosedRun(status: string): boolean {
  return status === 'COMPLETED' || status === 'FAILED';
}

/**
 * The record a finished run carries (`closedRun`), read from its history (its close event), so it costs no action
 * and needs no worker. Undefined for a run without one (started before it was carried). Only for a run whose
 * Temporal status {@link carriesClosedRun}: a run terminated or timed out by Temporal has none.
 */
export async function readClosedRun(
  client: Client,
  workflowId: string,
  runId?: string,
): Promise<ClosedRun | undefined> {
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
