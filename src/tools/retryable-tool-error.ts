import { AgentRunnerError } from '../shared/agent-runner-error';

const marker = Symbol.for('agent-runner.error.RetryableToolError');

/**
 * Throw from `execute` for a failure worth retrying: Temporal retries with backoff, where any other error goes
 * back to the model as `Error: <message>`.
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
