import { isWorkflowNotFound } from '../temporal/errors';
import { isRefusedAsEnded } from '../temporal/run-ended';

/** No run with this id exists in the namespace. */
export class RunNotFoundError extends Error {
  override readonly name = 'RunNotFoundError';

  constructor(readonly workflowId: string) {
    super(`No run "${workflowId}" exists.`);
  }
}

/** The run has ended, so it takes no more signals or decisions. */
export class RunEndedError extends Error {
  override readonly name = 'RunEndedError';

  constructor(
    readonly workflowId: string,
    message = `Run "${workflowId}" has already ended.`,
  ) {
    super(message);
  }
}

/** `error` as one of the errors above when Temporal said there is no such run, or that it has ended; else as it is. */
export function notFoundOr(error: unknown, workflowId: string): unknown {
  // Signals and updates to a closed run come back as not-found too, but say why.
  if (isRefusedAsEnded(error)) return new RunEndedError(workflowId);
  return isWorkflowNotFound(error) ? new RunNotFoundError(workflowId) : error;
}
