import { ServiceError, WorkflowNotFoundError } from '@temporalio/client';
import { NoCurrentVersionError } from '../temporal/no-current-version-error';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import { PayloadKeyError } from '../codec/payload-key-error';
import {
  FailureType,
  MODEL_CALL_FAILURE_PREFIX,
  isFailureType,
  type FailureTypeName,
} from '../shared/failure-catalogue';
import { API_ERROR_CODES, type ApiErrorCode } from './error-codes';
import { ApiError } from './api-error';

/**
 * Every error the API answers is `{ "error": { "code", "message", "details"? } }`
 * with a stable `code` a client can branch on. 5xx answers name the request,
 * never the stack: the stack goes to the server log under the same id.
 */

/** One problem with a request body: where, and why. */
interface FieldProblem {
  field: string;
  problem: string;
}

/** The one answer to a request without the token. */
export const UNAUTHORIZED = new ApiError(
  'unauthorized',
  'Missing or unknown bearer token: send Authorization: Bearer <token>, AGENT_API_TOKEN or a token of the principals file.',
);

/** The answer (503) when Temporal did not answer within the deadline, or refused the connection. */
export function temporalUnavailable(detail?: string): ApiError {
  return new ApiError(
    'temporal_unavailable',
    `The Temporal server cannot be reached or did not answer in time${detail === undefined ? '' : ` (${detail})`}; try again shortly.`,
  );
}

/** The status and `code` the API answers for a failure type. */
export interface FailureAnswer {
  status: number;
  code: ApiErrorCode;
}

/** The answer of `code`, with its status from the catalogue. */
function answerOf(code: ApiErrorCode): FailureAnswer {
  return { status: API_ERROR_CODES[code].status, code };
}

const RUN_FAILED = answerOf('run_failed');
const MODEL_CALL_FAILED = answerOf('model_call_failed');

/**
 * What a refused or failed chat turn answers, by failure type: a `Record` over the catalogue, so a new type does not
 * compile until it has an answer here; types that never end a turn answer `run_failed`.
 */
export const HTTP_STATUS_OF: Readonly<Record<FailureTypeName, FailureAnswer>> = {
  [FailureType.invalidInput]: answerOf('invalid_agent_input'),
  [FailureType.maxInvocationsExceeded]: answerOf('max_invocations_exceeded'),
  [FailureType.maxConsecutiveNudgesExceeded]: answerOf('max_consecutive_nudges_exceeded'),
  [FailureType.tokenBudgetExhausted]: answerOf('token_budget_exhausted'),
  [FailureType.costBudgetExceeded]: answerOf('cost_budget_exceeded'),
  [FailureType.approvalTimedOut]: answerOf('approval_timed_out'),
  [FailureType.contextTooLarge]: answerOf('context_too_large'),
  [FailureType.historyTooLarge]: answerOf('history_too_large'),
  [FailureType.answerTruncated]: answerOf('answer_truncated'),
  // The summarising model call is a model call: its failure is the provider's, as ModelCall.* are.
  [FailureType.compactionFailed]: MODEL_CALL_FAILED,
  [FailureType.outputInvalid]: answerOf('output_invalid'),
  [FailureType.invalidDecision]: RUN_FAILED,
  // The model-call activity's own faults, not the provider's: as before the catalogue named them, a failed run.
  [FailureType.invalidModelCallInput]: RUN_FAILED,
  [FailureType.modelRequestUnavailable]: RUN_FAILED,
  [FailureType.invalidLimits]: RUN_FAILED,
  [FailureType.invalidAnswer]: RUN_FAILED,
  [FailureType.modelCallBadRequest]: MODEL_CALL_FAILED,
  [FailureType.modelCallUnauthorized]: MODEL_CALL_FAILED,
  [FailureType.modelCallForbidden]: MODEL_CALL_FAILED,
  [FailureType.modelCallNotFound]: MODEL_CALL_FAILED,
  [FailureType.modelCallRequestTimeout]: MODEL_CALL_FAILED,
  [FailureType.modelCallConflict]: MODEL_CALL_FAILED,
  [FailureType.modelCallRateLimited]: MODEL_CALL_FAILED,
  [FailureType.modelCallServerError]: MODEL_CALL_FAILED,
  [FailureType.modelCallClientError]: MODEL_CALL_FAILED,
  [FailureType.modelCallQuotaExceeded]: MODEL_CALL_FAILED,
  [FailureType.modelCallContextOverflow]: MODEL_CALL_FAILED,
  [FailureType.modelCallConnectionTimeout]: MODEL_CALL_FAILED,
  [FailureType.modelCallConnectionError]: MODEL_CALL_FAILED,
  [FailureType.modelCallUnexpected]: MODEL_CALL_FAILED,
  [FailureType.modelCallInvalidResponse]: MODEL_CALL_FAILED,
  [FailureType.modelCallStreamInterrupted]: MODEL_CALL_FAILED,
  [FailureType.modelCallPriceUnknown]: MODEL_CALL_FAILED,
  [FailureType.modelCallUnknownEndpoint]: MODEL_CALL_FAILED,
  [FailureType.modelCallTimeout]: MODEL_CALL_FAILED,
  [FailureType.modelCallFailed]: MODEL_CALL_FAILED,
  [FailureType.toolCallRetryable]: RUN_FAILED,
  [FailureType.toolCallLost]: RUN_FAILED,
  [FailureType.maxDepthExceeded]: RUN_FAILED,
  [FailureType.conversationBusy]: answerOf('conversation_busy'),
  [FailureType.conversationEmpty]: answerOf('conversation_empty'),
  [FailureType.conversationEnded]: answerOf('conversation_ending'),
  [FailureType.invalidChatRequest]: answerOf('invalid_body'),
  [FailureType.conversationTooLarge]: answerOf('conversation_too_large'),
  [FailureType.turnTerminated]: answerOf('turn_terminated'),
  [FailureType.turnFailed]: RUN_FAILED,
  [FailureType.workflowTimedOut]: RUN_FAILED,
  [FailureType.untyped]: RUN_FAILED,
};

