/**
 * Every `code` the HTTP API answers, with its status and meaning; `ApiError` takes only these, and the OpenAPI
 * document and the HTTP reference list them from here.
 */
export interface ApiErrorCodeEntry {
  /** The HTTP status answered with this code. */
  status: number;
  /** When the API answers it, for the reference. */
  meaning: string;
}

export const API_ERROR_CODES = {
  unauthorized: {
    status: 401,
    meaning: 'The `Authorization: Bearer <token>` header is missing, or its token is no principal’s.',
  },
  forbidden: {
    status: 403,
    meaning: 'The token is known, but its principal lacks the scope the route needs (the message names it).',
  },
  tool_not_allowed: {
    status: 403,
    meaning: 'The request names a tool API callers may not name (`AGENT_API_ALLOWED_TOOLS`); nothing was started.',
  },
  model_not_allowed: {
    status: 403,
    meaning:
      "The request names a model API callers may not name, as its model, a fallback, its compaction or extraction model, or a chat turn's model (`AGENT_API_ALLOWED_MODELS`); nothing was started.",
  },
  origin_not_allowed: {
    status: 403,
    meaning:
      'The codec server: the request comes from a browser page whose origin is not in `AGENT_CODEC_CORS_ORIGINS`.',
  },
  host_not_allowed: {
    status: 403,
    meaning:
      'Authentication is off (`AGENT_API_AUTH=none`) and the `Host` header is not localhost, 127.0.0.1 or [::1] (a DNS rebinding guard).',
  },
  too_many_logins: {
    status: 429,
    meaning:
      'The codec server or the console: this client address failed to sign in too often; `Retry-After` says when it may try again.',
  },
  console_csrf: {
    status: 403,
    meaning:
      'The console’s session cookie came without its `x-agent-console-csrf` header, from another origin, or on a route the console does not use.',
  },
  route_not_found: { status: 404, meaning: 'No route has this method and path.' },
  bad_request: {
    status: 400,
    meaning: 'The request is not valid HTTP, or fastify refused it (its own 4xx status, 400 most often).',
  },
  request_timeout: {
    status: 408,
    meaning: 'The request did not arrive in time (answered before routing; the connection closes).',
  },
  headers_too_large: { status: 431, meaning: 'The request headers pass the server’s limit (answered before routing).' },
  body_too_large: { status: 413, meaning: 'The body is larger than `AGENT_API_BODY_LIMIT`.' },
  unsupported_media_type: { status: 415, meaning: 'The body is not `application/json`.' },
  invalid_json: { status: 400, meaning: 'The body is not valid JSON.' },
  invalid_body: {
    status: 400,
    meaning: 'The body does not fit its schema (`details` lists each field and its problem), or nests too deep.',
  },
  invalid_query: {
    status: 400,
    meaning: 'The query string does not fit its schema, or Temporal refused the visibility query.',
  },
  invalid_header: {
    status: 400,
    meaning: 'A header the route reads (`Idempotency-Key`, `Last-Event-ID`) is malformed.',
  },
  invalid_run_id: { status: 400, meaning: 'The `run_id` path parameter is empty or too long.' },
  invalid_context_id: { status: 400, meaning: 'The `context_id` path parameter is not a valid identifier.' },
  run_not_found: { status: 404, meaning: 'No run has this id, or it is not an agent run.' },
  run_exists: { status: 409, meaning: 'A run with this `run_id` exists already.' },
  fork_iteration_invalid: {
    status: 400,
    meaning: '`at_iteration` is before 1, or not an iteration the source run began (before its first, past its last).',
  },
  fork_call_unknown: {
    status: 400,
    meaning: 'A `tool_results` call id is not in the conversation at the fork point (unknown, or made at or after it).',
  },
  fork_input_invalid: {
    status: 400,
    meaning: 'The fork’s input, the source’s with the edits, is not a valid run input (`details.problems` says why).',
  },
  run_history_gone: {
    status: 404,
    meaning: 'The Temporal run that holds the iteration has no history any more (past the namespace’s retention).',
  },
  fork_source_not_replayable: {
    status: 409,
    meaning:
      'The source run was recorded by other workflow code (another build): its history does not replay against the API’s, so its state cannot be read; fork it with the version its worker ran.',
  },
  no_current_version: {
    status: 409,
    meaning:
      '`versioning: "pinned"` was asked for, and the task queue has no current worker deployment version to pin the run to (unversioned workers, or none made current yet); nothing was started.',
  },
  run_ended: { status: 409, meaning: 'The run has ended: it takes no messages and cannot be terminated.' },
  decision_rejected: {
    status: 409,
    meaning:
      'The run refused the decision (no such pending call, or decided already), or the answer (no such MCP question waits, or the fields do not fit its form).',
  },
  approval_not_bound: {
    status: 403,
    meaning:
      '`POST /ui/chat`: an answered approval is not for a call of this chat’s turn in progress (another chat’s, an earlier turn’s, an id this API did not issue), or its signature does not verify.',
  },
  conversation_not_found: {
    status: 404,
    meaning: 'No conversation has this `context_id` (or none is open, for DELETE).',
  },
  conversation_busy: { status: 409, meaning: 'A turn is already running on the conversation.' },
  conversation_empty: { status: 409, meaning: 'The turn needs a conversation with messages (invoke, add-ai-message).' },
  conversation_ending: {
    status: 409,
    meaning: 'The conversation is ending; the next request on the context starts a new one.',
  },
  conversation_too_large: { status: 409, meaning: 'The conversation has grown past what a turn may carry.' },
  turn_terminated: { status: 409, meaning: 'The turn’s run was stopped from outside before it answered.' },
  invalid_agent_input: {
    status: 400,
    meaning: 'The run input built for the turn was refused (`details.problems` says why).',
  },
  max_invocations_exceeded: { status: 422, meaning: 'The turn’s run made as many model calls as it may.' },
  max_consecutive_nudges_exceeded: {
    status: 422,
    meaning: 'The model answered without the terminating tool too many times in a row.',
  },
  output_invalid: {
    status: 422,
    meaning: 'The model gave no answer valid against `output.schema` within `output.maxCorrections` corrections.',
  },
  token_budget_exhausted: { status: 422, meaning: 'The turn’s run reached its token budget.' },
  cost_budget_exceeded: { status: 422, meaning: 'The turn’s run reached its cost budget.' },
  approval_timed_out: {
    status: 422,
    meaning: 'A tool call waited for approval past its timeout, set to fail the run.',
  },
  context_too_large: { status: 422, meaning: 'What the run would send or return is larger than the limits allow.' },
  history_too_large: { status: 422, meaning: 'The run’s Temporal history grew past its limit.' },
  answer_truncated: {
    status: 422,
    meaning: 'The model’s final answer was cut by the token cap, and the run was not to accept it so.',
  },
  model_call_failed: {
    status: 502,
    meaning: 'The model provider failed (any `ModelCall.*` failure, or a compaction call).',
  },
  run_failed: {
    status: 500,
    meaning: 'The turn’s run failed for another reason (`details.type` names the failure type).',
  },
  payload_key_missing: {
    status: 500,
    meaning:
      'The run’s payloads are encrypted with a key the API does not hold (`details.key_id` names it): add it to `AGENT_CODEC_KEYS` or `AGENT_CODEC_KEY_FILE`.',
  },
  internal_error: {
    status: 500,
    meaning: 'A bug: the server log has the details under the request id the message gives.',
  },
  no_worker: {
    status: 503,
    meaning:
      "No worker polls the run's task queue, so the run cannot answer a query or a decision: start one on that queue.",
  },
  temporal_unavailable: {
    status: 503,
    meaning: 'Temporal cannot be reached or did not answer within the deadline; try again shortly.',
  },
} as const satisfies Record<string, ApiErrorCodeEntry>;

/** A `code` of the API's error body. */
export type ApiErrorCode = keyof typeof API_ERROR_CODES;

/** Every code, in the catalogue's order. */
export const API_ERROR_CODE_NAMES = Object.keys(API_ERROR_CODES) as ApiErrorCode[];
