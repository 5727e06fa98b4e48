import { AgentRunnerError } from '../shared/agent-runner-error';

const marker = Symbol.for('agent-runner.error.RunEndedError');

/** The run has ended, so it takes no more signals or decisions. */
export class RunEndedError extends AgentRunnerError {
  override readonly name = 'RunEndedError';

  private get [marker](): true {
    return true;
  }

  constructor(
    readonly workflowId: string,
    message = `Run "${workflowId}" has already ended.`,
  ) {
    super(message);
  }

  static override isInstance(error: unknown): error is RunEndedError {
    return AgentRunnerError.hasMarker(error, marker);
  }
}
