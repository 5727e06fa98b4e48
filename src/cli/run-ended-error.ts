import { RunEndedError } from '../client/run-ended-error';
import { statusCommand } from './steering-commands';

/**
 * The run has ended and can take no decision, message or terminate; Temporal would answer as if it did not exist.
 */
export function runEndedError(workflowId: string, temporalStatus: string): RunEndedError {
  return new RunEndedError(
    workflowId,
    `Run "${workflowId}" has already ended (${temporalStatus.toLowerCase()}); it takes no more requests. ` +
      `See how it ended: ${statusCommand(workflowId)}`,
  );
}
