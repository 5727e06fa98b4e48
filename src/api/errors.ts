import { ServiceError, WorkflowNotFoundError } from '@temporalio/client';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import { ChatTurnFailedError } from '../conversations';
import { DecisionRejectedError, InvalidListQueryError, RunEndedError, RunNotFoundError } from '../run-control';

/**
 * Every error the API answers is `{ "error": { "code", "message", "details"? } }`
 * with a stable `code` a client can branch on. 5xx answers name the request,
 * never the stack: the stack goes to the server log under the same id.
 */

/** One problem with a request body: where, and why. */
export interface FieldProblem {
  field: string;
  problem: string;
}

/** An error the API answers as it is. */
export class ApiError extends Error {
  constructor(
    readonly statusCode: number,
    readonly code: string,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
  }
}

/** The one answer to a request without the token. */
export const UNAUTHORIZED = new ApiError(401, 'unauthorized', 'Missing or wrong bearer token: send Authorization: Bearer <AGENT_API_TOKEN>.');

/** The answer (503) when Temporal did not answer within the deadline, or refused the connection. */
export function temporalUnavailable(detail?: string): ApiError {
  return new ApiError(
    503,
    'temporal_unavailable',
    `The Temporal server cannot be reached or did not answer in time${detail === undefined ? '' : ` (${detail})`}; try again shortly.`,
  );
}

/** Seed 000's two error conditions, and the other ways a turn's run fails, by failure type. */
const RUN_FAILURES: Record<string, { status: number; code: string }> = {
  MaxInvocationsExceeded: { status: 422, code: 'max_invocations_exceeded' },
  MaxConsecutiveNudgesExceeded: { status: 422, code: 'max_consecutive_nudges_exceeded' },
  TokenBudgetExhausted: { status: 422, code: 'token_budget_exhausted' },
  ApprovalTimedOut: { status: 422, code: 'approval_timed_out' },
  ContextTooLarge: { status: 422, code: 'context_too_large' },
  HistoryTooLarge: { status: 422, code: 'history_too_large' },
  ConversationTooLarge: { status: 409, code: 'conversation_too_large' },
  InvalidAgentInput: { status: 400, code: 'invalid_agent_input' },
  ConversationBusy: { status: 409, code: 'conversation_busy' },
  ConversationEnded: { status: 409, code: 'conversation_ending' },
  ConversationEmpty: { status: 409, code: 'conversation_empty' },
  InvalidChatRequest: { status: 400, code: 'invalid_body' },
  TurnTerminated: { status: 409, code: 'turn_terminated' },
};

/** The 400 answer for a body that failed its schema: each field and what is wrong with it. */
export function invalidBody(error: z.ZodError): ApiError {
  const details: FieldProblem[] = error.issues.map((issue) => ({
    field: issue.path.length === 0 ? '(body)' : issue.path.map(String).join('.'),
    problem: issue.message,
  }));
  return new ApiError(400, 'invalid_body', `Invalid request body: ${details.map((d) => `${d.field}: ${d.problem}`).join('; ')}`, details);
}

/** Parses `body` with `schema`, answering 400 with every problem when it does not fit. */
export function parseBody<Schema extends z.ZodType>(schema: Schema, body: unknown): z.output<Schema> {
  const parsed = schema.safeParse(body ?? {});
  if (!parsed.success) throw invalidBody(parsed.error);
  return parsed.data;
}

/** The API's view of any error: known ones keep their meaning, the rest are a 500 that names the request. */
export function toApiError(error: unknown, requestId: string): ApiError {
  if (error instanceof ApiError) return error;
  if (error instanceof ChatTurnFailedError) {
    const known = RUN_FAILURES[error.type];
    const details = { type: error.type, ...(error.runId ? { run_id: error.runId } : {}), ...(error.problems.length > 0 ? { problems: error.problems } : {}) };
    if (known !== undefined) return new ApiError(known.status, known.code, error.message, details);
    if (error.type.startsWith('ModelCall.')) return new ApiError(502, 'model_call_failed', error.message, details);
    return new ApiError(500, 'run_failed', error.message, details);
  }
  if (error instanceof RunNotFoundError) return new ApiError(404, 'run_not_found', error.message);
  if (error instanceof WorkflowNotFoundError) return new ApiError(404, 'run_not_found', `No run "${error.workflowId}" exists.`);
  if (error instanceof DecisionRejectedError) return new ApiError(409, 'decision_rejected', error.message);
  if (error instanceof RunEndedError) return new ApiError(409, 'run_ended', error.message);
  if (error instanceof InvalidListQueryError) return new ApiError(400, 'invalid_query', `query: ${error.message}`);
  if (isInvalidVisibilityQuery(error)) {
    const cause = (error as { cause?: { details?: unknown; message?: unknown } }).cause;
    return new ApiError(400, 'invalid_query', `query: Temporal refused it: ${String(cause?.details ?? cause?.message ?? 'invalid query')}`);
  }
  const fastifyError = error as Partial<FastifyError>;
  if (fastifyError.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return new ApiError(413, 'body_too_large', fastifyError.message ?? 'Request body is too large.');
  if (fastifyError.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') return new ApiError(415, 'unsupported_media_type', 'Send the body as application/json.');
  if (fastifyError.code === 'FST_ERR_CTP_EMPTY_JSON_BODY') return new ApiError(400, 'invalid_body', 'The body is empty; send a JSON object.');
  if (fastifyError.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || error instanceof SyntaxError || (fastifyError.statusCode === 400 && /JSON/i.test(fastifyError.message ?? ''))) {
    return new ApiError(400, 'invalid_json', `The body is not valid JSON: ${fastifyError.message ?? 'parse error'}`);
  }
  if (isTemporalUnavailable(error)) {
    return temporalUnavailable();
  }
  // Any other client error fastify raised (a bad URL, a bad Content-Length, ...) keeps its status.
  if (typeof fastifyError.statusCode === 'number' && fastifyError.statusCode >= 400 && fastifyError.statusCode < 500) {
    return new ApiError(fastifyError.statusCode, 'bad_request', fastifyError.message ?? 'Bad request.');
  }
  return new ApiError(500, 'internal_error', `Internal error; the server log has the details under request id ${requestId}.`);
}

/** Temporal refuses a malformed visibility query: "Failed to list workflows", caused by INVALID_ARGUMENT. */
function isInvalidVisibilityQuery(error: unknown): boolean {
  return error instanceof ServiceError && /list workflows/i.test(error.message) && (error.cause as { code?: unknown } | undefined)?.code === 3;
}

function isTemporalUnavailable(error: unknown): boolean {
  const code = (error as { code?: unknown }).code ?? ((error as { cause?: { code?: unknown } }).cause?.code);
  // gRPC UNAVAILABLE and DEADLINE_EXCEEDED
  return (error instanceof ServiceError || code !== undefined) && (code === 14 || code === 4);
}

/** Fastify's error handler: logs what the client is not told, and answers the JSON error. */
export function handleError(error: unknown, request: FastifyRequest, reply: FastifyReply): void {
  const answer = toApiError(error, request.id);
  if (answer.statusCode >= 500) request.log.error({ err: error }, answer.message);
  else request.log.info({ code: answer.code }, answer.message);
  void reply.code(answer.statusCode).send(errorBody(answer));
}

export function errorBody(error: ApiError): { error: { code: string; message: string; details?: unknown } } {
  return { error: { code: error.code, message: error.message, ...(error.details === undefined ? {} : { details: error.details }) } };
}
