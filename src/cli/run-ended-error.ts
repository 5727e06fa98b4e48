import { statusCommand } from './steering-commands';

/**
 * The run exists but has already ended, so it can no longer take a decision
 * or a terminate request. Temporal answers such a request as if the run did
 * not exist; this error says what is really the case and where to look.
 */
export class RunEndedError extends Error {
  override readonly name = 'RunEndedError';
  readonly workflowId: string;
  readonly temporalStatus: string;

  constructor({ workflowId, temporalStatus }: { workflowId: string; temporalStatus: string }) {
    super(
      `Run "${workflowId}" has already ended (${temporalStatus.toLowerCase()}); it takes no more requests. ` +
        `See how it ended: ${statusCommand(workflowId)}`,
    );
    this.workflowId = workflowId;
    this.temporalStatus = temporalStatus;
  }
}
