import { AgentRunnerError } from '../shared/agent-runner-error';

const marker = Symbol.for('agent-runner.error.AgentRunFailedError');

/**
 * The run ended in failure: `type` is from the `FailureType` catalogue, `details` what the run had done where the
 * failure carries it.
 */
export class AgentRunFailedError extends AgentRunnerError {
  override readonly name = 'AgentRunFailedError';

  private get [marker](): true {
    return true;
  }

  constructor(
    message: string,
    readonly type: string,
    readonly details: unknown[],
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }

  static override isInstance(error: unknown): error is AgentRunFailedError {
    return AgentRunnerError.hasMarker(error, marker);
  }
}
