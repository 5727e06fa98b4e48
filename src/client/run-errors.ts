import { isWorkflowNotFound } from '../temporal/errors';
import { isRefusedAsEnded } from '../temporal/run-ended';
import { RunNotFoundError } from './run-not-found-error';
import { RunEndedError } from './run-ended-error';

/** `error` as a `RunEndedError` or `RunNotFoundError` when Temporal said there is no such run, or that it has ended; else as it is. */
export function notFoundOr(error: unknown, workflowId: string): unknown {
  // Signals and updates to a closed run come back as not-found too, but say why.
  if (isRefusedAsEnded(error)) return new RunEndedError(workflowId);
  return isWorkflowNotFound(error) ? new RunNotFoundError(workflowId) : error;
}
