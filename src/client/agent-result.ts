import { WorkflowFailedError, type Client } from '@temporalio/client';
import type { AgentResult } from '../shared/agent-result';
import { type AgentWorkflowResult, withAnswerRestored } from '../shared/result-answer';
import { failureOf } from '../temporal/failure-of';
import { AgentRunFailedError } from './agent-run-failed-error';

/**
 * Waits for the run's result; a failed run throws {@link AgentRunFailedError}.
 * Follows continue-as-new, so the result is the run's last, from any of its Temporal runs.
 */
export async function getAgentResult(client: Client, workflowId: string, runId?: string): Promise<AgentResult> {
  try {
    return withAnswerRestored((await client.workflow.getHandle(workflowId, runId).result()) as AgentWorkflowResult);
  } catch (error) {
    if (error instanceof WorkflowFailedError) {
      const failure = failureOf(error);
      throw new AgentRunFailedError(failure.message, failure.type, failure.details, { cause: error });
    }
    throw error;
  }
}
