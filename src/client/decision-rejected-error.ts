import { AgentRunnerError } from '../shared/agent-runner-error';

const marker = Symbol.for('agent-runner.error.DecisionRejectedError');

/** The decision was refused by the run (unknown call, already decided, arguments off-schema). */
export class DecisionRejectedError extends AgentRunnerError {
  override readonly name = 'DecisionRejectedError';

  private get [marker](): true {
    return true;
  }

  static override isInstance(error: unknown): error is DecisionRejectedError {
    return AgentRunnerError.hasMarker(error, marker);
  }
}
