/**
 * Every failure type the runner raises, in one place. Each surface that maps failures (HTTP status, CLI exit code) is
 * a `Record` over {@link FailureTypeName}, so a new type does not compile until each says what it means.
 */

import type { ChatMessage, Usage } from './messages';

/** Failure types by the name code uses; the value is the `ApplicationFailure`'s `type` on the wire. */
export const FailureType = {
  // The run's own failures: the agent workflow fails with these, non-retryable.
  /** The run's input failed its schema, names a tool, custom stop condition or approval policy the worker does not register, or came as more than one argument. */
  invalidInput: 'InvalidAgentInput',
  /** The run made `maxInvocations` model calls without ending. */
  maxInvocationsExceeded: 'MaxInvocationsExceeded',
  /** The model answered without a tool call more times in a row than the nudge rule allows. */
  maxConsecutiveNudgesExceeded: 'MaxConsecutiveNudgesExceeded',
  /** One of `tokenBudget`'s limits (total, prompt or completion tokens) was reached. */
  tokenBudgetExhausted: 'TokenBudgetExhausted',
  /** The run's `costBudget` was reached: its model calls cost `maxUsd` or more. */
  costBudgetExceeded: 'CostBudgetExceeded',
  /** A call waiting for approval got no decision within `approval.timeout`, and `onTimeout` is `fail`. */
  approvalTimedOut: 'ApprovalTimedOut',
  /** The conversation, the result or the continue-as-new state would pass Temporal's payload limit. */
  contextTooLarge: 'ContextTooLarge',
  /** A Temporal run's event history passed the run's budget before it could continue as new. */
  historyTooLarge: 'HistoryTooLarge',
  /** Compaction failed: the summarising model call failed for good, or the model wrote no summary. */
  compactionFailed: 'CompactionFailed',
  /** Structured output: the model's answers were not valid against `output.schema` more often than `output.maxCorrections` allows. */
  outputInvalid: 'Output.Invalid',
  /** The model's final answer was cut by the token cap (`finish_reason: "length"`), and `answerTruncation` did not accept it (continued as often as allowed, or `fail`). */
  answerTruncated: 'AnswerTruncated',

  // Refusals of the agent's updates: the caller's request is refused, the run goes on.
  /** The `decide` update was refused: unknown or already decided call, or arguments that fail the tool's schema. */
  invalidDecision: 'InvalidDecision',
  /** The `setLimits` update was refused: an invalid change, or the run has ended. */
  invalidLimits: 'InvalidLimits',
  /** The `answerElicitation` update was refused: no such question waits, or the fields do not fit its form. */
  invalidAnswer: 'InvalidAnswer',

  // The model-call activity's failures (`activities/model-errors.ts`): the run fails with the last attempt's type.
  /** The provider answered 400: the request is malformed. Not retried. */
  modelCallBadRequest: 'ModelCall.BadRequest',
  /** The provider answered 401: the API key is wrong. Not retried. */
  modelCallUnauthorized: 'ModelCall.Unauthorized',
  /** The provider answered 403: the key has no access to this model or endpoint. Not retried. */
  modelCallForbidden: 'ModelCall.Forbidden',
  /** The provider answered 404: unknown model or wrong base URL. Not retried. */
  modelCallNotFound: 'ModelCall.NotFound',
  /** The provider answered 408. Retried. */
  modelCallRequestTimeout: 'ModelCall.RequestTimeout',
  /** The provider answered 409. Retried. */
  modelCallConflict: 'ModelCall.Conflict',
  /** The provider answered 429: rate limited. Retried after the delay it asked for. */
  modelCallRateLimited: 'ModelCall.RateLimited',
  /** The provider answered 5xx. Retried. */
  modelCallServerError: 'ModelCall.ServerError',
  /** The provider answered another 4xx. Not retried. */
  modelCallClientError: 'ModelCall.ClientError',
  /** The provider answered 429 with code `insufficient_quota`: the account is out of credit. Not retried. */
  modelCallQuotaExceeded: 'ModelCall.QuotaExceeded',
  /** The request does not fit the model's context window (`context_length_exceeded`, llama.cpp's `exceed_context_size_error`). Not retried. */
  modelCallContextOverflow: 'ModelCall.ContextOverflow',
  /** The request to the provider timed out on the client's side. Retried. */
  modelCallConnectionTimeout: 'ModelCall.ConnectionTimeout',
  /** The provider could not be reached (DNS, refused connection, TLS). Retried. */
  modelCallConnectionError: 'ModelCall.ConnectionError',
  /** The model call failed in a way the activity does not classify. Retried. */
  modelCallUnexpected: 'ModelCall.Unexpected',
  /** The provider answered 2xx with something that is not a chat completion. Retried a few times, quickly. */
  modelCallInvalidResponse: 'ModelCall.InvalidResponse',
  /** A streamed answer broke off before it was complete (the connection ended, no finish reason). Retried. */
  modelCallStreamInterrupted: 'ModelCall.StreamInterrupted',
  /** The run has a `costBudget` and the worker's price table has no price for the model: the call is not sent. Not retried. */
  modelCallPriceUnknown: 'ModelCall.PriceUnknown',
  /** A run's `modelFallbacks` names an endpoint the worker does not hold. Not sent, not retried. */
  modelCallUnknownEndpoint: 'ModelCall.UnknownEndpoint',
  /** The model-call activity timed out on every attempt (the workflow names it). */
  modelCallTimeout: 'ModelCall.Timeout',
  /** The model-call activity failed for good without a type of its own (the workflow names it). */
  modelCallFailed: 'ModelCall.Failed',
  /** The model-call activity got neither messages nor a reference to its workflow's conversation: a bug in the runner. Not retried. */
  invalidModelCallInput: 'InvalidModelCallInput',
  /** The model-call activity could not read its conversation from the workflow (the `modelRequest` query failed or answered short). Retried. */
  modelRequestUnavailable: 'ModelRequestUnavailable',

  // The tool-call activity's failure.
  /** A tool threw `RetryableToolError` before its last attempt: Temporal runs the call again. Never ends a run. */
  toolCallRetryable: 'ToolCall.Retryable',
  /** A tool's call was lost with what ran it (an MCP server that died mid-call): Temporal runs it again until its deadline. Never ends a run. */
  toolCallLost: 'ToolCall.Lost',
  /** A nested agent (`defineAgentTool`) would run deeper than `maxDepth`: the call is refused with a tool error. Never ends a run. */
  maxDepthExceeded: 'MaxDepthExceeded',

  // The conversation workflow: refusals of the `chat` update, before a turn starts, and failures of a turn's run.
  /** A turn of the conversation is still running. */
  conversationBusy: 'ConversationBusy',
  /** `invoke` or `add-ai-message` on a conversation with no history, or one that does not exist. */
  conversationEmpty: 'ConversationEmpty',
  /** The conversation has ended (`DELETE /conversations/:id`). */
  conversationEnded: 'ConversationEnded',
  /** The chat request is not an object, or a chat request has no message. */
  invalidChatRequest: 'InvalidChatRequest',
  /** The turn's run would carry more than a run keeps under Temporal's payload limit. */
  conversationTooLarge: 'ConversationTooLarge',
  /** The turn's run was terminated in Temporal (not the `terminate` signal, which ends it gracefully). */
  turnTerminated: 'TurnTerminated',
  /** The turn's run failed without an `ApplicationFailure` of its own (timed out or cancelled in Temporal, say). */
  turnFailed: 'TurnFailed',

  // Named by the client.
  /** The run passed its Temporal execution timeout (`getRunOutcome`, `GET /runs/:id/result`, the CLI). */
  workflowTimedOut: 'WorkflowTimedOut',
  /**
   * A failure without a type: an `ApplicationFailure` thrown without one, or a Temporal failure without a name.
   * Named by whatever reads the failure: the client, the conversation, the run's state.
   */
  untyped: 'Error',
} as const;

