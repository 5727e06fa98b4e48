/**
 * Every default of the runner in one place, so the README, the schemas and the
 * workflow never disagree. Pure values only: imported by workflow code.
 */

/** Workflow type name registered by the worker and used by every client. */
export const WORKFLOW_TYPE = 'agentWorkflow';

/** Task queue used when `AGENT_TASK_QUEUE` is not set. @default 'agent-runner' */
export const DEFAULT_TASK_QUEUE = 'agent-runner';

/** Namespace used when `TEMPORAL_NAMESPACE` is not set. @default 'default' */
export const DEFAULT_NAMESPACE = 'default';

/** Server address used when `TEMPORAL_ADDRESS` is not set. @default 'localhost:7233' */
export const DEFAULT_TEMPORAL_ADDRESS = 'localhost:7233';

/** Version of the JSON shapes that cross a durable boundary (result, state). */
export const SCHEMA_VERSION = 1;

/** Model calls allowed in one run unless the input says otherwise (seed 000's default). */
export const DEFAULT_MAX_INVOCATIONS = 64;

/** Seed 000: content-only answers tolerated in a row before the run fails. */
export const DEFAULT_CONSECUTIVE_NUDGES = 1;

/** Seed 000: the system message injected when the model answers without a tool call. */
export const DEFAULT_NUDGE_MESSAGE =
  'You are currently in an autonomous execution mode with no user interaction. ' +
  'You must complete your task by calling one of the terminating tools.';

/** Seed 001: the system message injected when the model would finish without calling a tool. */
export const DEFAULT_RESTRICTION_MESSAGE =
  "Do not produce a final answer directly. Before finishing, call a tool. If no tool is needed, call the 'finish' tool.";

/** Seed 004: the error context the model gets when it answers without a tool call under `requireToolCall`. */
export const REQUIRE_TOOL_CALL_MESSAGE =
  'Error: your last answer called no tool. In this run every answer must call a tool: ' +
  'call task_completion when the task is done, ask_question if you need information from the user, ' +
  'or converse to reply conversationally.';

/** Seed 001: the tool message content of a `TerminateResponse` without a message. */
export const DEFAULT_TERMINATE_MESSAGE = 'Task completed.';

/**
 * A provider answer that is not a chat completion (HTML, text that is not JSON, no `choices`): tried
 * `maxAttempts` times in all, `retryDelayMs` apart, then the run fails with `ModelCall.InvalidResponse`,
 * whose message quotes the first `previewChars` characters of the body.
 */
export const INVALID_RESPONSE_RETRY = { maxAttempts: 3, retryDelayMs: 1_000, previewChars: 200 } as const;

/**
 * How configured secrets are kept out of failures and log lines. Shorter secrets are left alone:
 * replacing every "abc" would mangle ordinary text and hide nothing worth hiding.
 */
export const REDACTION = { placeholder: '[redacted]', minSecretLength: 6 } as const;

/** Timeouts and retry shapes of the activities. Strings are Temporal durations. */
export const ACTIVITY_DEFAULTS = {
  /** One chat-completions request, including the provider's queueing. */
  modelCallTimeout: '5 minutes',
  /** One tool execution, unless the tool declares its own `timeout`. */
  toolCallTimeout: '5 minutes',
  /**
   * A tool call's deadline, as a multiple of its timeout: until then an attempt lost to the
   * infrastructure (a worker that died, a missed heartbeat) is retried, however often; past it
   * the model is told the call did not finish.
   */
  toolCallDeadlineFactor: 3,
  /**
   * Activities heartbeat every second, so a call whose worker died is known lost, and tried
   * again, this long after: what a crash costs each call in flight.
   */
  heartbeatTimeout: '10 seconds',
  /** Attempts of a model call on retryable failures (429, 5xx, connection). */
  modelCallMaxAttempts: 8,
  /** Attempts of a tool call whose tool throws `RetryableToolError`; then the error goes to the model. */
  toolCallMaxAttempts: 3,
} as const;

/**
 * Deepest nesting of arrays and objects the HTTP API parses in a JSON body; deeper bodies get 400 `invalid_body`
 * before they are parsed. Every legitimate body (a `stopWhen` tree, tool arguments) fits with room to spare,
 * while thousands of levels would exhaust the stack of whatever walks the tree later.
 */
export const API_MAX_JSON_DEPTH = 64;

/**
 * How long the HTTP API waits for Temporal's answer to a call only the server answers (start, describe, signal,
 * list, the readiness probe) before it answers 503 `temporal_unavailable`. The client's own retries of an
 * unreachable server would otherwise take about 20 s.
 */
export const API_TEMPORAL_DEADLINE_MS = 2_000;
