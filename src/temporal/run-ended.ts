import type { WorkflowExecutionStatusName } from '@temporalio/client';

/**
 * Whether a run has ended, by Temporal's execution status (`describe()`'s
 * `status.name` for the run's workflow id, which is its latest Temporal run):
 * any status but `RUNNING`. This is the one test the client, the API and the
 * CLI use; the run's own `state.status` is not, since the state query needs a
 * worker and a run closed by Temporal itself (terminated, timed out) never
 * updates it.
 */
export function hasRunEnded(status: WorkflowExecutionStatusName): boolean {
  return status !== 'RUNNING';
}

/**
 * Whether Temporal refused a signal or update because the run has already
 * ended: it answers such a request as if there were no run, with a message
 * that says "already completed". For when there is no status at hand.
 */
export function isRefusedAsEnded(error: unknown): boolean {
  return error instanceof Error && /already completed/i.test(error.message);
}
