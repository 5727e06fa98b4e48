import { AgentRunnerError } from '../shared/agent-runner-error';

const marker = Symbol.for('agent-runner.error.ApiRequestError');

/** An answer of the API other than 2xx, with its error code and message. */
export class ApiRequestError extends AgentRunnerError {
  override readonly name = 'ApiRequestError';

  private get [marker](): true {
    return true;
  }

  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }

  static override isInstance(error: unknown): error is ApiRequestError {
    return AgentRunnerError.hasMarker(error, marker);
  }
}
