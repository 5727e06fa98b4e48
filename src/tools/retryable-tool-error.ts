import { AgentRunnerError } from '../shared/agent-runner-error';

const marker = Symbol.for('agent-runner.error.RetryableToolError');

/**
 * Throw from a tool's `execute` when the failure is worth retrying (a flaky
 * upstream, a lock held elsewhere): Temporal retries the call with backoff
 * instead of reporting the error to the model. Any other error thrown by a
 * tool goes back to the model as the tool's result, `Error: <message>`.
 */
export class RetryableToolError extends AgentRunnerError {
  override readonly name = 'RetryableToolError';

  private get [marker](): true {
    return true;
  }

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }

  static override isInstance(error: unknown): error is RetryableToolError {
    return AgentRunnerError.hasMarker(error, marker);
  }
}
