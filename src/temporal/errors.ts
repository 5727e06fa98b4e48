import { WorkflowNotFoundError } from '@temporalio/client';

/**
 * Whether Temporal answered "no such workflow". The client throws
 * `WorkflowNotFoundError` for some calls, but queries, signals and updates
 * come back as a plain gRPC NOT_FOUND (code 5) — which is also the answer to
 * a signal or update sent to a workflow that has completed.
 */
export function isWorkflowNotFound(error: unknown): boolean {
  if (error instanceof WorkflowNotFoundError) return true;
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === 5;
}
