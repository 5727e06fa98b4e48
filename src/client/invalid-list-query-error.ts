import { AgentRunnerError } from '../shared/agent-runner-error';

const marker = Symbol.for('agent-runner.error.InvalidListQueryError');

/** The visibility query given to a run listing cannot be used as it is. */
export class InvalidListQueryError extends AgentRunnerError {
  override readonly name = 'InvalidListQueryError';

  private get [marker](): true {
    return true;
  }

  static override isInstance(error: unknown): error is InvalidListQueryError {
    return AgentRunnerError.hasMarker(error, marker);
  }
}
