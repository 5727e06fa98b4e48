import type { z } from 'zod';
import { HTTP_STATUS_OF } from '../../http/errors';
import type { ApiErrorCode } from '../../http/error-codes';
import * as answers from '../response-schemas';
import * as requests from '../schemas';
import { uiChatBody, uiChatPathParams } from '../ui-chat/ui-chat-request';
import { payloadsBodySchema } from '../../codec-server/payload-json';
import { CODEC_SERVER_DEFAULTS } from '../../shared/defaults/codec-server';
import { API_ADMISSION_WAIT_MS } from '../../shared/defaults/api';

/**
 * Every route of the API as the OpenAPI document describes it, with its zod schemas; a test fails on a route fastify
 * registered that is missing here, or an operation no route serves.
 */

/** One answer of an operation. */
export interface OperationAnswer {
  description: string;
  /** The JSON body, under this component name. */
  json?: { id: string; schema: z.ZodType };
  /** The answer is (or may be, by `Accept`) a Server-Sent Events stream: what its events are. */
  eventStream?: string;
  /** Response headers the route sets, with what they hold. */
  headers?: Record<string, string>;
}

/** One header the route reads. */
interface OperationHeader {
  schema: z.ZodType;
  description: string;
}

/** One route: method and path as fastify registers them (`/runs/:run_id`). */
export interface ApiOperation {
  method: 'GET' | 'POST' | 'DELETE';
  url: string;
  operationId: string;
  tag: 'health' | 'chat' | 'conversations' | 'runs' | 'document' | 'codec';
  summary: string;
  description?: string;
  /** Answered without the bearer token. */
  open?: true;
  params?: z.ZodObject;
  query?: z.ZodObject;
  headers?: Record<string, OperationHeader>;
  body?: { id: string; schema: z.ZodType };
  answers: Record<number, OperationAnswer>;
  /**
   * The error codes this route answers, besides those every route may (`unauthorized` unless open, `internal_error`,
   * `bad_request`), every body (`invalid_json`, `invalid_body`, `body_too_large`, `unsupported_media_type`) and every
   * query string (`invalid_body`).
   */
  errors: ApiErrorCode[];
}

const runEventsStream =
  'Server-Sent Events: each run event as `id: <seq>`, `event: <type>`, `data: <RunEvent JSON>`; model deltas (`model-text-delta`, ' +
  "`model-reasoning-delta`, `model-tool-call-delta`, `model-delta-reset`) without an id; `model-stream-unreachable` (no id) once when the API cannot reach the worker's stream port; `events-missed` (`{ missed }`) when the " +
  'stream skipped ahead; `no-worker` (the error body’s `error`, code `no_worker`, no id) once when no worker polls the run’s task queue: the stream waits for one; `end` (`RunOutcome` with `run_id`) when the run has ended; `error` (the error body’s `error`) on a failure ' +
  'after the stream began; `: keep-alive` comments while idle.';

// `Accept` chooses between the two (OpenAPI ignores an `Accept` header parameter: the answer's two media types say it).
const chatStream =
  'With `Accept: text/event-stream`: OpenAI-style `chat.completion.chunk` events carrying the model’s text as it is generated; a ' +
  'chunk whose `agent_runner.reset` is true means discard the text of this model call so far; the last chunk has `finish_reason: ' +
  '"stop"` and the turn’s answer under `agent_runner` (the JSON answer’s fields, `run_id` and `turn`); then `data: [DONE]`. A failure ' +
  'after the stream began is a `data: {"error": ...}` event, then `[DONE]`.';

const chatHeaders: Record<string, OperationHeader> = {
  'Idempotency-Key': {
    schema: requests.idempotencyKeyHeader,
    description: 'A retry with the same key answers the same turn rather than running another.',
  },
};

/** The codes a chat turn's failure answers, from the failure catalogue's mapping. */
const chatTurnFailureCodes = [...new Set(Object.values(HTTP_STATUS_OF).map((answer) => answer.code))];

const chatAnswers: Record<number, OperationAnswer> = {
  200: {
    description: 'The turn’s answer, in the chat response format (or its event stream, by `Accept`).',
    json: { id: 'ChatResponse', schema: answers.chatResponse },
    eventStream: chatStream,
    headers: {
      'agent-run-id': 'The turn’s agent run (JSON answers only).',
      'agent-turn': 'The turn’s number (JSON answers only).',
    },
  },
};

const chatErrors: ApiErrorCode[] = [
  'invalid_header',
  'tool_not_allowed',
  'model_not_allowed',
  'temporal_unavailable',
  ...chatTurnFailureCodes,
];

const runParams = requests.runPathParams;

