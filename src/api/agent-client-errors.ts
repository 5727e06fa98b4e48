import { ChatTurnFailedError } from '../client/chat-turn-failed-error';
import { DecisionRejectedError } from '../client/decision-rejected-error';
import { ForkRefusedError } from '../client/fork-refused-error';
import { InvalidListQueryError } from '../client/invalid-list-query-error';
import { NoWorkerError } from '../client/no-worker-error';
import { RunEndedError } from '../client/run-ended-error';
import { RunNotFoundError } from '../client/run-not-found-error';
import { ApiError } from '../http/api-error';
import { answerForFailure, errorHandler, toApiError as toHttpError } from '../http/errors';

/** The API's view of any error: the agent client's errors keep their meaning, the rest as every HTTP server's. */
export function toApiError(error: unknown, requestId: string): ApiError {
  if (ChatTurnFailedError.isInstance(error)) {
    const answer = answerForFailure(error.type);
    const details = {
      type: error.type,
      ...(error.runId ? { run_id: error.runId } : {}),
      ...(error.problems.length > 0 ? { problems: error.problems } : {}),
    };
    return new ApiError(answer.code, error.message, details, answer.status);
  }
  if (RunNotFoundError.isInstance(error)) return new ApiError('run_not_found', error.message);
  if (ForkRefusedError.isInstance(error)) return forkRefusal(error);
  if (DecisionRejectedError.isInstance(error)) return new ApiError('decision_rejected', error.message);
  if (RunEndedError.isInstance(error)) return new ApiError('run_ended', error.message);
  if (NoWorkerError.isInstance(error)) return new ApiError('no_worker', error.message);
  if (InvalidListQueryError.isInstance(error)) return new ApiError('invalid_query', `query: ${error.message}`);
  return toHttpError(error, requestId);
}

/** Fastify's error handler of the API. */
export const handleError = errorHandler(toApiError);

/** The answer to a fork refused before it started, by why. */
function forkRefusal(error: ForkRefusedError): ApiError {
  switch (error.refusal) {
    case 'iteration':
      return new ApiError('fork_iteration_invalid', error.message);
    case 'call':
      return new ApiError('fork_call_unknown', error.message);
    case 'input':
      return new ApiError('fork_input_invalid', error.message, { problems: error.problems });
    case 'history-gone':
      return new ApiError('run_history_gone', error.message);
    case 'history-not-replayed':
      return new ApiError('fork_source_not_replayable', error.message);
  }
}
