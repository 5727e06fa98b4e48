import { AgentRunnerError } from '../shared/agent-runner-error';

const marker = Symbol.for('agent-runner.error.InvalidAgentInputError');

/** The input failed validation before the run was started. */
export class InvalidAgentInputError extends AgentRunnerError {
  override readonly name = 'InvalidAgentInputError';

  private get [marker](): true {
    return true;
  }

  constructor(readonly problems: string[]) {
    super(`Invalid agent input: ${problems.join('; ')}`);
  }

  static override isInstance(error: unknown): error is InvalidAgentInputError {
    return AgentRunnerError.hasMarker(error, marker);
  }
}