const uiMessageStream =
  'The AI SDK’s UI message stream (`x-vercel-ai-ui-message-stream: v1`, `ai` 7.0.173): `data: <chunk JSON>` events — `start` ' +
  '(the message id is the turn’s run id), `start-step`/`finish-step`/`reset-step`, `text-*`, `reasoning-*`, `tool-input-*`, ' +
  '`tool-approval-request`, `tool-output-available`/`-error`/`-denied`, `finish`, `error`, `abort` — then `data: [DONE]`. ' +
  'It ends at the run’s end or when a call waits for a decision.';

const payloadsBody = payloadsBodySchema(CODEC_SERVER_DEFAULTS.maxPayloads);

export const API_OPERATIONS: readonly ApiOperation[] = [
  {
    method: 'GET',
    url: '/healthz',
    operationId: 'getHealth',
    tag: 'health',
    summary: 'Liveness: the process answers.',
    open: true,
    answers: { 200: { description: 'Alive.', json: { id: 'HealthResponse', schema: answers.healthResponse } } },
    errors: [],
  },
  {
    method: 'GET',
    url: '/readyz',
    operationId: 'getReadiness',
    tag: 'health',
    summary: 'Readiness: Temporal answers for the namespace too.',
    open: true,
    answers: { 200: { description: 'Ready.', json: { id: 'ReadyResponse', schema: answers.readyResponse } } },
    errors: ['temporal_unavailable'],
  },
  {
    method: 'GET',
    url: '/openapi.json',
    operationId: 'getOpenApiDocument',
    tag: 'document',
    summary: 'This document.',
    open: true,
    answers: { 200: { description: 'The OpenAPI 3.1 document of the API.' } },
    errors: [],
  },
  {
    method: 'POST',
    url: '/chat',
    operationId: 'chat',
    tag: 'chat',
    summary: 'A human message: one turn on the durable conversation of `context_id`.',
    headers: chatHeaders,
    body: { id: 'ChatRequest', schema: requests.chatBody },
    answers: chatAnswers,
    errors: chatErrors,
  },
  {
    method: 'POST',
    url: '/chat/invoke',
    operationId: 'chatInvoke',
    tag: 'chat',
    summary: 'The agent runs on the conversation as it is.',
    headers: chatHeaders,
    body: { id: 'InvokeRequest', schema: requests.invokeBody },
    answers: chatAnswers,
    errors: chatErrors,
  },
  {
    method: 'POST',
    url: '/chat/add-ai-message',
    operationId: 'chatAddAiMessage',
    tag: 'chat',
    summary: 'The agent adds a message, optionally steered by a prompt.',
    headers: chatHeaders,
    body: { id: 'AddAiMessageRequest', schema: requests.addAiMessageBody },
    answers: chatAnswers,
    errors: chatErrors,
  },
  {
    method: 'POST',
    url: '/ui/chat',
    operationId: 'uiChat',
    tag: 'chat',
    summary:
      'The AI SDK’s chat protocol: a turn on the conversation of the chat’s `id`, or decisions on the calls it waits on.',
    description:
      'The last message is read: a user message starts a turn; an assistant message whose tool parts are in state `approval-responded` decides those calls as the principal (which then needs `approvals:decide`) and continues the turn’s stream.',
    body: { id: 'UiChatRequest', schema: uiChatBody },
    answers: { 200: { description: 'The turn as a UI message stream.', eventStream: uiMessageStream } },
    errors: [
      'forbidden',
      'tool_not_allowed',
      'model_not_allowed',
      'approval_not_bound',
      'decision_rejected',
      'temporal_unavailable',
      ...chatTurnFailureCodes,
    ],
  },
  {
    method: 'GET',
    url: '/ui/chat/:id/stream',
    operationId: 'resumeUiChat',
    tag: 'chat',
    summary: 'Replays the chat’s turn in progress from its start, for `useChat({ resume: true })`.',
    params: uiChatPathParams,
    answers: {
      200: { description: 'The turn in progress as a UI message stream.', eventStream: uiMessageStream },
      204: { description: 'No turn is in progress on the chat.' },
    },
    errors: ['invalid_context_id', 'temporal_unavailable'],
  },
  {
    method: 'GET',
    url: '/conversations/:context_id',
    operationId: 'getConversation',
    tag: 'conversations',
    summary: 'A conversation: its messages, turns and the turn in progress.',
    params: requests.conversationPathParams,
    answers: {
      200: {
        description: 'The conversation.',
        json: { id: 'ConversationResponse', schema: answers.conversationResponse },
      },
    },
    errors: ['invalid_context_id', 'conversation_not_found', 'temporal_unavailable'],
  },
  {
    method: 'DELETE',
    url: '/conversations/:context_id',
    operationId: 'endConversation',
    tag: 'conversations',
    summary: 'Ends a conversation; the next request on the context starts a new one.',
    params: requests.conversationPathParams,
    answers: {
      202: {
        description: 'Ending.',
        json: { id: 'ConversationEndingResponse', schema: answers.conversationEndingResponse },
      },
    },
    errors: ['invalid_context_id', 'conversation_not_found', 'temporal_unavailable'],
  },
  {
    method: 'POST',
    url: '/runs',
    operationId: 'startRun',
    tag: 'runs',
    summary: `Starts a run on the workflow's input (\`tools\` unset: \`AGENT_TOOLS\`), and answers once its worker has checked its tools (at most ${API_ADMISSION_WAIT_MS / 1000} s).`,
    body: { id: 'StartRunRequest', schema: requests.startRunBody },
    answers: {
      202: {
        description: 'Started; follow it at `status_url` and `events_url`.',
        json: { id: 'RunStartedResponse', schema: answers.runStartedResponse },
        headers: { location: 'The run’s URL (`status_url`).' },
      },
    },
    errors: [
      'invalid_agent_input',
      'tool_not_allowed',
      'model_not_allowed',
      'run_exists',
      'no_current_version',
      'temporal_unavailable',
    ],
  },
  {
    method: 'GET',
    url: '/runs',
    operationId: 'listRuns',
    tag: 'runs',
    summary: 'Lists runs, newest first, by their search attributes.',
    query: requests.listRunsQuery,
    answers: { 200: { description: 'The runs.', json: { id: 'RunListResponse', schema: answers.runListResponse } } },
    errors: ['invalid_query', 'temporal_unavailable'],
  },
  {
    method: 'GET',
    url: '/runs/:run_id',
    operationId: 'getRun',
    tag: 'runs',
    summary: 'A run’s Temporal status and its state.',
    params: runParams,
    answers: { 200: { description: 'The run.', json: { id: 'RunStateResponse', schema: answers.runStateResponse } } },
    errors: ['invalid_run_id', 'run_not_found', 'temporal_unavailable'],
  },
  {
    method: 'GET',
    url: '/runs/:run_id/result',
    operationId: 'getRunResult',
    tag: 'runs',
    summary: 'How a run ended (200), or that it still runs (202).',
    params: runParams,
    answers: {
      200: {
        description: 'The run has ended: `completed`, `terminated` or `failed`.',
        json: { id: 'RunResultResponse', schema: answers.runResultResponse },
      },
      202: {
        description: 'The run is still running (`outcome: "running"`).',
        json: { id: 'RunResultResponse', schema: answers.runResultResponse },
      },
    },
    errors: ['invalid_run_id', 'run_not_found', 'temporal_unavailable'],
  },
  {
    method: 'POST',
    url: '/runs/:run_id/approve',
    operationId: 'approveToolCall',
    tag: 'runs',
    summary: 'Approves a pending tool call, optionally with replacement arguments.',
    params: runParams,
    body: { id: 'ApproveRequest', schema: requests.approveBody },
    answers: {
      200: {
        description: 'The decision as the run recorded it.',
        json: { id: 'DecisionResponse', schema: answers.decisionResponse },
      },
    },
    errors: ['invalid_run_id', 'run_not_found', 'decision_rejected', 'run_ended', 'temporal_unavailable'],
  },
  {
    method: 'POST',
    url: '/runs/:run_id/deny',
    operationId: 'denyToolCall',
    tag: 'runs',
    summary: 'Denies a pending tool call; the model hears the reason.',
    params: runParams,
    body: { id: 'DenyRequest', schema: requests.denyBody },
    answers: {
      200: {
        description: 'The decision as the run recorded it.',
        json: { id: 'DecisionResponse', schema: answers.decisionResponse },
      },
    },
    errors: ['invalid_run_id', 'run_not_found', 'decision_rejected', 'run_ended', 'temporal_unavailable'],
  },
  {
    method: 'POST',
    url: '/runs/:run_id/answer',
    operationId: 'answerElicitation',
    tag: 'runs',
    summary:
      "Answers an MCP server's question: accept with the form's fields, decline or cancel (`approvals:decide`); the principal is recorded as who answered.",
    params: runParams,
    body: { id: 'AnswerRequest', schema: requests.answerBody },
    answers: {
      200: {
        description: 'The answer as the run recorded it.',
        json: { id: 'AnswerResponse', schema: answers.answerResponse },
      },
    },
    errors: ['invalid_run_id', 'run_not_found', 'decision_rejected', 'run_ended', 'temporal_unavailable'],
  },
  {
    method: 'POST',
    url: '/runs/:run_id/stop',
    operationId: 'stopRun',
    tag: 'runs',
    summary:
      'Asks a run to stop at its next check (the `stop` signal), after the model response or tool batch in flight, cancelling nothing. Only a run whose `stopWhen` contains `{ "external": true }` obeys: it ends with `terminationReason` `stop_condition` `external()`. Any other run records a `stop-request` event and goes on; terminate ends it.',
    params: runParams,
    body: { id: 'StopRequest', schema: requests.stopBody },
    answers: {
      202: {
        description: 'The request was delivered.',
        json: { id: 'StopRequestedResponse', schema: answers.stopRequestedResponse },
      },
    },
    errors: ['invalid_run_id', 'run_not_found', 'run_ended', 'temporal_unavailable'],
  },
  {
    method: 'POST',
    url: '/runs/:run_id/terminate',
    operationId: 'terminateRun',
    tag: 'runs',
    summary: 'Stops a run gracefully (the `terminate` signal).',
    params: runParams,
    body: { id: 'TerminateRequest', schema: requests.terminateBody },
    answers: {
      202: { description: 'Terminating.', json: { id: 'TerminatingResponse', schema: answers.terminatingResponse } },
    },
    errors: ['invalid_run_id', 'run_not_found', 'run_ended', 'temporal_unavailable'],
  },
  {
    method: 'POST',
    url: '/runs/:run_id/fork',
    operationId: 'forkRun',
    tag: 'runs',
    summary:
      'Starts a new run from the run’s conversation as it stood when an iteration began, edited; the run is untouched. Needs `runs:write` and `runs:read`.',
    params: runParams,
    body: { id: 'ForkRunRequest', schema: requests.forkRunBody },
    answers: {
      202: {
        description: 'The fork started; follow it at `status_url` and `events_url`.',
        json: { id: 'ForkStartedResponse', schema: answers.forkStartedResponse },
        headers: { location: 'The fork’s URL (`status_url`).' },
      },
    },
    errors: [
      'invalid_run_id',
      'run_not_found',
      'run_history_gone',
      'fork_source_not_replayable',
      'fork_iteration_invalid',
      'fork_call_unknown',
      'fork_input_invalid',
      'model_not_allowed',
      'run_exists',
      'temporal_unavailable',
    ],
  },
  {
    method: 'POST',
    url: '/runs/:run_id/messages',
    operationId: 'sendRunMessage',
    tag: 'runs',
    summary: 'Sends a person’s message to a running run (the `userMessage` signal).',
    params: runParams,
    body: { id: 'MessageRequest', schema: requests.messageBody },
    answers: {
      202: {
        description: 'Delivered.',
        json: { id: 'MessageDeliveredResponse', schema: answers.messageDeliveredResponse },
      },
    },
    errors: ['invalid_run_id', 'run_not_found', 'run_ended', 'temporal_unavailable'],
  },
  {
    method: 'GET',
    url: '/runs/:run_id/messages',
    operationId: 'getRunMessages',
    tag: 'runs',
    summary: 'A page of the run’s transcript.',
    params: runParams,
    query: requests.transcriptQueryString,
    answers: {
      200: { description: 'The page.', json: { id: 'MessagePageResponse', schema: answers.messagePageResponse } },
    },
    errors: ['invalid_run_id', 'run_not_found', 'temporal_unavailable'],
  },
  {
    method: 'GET',
    url: '/runs/:run_id/events',
    operationId: 'followRunEvents',
    tag: 'runs',
    summary: 'Follows a run’s events as Server-Sent Events, from the start or after a `seq`.',
    params: runParams,
    query: requests.eventsQueryString,
    headers: {
      'Last-Event-ID': {
        schema: requests.lastEventIdHeader,
        description:
          'Resume after this `seq` (an EventSource sends it when it reconnects); the later of it and `after` wins.',
      },
    },
    answers: {
      200: { description: 'The event stream, until the run ends or the client goes.', eventStream: runEventsStream },
      204: {
        description: 'The run has ended and the follower has read every event: an EventSource stops reconnecting.',
      },
    },
    errors: ['invalid_run_id', 'invalid_header', 'run_not_found', 'temporal_unavailable'],
  },
  ...(['encode', 'decode'] as const).map((direction): ApiOperation => ({
    method: 'POST',
    url: `/codec/${direction}`,
    operationId: `${direction}Payloads`,
    tag: 'codec',
    summary: `Temporal's remote codec protocol: ${direction}s payloads with the API's codec keys.`,
    description:
      'Served only when the API is built with a codec (`buildApiServer({ codec })`). ' +
      (direction === 'decode'
        ? 'A payload whose key the API does not hold comes back as it was, its key id named in the `x-codec-unopened-key-ids` header.'
        : 'Every payload comes back encrypted with the primary key.'),
    body: { id: 'CodecPayloads', schema: payloadsBody },
    answers: {
      200: {
        description: `The payloads, ${direction}d, in the order given.`,
        json: { id: 'CodecPayloadsResponse', schema: payloadsBody },
        ...(direction === 'decode'
          ? { headers: { 'x-codec-unopened-key-ids': 'Key ids of payloads left as they were (no such key here).' } }
          : {}),
      },
    },
    errors: [],
  })),
];