/** One of the catalogue's failure types: the `type` a caller can branch on. */
export type FailureTypeName = (typeof FailureType)[keyof typeof FailureType];

/** What raises a failure type. */
type FailureSource = 'run' | 'update' | 'model call' | 'tool call' | 'conversation' | 'client' | 'any reader';

/** A catalogue entry: what raises the type, and when, in the words of the README's failure table. */
export interface FailureEntry {
  raisedBy: FailureSource;
  when: string;
}

/**
 * Every failure type, with what raises it and when. The README's failure
 * table is checked against this by a unit test, so the two cannot drift.
 */
export const FAILURE_CATALOGUE: Readonly<Record<FailureTypeName, FailureEntry>> = {
  InvalidAgentInput: {
    raisedBy: 'run',
    when: 'the input fails its schema, names a tool, custom stop condition or approval policy the worker does not register, or comes as more than one argument',
  },
  MaxInvocationsExceeded: { raisedBy: 'run', when: '`maxInvocations` model calls were made and the run has not ended' },
  MaxConsecutiveNudgesExceeded: {
    raisedBy: 'run',
    when: 'the model answered without a tool call more times in a row than the nudge rule allows',
  },
  TokenBudgetExhausted: { raisedBy: 'run', when: 'a `tokenBudget` limit was reached' },
  CostBudgetExceeded: {
    raisedBy: 'run',
    when: "the run's model calls cost `costBudget.maxUsd` or more (checked before each call)",
  },
  ApprovalTimedOut: {
    raisedBy: 'run',
    when: 'no decision on a call within `approval.timeout`, with `onTimeout: "fail"`',
  },
  ContextTooLarge: {
    raisedBy: 'run',
    when: "the conversation, the result or the hand-over would pass Temporal's payload limit",
  },
  HistoryTooLarge: {
    raisedBy: 'run',
    when: "a Temporal run's history passed the run's budget before it could hand over",
  },
  CompactionFailed: {
    raisedBy: 'run',
    when: 'the `compaction` call failed for good (its `ModelCall.*` type in the details), or the model wrote no summary',
  },
  'Output.Invalid': {
    raisedBy: 'run',
    when: 'the model gave no valid answer to `output.schema` within `output.maxCorrections` corrections (the last problems in the details)',
  },
  AnswerTruncated: {
    raisedBy: 'run',
    when: 'the final answer was cut by the token cap (`finish_reason: "length"`) and `answerTruncation` did not accept it: continued `maxContinuations` times and still cut, or `action: "fail"`',
  },
  InvalidDecision: {
    raisedBy: 'update',
    when: '`decide` refused: unknown or already decided call, or arguments off the schema (the run goes on)',
  },
  InvalidLimits: {
    raisedBy: 'update',
    when: '`setLimits` refused: an invalid change, or the run has ended (the run goes on)',
  },
  InvalidAnswer: {
    raisedBy: 'update',
    when: '`answerElicitation` refused: no such MCP question waits, or the fields do not fit its form (the run goes on)',
  },
  'ModelCall.BadRequest': { raisedBy: 'model call', when: 'the provider answered 400; not retried' },
  'ModelCall.Unauthorized': {
    raisedBy: 'model call',
    when: 'the provider answered 401 (check `OPENAI_API_KEY`); not retried',
  },
  'ModelCall.Forbidden': { raisedBy: 'model call', when: 'the provider answered 403; not retried' },
  'ModelCall.NotFound': {
    raisedBy: 'model call',
    when: 'the provider answered 404 (check the model and `OPENAI_BASE_URL`); not retried',
  },
  'ModelCall.RequestTimeout': {
    raisedBy: 'model call',
    when: 'the provider answered 408; retried, the run fails with it after the last attempt',
  },
  'ModelCall.Conflict': {
    raisedBy: 'model call',
    when: 'the provider answered 409; retried, the run fails with it after the last attempt',
  },
  'ModelCall.RateLimited': {
    raisedBy: 'model call',
    when: 'the provider answered 429; retried after its `Retry-After`, the run fails with it after the last attempt',
  },
  'ModelCall.ServerError': {
    raisedBy: 'model call',
    when: 'the provider answered 5xx; retried, the run fails with it after the last attempt',
  },
  'ModelCall.ClientError': { raisedBy: 'model call', when: 'the provider answered another 4xx; not retried' },
  'ModelCall.QuotaExceeded': {
    raisedBy: 'model call',
    when: 'the provider answered 429 with code `insufficient_quota`; not retried',
  },
  'ModelCall.ContextOverflow': {
    raisedBy: 'model call',
    when: "the request does not fit the model's context window (code `context_length_exceeded`, llama.cpp's `exceed_context_size_error`); not retried: compact, lower the output cap or use a larger context",
  },
  'ModelCall.ConnectionTimeout': {
    raisedBy: 'model call',
    when: 'the request to the provider timed out; retried, the run fails with it after the last attempt',
  },
  'ModelCall.ConnectionError': {
    raisedBy: 'model call',
    when: 'the provider could not be reached; retried, the run fails with it after the last attempt',
  },
  'ModelCall.Unexpected': {
    raisedBy: 'model call',
    when: 'the call failed in another way; retried, the run fails with it after the last attempt',
  },
  'ModelCall.InvalidResponse': {
    raisedBy: 'model call',
    when: 'a 2xx answer that is not a chat completion; 3 attempts 1 s apart, then the run fails',
  },
  'ModelCall.StreamInterrupted': {
    raisedBy: 'model call',
    when: 'a streamed answer broke off mid-way; retried like a connection error, followers told to discard it',
  },
  'ModelCall.PriceUnknown': {
    raisedBy: 'model call',
    when: 'a `costBudget` is set and the worker has no price for the model (`AGENT_MODEL_PRICES`); not sent, not retried',
  },
  'ModelCall.UnknownEndpoint': {
    raisedBy: 'model call',
    when: "the run's `modelFallbacks` names an endpoint the worker does not hold (`AGENT_MODEL_ENDPOINTS`); not sent, not retried",
  },
  'ModelCall.Timeout': { raisedBy: 'run', when: 'the model-call activity timed out on every attempt' },
  'ModelCall.Failed': { raisedBy: 'run', when: 'the model-call activity failed for good without a type of its own' },
  InvalidModelCallInput: {
    raisedBy: 'model call',
    when: "the call got neither messages nor a reference to its workflow's conversation (a bug in the runner); not retried",
  },
  ModelRequestUnavailable: {
    raisedBy: 'model call',
    when: 'the call could not read its conversation from the workflow; retried, the run fails with it after the last attempt',
  },
  'ToolCall.Retryable': {
    raisedBy: 'tool call',
    when: 'a tool threw `RetryableToolError`: Temporal runs the call again; never ends a run',
  },
  'ToolCall.Lost': {
    raisedBy: 'tool call',
    when: 'an MCP server closed its connection or could not be reached during a call: Temporal runs the call again until its deadline; never ends a run',
  },
  MaxDepthExceeded: {
    raisedBy: 'tool call',
    when: 'a nested agent would run at `maxDepth` or deeper: the model gets the refusal as a tool error; never ends a run',
  },
  ConversationBusy: { raisedBy: 'conversation', when: 'a turn is still running on the conversation' },
  ConversationEmpty: {
    raisedBy: 'conversation',
    when: '`invoke` or `add-ai-message` (without a prompt) on a conversation with no history, or none at all',
  },
  ConversationEnded: { raisedBy: 'conversation', when: 'the conversation has ended' },
  InvalidChatRequest: {
    raisedBy: 'conversation',
    when: 'the request is not an object, or a chat request has no message',
  },
  ConversationTooLarge: {
    raisedBy: 'conversation',
    when: "the turn's run would carry more than a run keeps under Temporal's payload limit",
  },
  TurnTerminated: { raisedBy: 'conversation', when: "the turn's run was terminated in Temporal" },
  TurnFailed: {
    raisedBy: 'conversation',
    when: "the turn's run failed without a failure type of its own (timed out or cancelled in Temporal)",
  },
  WorkflowTimedOut: { raisedBy: 'client', when: 'the run passed its Temporal execution timeout' },
  Error: {
    raisedBy: 'any reader',
    when: 'a failure without a type: an `ApplicationFailure` thrown without one, or a Temporal failure without a name',
  },
};

/**
 * What a failed run had produced, in the details of the run's own failures
 * (`MaxInvocationsExceeded`, `ContextTooLarge`, a `ModelCall.*` that ended the
 * run, ...). The messages are left out when they are too large to travel in
 * the failure (over `FAILURE_MESSAGES_LIMIT_BYTES`); `messageCount` is always there.
 */
export interface PartialRun {
  messages?: ChatMessage[];
  messageCount: number;
  usage: Usage;
  iterations: number;
}

/** Every failure type in the catalogue, in its order. */
export const FAILURE_TYPES = Object.values(FailureType) as readonly FailureTypeName[];

/** The namespace of the model-call activity's failure types (`ModelCall.RateLimited`, ...). */
export const MODEL_CALL_FAILURE_PREFIX = 'ModelCall.';

/** Whether `type` is one of the catalogue's failure types. */
export function isFailureType(type: string): type is FailureTypeName {
  return Object.prototype.hasOwnProperty.call(FAILURE_CATALOGUE, type);
}
