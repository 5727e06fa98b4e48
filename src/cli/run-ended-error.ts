import { RunEndedError } from '../client/run-ended-error';
import { statusCommand } from './steering-commands';

/**
 * The run exists but has already ended, so it can no longer take a decision,
 * a message or a terminate request. Temporal answers such a request as if
 * the run did not exist; this error says what is really the case and where
 * to look.
 */
export function runEndedError(workflowId: string, temporalStatus: string): RunEndedError {
  return new RunEndedError(
    workflowId,
    `Run "${workflowId}" has already ended (${temporalStatus.toLowerCase()}); it takes no more requests. ` +
      `See how it ended: ${statusCommand(workflowId)}`,
  );
}
