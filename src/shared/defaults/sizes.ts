/**
 * Temporal's size limits (the server's defaults, Temporal Cloud's too) and the budgets the runner keeps under them:
 * past a limit the server terminates the workflow, so the runner stops first, with its own failure and reason.
 */

/** The largest payload Temporal accepts: a model call's input, a tool's output, a run's result. */
export const TEMPORAL_PAYLOAD_LIMIT_BYTES = 2 * 1024 * 1024;

/**
 * What one payload the runner builds may weigh (a result, a continue-as-new
 * input): the limit, less room for the payload's own metadata.
 */
export const PAYLOAD_BUDGET_BYTES = TEMPORAL_PAYLOAD_LIMIT_BYTES - 16 * 1024;

/** The largest event history Temporal keeps before it terminates the workflow. */
export const TEMPORAL_HISTORY_LIMIT_BYTES = 50 * 1024 * 1024;

/** The most events Temporal keeps in one workflow's history before it terminates it. */
export const TEMPORAL_HISTORY_EVENT_LIMIT = 50 * 1024;

/**
 * What a run's conversation may weigh before a model call: its result carries
 * the conversation and what the run added (twice: as messages and in the
 * chat response format), and the rest of the limit is room for one more answer and
 * its tool results.
 */
export const CONTEXT_BUDGET_BYTES = 1.5 * 1024 * 1024;

/** A tool's output is cut to this in the activity, with a note saying so, so one result cannot fill the conversation. */
export const TOOL_OUTPUT_LIMIT_BYTES = 256 * 1024;

/** A run stops before a model call once its history passes this, leaving room for the call and the run's ending. */
export const HISTORY_BUDGET_BYTES = 40 * 1024 * 1024;

/** A run stops before a model call once its history has this many events. */
export const HISTORY_EVENT_BUDGET = 40 * 1024;

/**
 * A model call's input carries its conversation while it weighs at most this. A larger one stays
 * out of the input: the `callModel` activity reads it from its own workflow run with the
 * `modelRequest` query, which history does not record, so history grows with what each iteration
 * adds, not with the whole conversation at every call.
 */
export const MODEL_INPUT_INLINE_BYTES = 8 * 1024;

/**
 * A run's result carries its whole conversation while it weighs at most this (or always, with the
 * input's `resultMessages: 'all'`); past it, the newest messages that fit, and where they start,
 * and the rest is read in pages (`GET /runs/:run_id/messages`). The result holds them twice (as
 * `messages` and as `generatedMessages`), so it stays under about twice this.
 */
export const RESULT_MESSAGES_INLINE_BYTES = 32 * 1024;

/**
 * The worker's in-memory hand-off of large conversations from a run to its next model call
 * (`ModelRequestSinks`), which spares the call the `modelRequest` query when it runs on the same
 * worker. Past either bound the oldest conversations go, and their calls use the query.
 */
export const MODEL_REQUEST_CACHE = {
  /** What the conversations held at once weigh at most, as JSON. */
  maxBytes: 64 * 1024 * 1024,
  /** How long a conversation waits for its call. */
  maxAgeMs: 60_000,
} as const;

/** Pages of a conversation (the `transcript` and `modelRequest` queries): messages and bytes per page. */
export const MESSAGE_PAGES = {
  /** Messages in a transcript page when the caller names no limit. */
  defaultLimit: 100,
  /** The most messages one transcript page holds. */
  maxLimit: 1_000,
  /** What one page weighs at most (it always holds at least one message). */
  maxBytes: 1024 * 1024,
  /**
   * Earlier Temporal runs the continue-as-new state lists, with where their messages start, so a page is read
   * in one hop; past it the oldest go, and a page before the oldest listed hops on from there.
   */
  maxListedRuns: 1_000,
} as const;

/** Largest conversation a failure's details carry; a failure must fit in one of Temporal's payloads too. */
export const FAILURE_MESSAGES_LIMIT_BYTES = 1024 * 1024;

/** Longest response (in characters) the details of a `ContextTooLarge` for a result too large keep. */
export const FAILURE_RESPONSE_LIMIT_CHARS = 64 * 1024;
