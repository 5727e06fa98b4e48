import type { WorkflowExecutionStatusName } from '@temporalio/client';

/**
 * Whether a run has ended: any Temporal status of its latest run but `RUNNING`. The one test for client, API and CLI;
 * `state.status` needs a worker and is never updated for a run Temporal terminated.
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
