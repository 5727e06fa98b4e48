import type { Client } from '@temporalio/client';
import { type AgentState } from '../shared/agent-result';
import { closedRunState, type ClosedRunRecord } from '../shared/closed-run';
import { type AgentWorkflowResult, withAnswerRestored } from '../shared/result-answer';

/**
 * The record a completed run's result carries (`closedRun`): read from the run's history (its close event), so it
 * costs no action and needs no worker. Undefined for a result without one (a run started before it was carried).
 * Only for a run whose Temporal status is COMPLETED: any other close has no result.
 */
export async function readClosedRecord(
  client: Client,
  workflowId: string,
  runId?: string,
): Promise<{ result: AgentWorkflowResult; record: ClosedRunRecord } | undefined> {
  const result = (await client.workflow.getHandle(workflowId, runId).result()) as AgentWorkflowResult;
  return result.closedRun === undefined ? undefined : { result, record: result.closedRun };
}

/** A completed run's state, as the `state` query would answer it, from its result; undefined when it carries none. */
export async function readClosedState(
  client: Client,
  workflowId: string,
  runId?: string,
): Promise<AgentState | undefined> {
  const closed = await readClosedRecord(client, workflowId, runId);
  return closed === undefined ? undefined : closedRunState(withAnswerRestored(closed.result), closed.record);
}
