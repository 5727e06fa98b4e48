import { AgentRunnerError } from '../shared/agent-runner-error';
import { API_ERROR_CODES, type ApiErrorCode } from './error-codes';

const marker = Symbol.for('agent-runner.error.ApiError');

/** An error the API answers as it is: a code of the catalogue (`./error-codes`), answered with its status. */
export class ApiError extends AgentRunnerError {
  override readonly name = 'ApiError';

  private get [marker](): true {
    return true;
  }

  constructor(
    readonly code: ApiErrorCode,
    message: string,
    readonly details?: unknown,
    /** Only `bad_request` passes on another 4xx status, the one fastify chose. @default the code's status in {@link API_ERROR_CODES} */
    readonly statusCode: number = API_ERROR_CODES[code].status,
  ) {
    super(message);
  }

  static override isInstance(error: unknown): error is ApiError {
    return AgentRunnerError.hasMarker(error, marker);
  }
}
