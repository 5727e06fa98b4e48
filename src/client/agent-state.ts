import type { Client } from '@temporalio/client';
import type { AgentState } from '../shared/agent-result';
import { isWorkflowNotFound } from '../temporal/errors';
import { hasRunEnded } from '../temporal/run-ended';
import { stateQuery } from '../workflow-contract/definitions';
import { readClosedRun } from './closed-run-reader';
import { RunNotFoundError } from './run-not-found-error';
import { unlessNoWorker } from './worker-presence';

/**
 * The run's state: the `state` query while it runs, its history once ended (no action, no worker needed); throws
 * `RunNotFoundError` for an unknown id. A given `runId` reads that Temporal run only, closed once continued as new.
 */
export async function getAgentState(client: Client, workflowId: string, runId?: string): Promise<AgentState> {
  try {
    const handle = client.workflow.getHandle(workflowId, runId);
    if (hasRunEnded((await handle.describe()).status.name)) {
      const closed = await readClosedRun(client, workflowId, runId);
      if (closed !== undefined) return closed.state;
    }
    return await unlessNoWorker(client, workflowId, () => handle.query(stateQuery));
  } catch (error) {
    if (isWorkflowNotFound(error)) throw new RunNotFoundError(workflowId);
    throw error;
  }
}
