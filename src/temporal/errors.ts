import { WorkflowNotFoundError } from '@temporalio/client';

/**
 * Whether Temporal answered "no such workflow": `WorkflowNotFoundError`, or a plain gRPC NOT_FOUND from queries,
 * signals and updates (also a signal or update to a completed workflow).
 */
export function isWorkflowNotFound(error: unknown): boolean {
  if (error instanceof WorkflowNotFoundError) return true;
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === 5;
}