/**
 * The answer for any failure type: the table's, or for a type the catalogue
 * does not know (a worker of another version, say) a model call's 502 by its
 * namespace, else `run_failed`.
 */
export function answerForFailure(type: string): FailureAnswer {
  if (isFailureType(type)) return HTTP_STATUS_OF[type];
  return type.startsWith(MODEL_CALL_FAILURE_PREFIX) ? MODEL_CALL_FAILED : RUN_FAILED;
}

/** The 400 answer for a body that failed its schema: each field and what is wrong with it. */
function invalidBody(error: z.ZodError): ApiError {
  const details: FieldProblem[] = error.issues.map((issue) => ({
    field: issue.path.length === 0 ? '(body)' : issue.path.map(String).join('.'),
    problem: issue.message,
  }));
  return new ApiError(
    'invalid_body',
    `Invalid request body: ${details.map((d) => `${d.field}: ${d.problem}`).join('; ')}`,
    details,
  );
}

/** Parses `body` with `schema`, answering 400 with every problem when it does not fit. */
export function parseBody<Schema extends z.ZodType>(schema: Schema, body: unknown): z.output<Schema> {
  const parsed = schema.safeParse(body ?? {});
  if (!parsed.success) throw invalidBody(parsed.error);
  return parsed.data;
}

/**
 * The HTTP servers' view of any error: known ones keep their meaning, the rest are a 500 that names the request.
 * The API adds the agent client's errors (`src/api/agent-client-errors.ts`).
 */
export function toApiError(error: unknown, requestId: string): ApiError {
  if (ApiError.isInstance(error)) return error;
  if (NoCurrentVersionError.isInstance(error)) return new ApiError('no_current_version', error.message);
  if (PayloadKeyError.isInstance(error))
    return new ApiError('payload_key_missing', error.message, { key_id: error.keyId });
  if (error instanceof WorkflowNotFoundError)
    return new ApiError('run_not_found', `No run "${error.workflowId}" exists.`);
  if (isInvalidVisibilityQuery(error)) {
    const cause = (error as { cause?: { details?: unknown; message?: unknown } }).cause;
    return new ApiError(
      'invalid_query',
      `query: Temporal refused it: ${String(cause?.details ?? cause?.message ?? 'invalid query')}`,
    );
  }
  const fastifyError = error as Partial<FastifyError>;
  if (fastifyError.code === 'FST_ERR_CTP_BODY_TOO_LARGE')
    return new ApiError('body_too_large', fastifyError.message ?? 'Request body is too large.');
  if (fastifyError.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE')
    return new ApiError('unsupported_media_type', 'Send the body as application/json.');
  if (fastifyError.code === 'FST_ERR_CTP_EMPTY_JSON_BODY')
    return new ApiError('invalid_body', 'The body is empty; send a JSON object.');
  if (
    fastifyError.code === 'FST_ERR_CTP_INVALID_JSON_BODY' ||
    error instanceof SyntaxError ||
    (fastifyError.statusCode === 400 && /JSON/i.test(fastifyError.message ?? ''))
  ) {
    return new ApiError('invalid_json', `The body is not valid JSON: ${fastifyError.message ?? 'parse error'}`);
  }
  if (isTemporalUnavailable(error)) {
    return temporalUnavailable();
  }
  // Any other client error fastify raised (a bad URL, a bad Content-Length, ...) keeps its status.
  if (typeof fastifyError.statusCode === 'number' && fastifyError.statusCode >= 400 && fastifyError.statusCode < 500) {
    return new ApiError('bad_request', fastifyError.message ?? 'Bad request.', undefined, fastifyError.statusCode);
  }
  return new ApiError(
    'internal_error',
    `Internal error; the server log has the details under request id ${requestId}.`,
  );
}

/** Temporal refuses a malformed visibility query: "Failed to list workflows", caused by INVALID_ARGUMENT. */
function isInvalidVisibilityQuery(error: unknown): boolean {
  return (
    error instanceof ServiceError &&
    /list workflows/i.test(error.message) &&
    (error.cause as { code?: unknown } | undefined)?.code === 3
  );
}

function isTemporalUnavailable(error: unknown): boolean {
  const code = (error as { code?: unknown }).code ?? (error as { cause?: { code?: unknown } }).cause?.code;
  // gRPC UNAVAILABLE and DEADLINE_EXCEEDED
  return (error instanceof ServiceError || code !== undefined) && (code === 14 || code === 4);
}

/** Fastify's error handler answering with `toAnswer`: logs what the client is not told, and answers the JSON error. */
export function errorHandler(
  toAnswer: (error: unknown, requestId: string) => ApiError,
): (error: unknown, request: FastifyRequest, reply: FastifyReply) => void {
  return (error, request, reply) => {
    const answer = toAnswer(error, request.id);
    if (answer.statusCode >= 500) request.log.error({ err: error }, answer.message);
    else request.log.info({ code: answer.code }, answer.message);
    void reply.code(answer.statusCode).send(errorBody(answer));
  };
}

/** Fastify's error handler for the errors {@link toApiError} knows. */
export const handleError = errorHandler(toApiError);

/** The API's error body for `error`. */
export function errorBody(error: ApiError): { error: { code: ApiErrorCode; message: string; details?: unknown } } {
  return {
    error: {
      code: error.code,
      message: error.message,
      ...(error.details === undefined ? {} : { details: error.details }),
    },
  };
}
