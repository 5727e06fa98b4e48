import { AgentRunnerError } from '../shared/agent-runner-error';

const marker = Symbol.for('agent-runner.error.RunNotFoundError');

/** No run with this id exists in the namespace. */
export class RunNotFoundError extends AgentRunnerError {
  override readonly name = 'RunNotFoundError';

  private get [marker](): true {
    return true;
  }

  constructor(readonly workflowId: string) {
    super(`No run "${workflowId}" exists.`);
  }

  static override isInstance(error: unknown): error is RunNotFoundError {
    return AgentRunnerError.hasMarker(error, marker);
  }
}
