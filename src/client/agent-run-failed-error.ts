import { AgentRunnerError } from '../shared/agent-runner-error';

const marker = Symbol.for('agent-runner.error.AgentRunFailedError');

/**
 * The run ended in failure. `type` is the failure type, from the
 * `FailureType` catalogue (`InvalidAgentInput`, `MaxInvocationsExceeded`,
 * `ModelCall.Unauthorized`, ...); `details` holds what the run had done
 * (messages, usage) where the failure carries it.
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
