import type { Client } from '@temporalio/client';
import type { AgentState } from '../shared/agent-result';
import { isWorkflowNotFound } from '../temporal/errors';
import { hasRunEnded } from '../temporal/run-ended';
import { stateQuery } from '../workflow-contract/definitions';
import { readClosedRun } from './closed-run-reader';
import { RunNotFoundError } from './run-not-found-error';
import { unlessNoWorker } from './worker-presence';

/**
 * The run's state: the `state` query while it runs; once it has ended, read from its history (`readClosedRun`: its
 * result or failure, or its history replayed in this process for a run Temporal terminated or timed out), so no
 * action and no worker are needed; a failed run's `messages` are those its failure carries. A history that does not
 * replay against this process's workflow code is asked the query. Throws `RunNotFoundError` for an unknown id. Leave `runId` out to
 * read the run as it is now: a given `runId` reads that Temporal run only, which is closed once the run has
 * continued as new.
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
