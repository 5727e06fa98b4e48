/**
 * Every default of the runner in one place, so the README, the schemas and the
 * workflow never disagree: timeouts, retry policies, limits and budgets,
 * intervals, page sizes, thresholds, and the messages the runner injects.
 * Pure values only: imported by workflow code. Sections, in order:
 *
 * 1. Names and connection
 * 2. A run's input (defaults of its fields, and the messages the runner injects)
 * 3. Loop guards and context control
 * 4. Conversations
 * 5. Activities: timeouts, retry policies, heartbeats
 * 6. Sizes: Temporal's limits and the budgets the runner keeps under them
 * 7. Input bounds
 * 8. The event log and what the web UI shows
 * 9. Tools
 * 10. The worker's environment
 * 11. The HTTP API
 * 12. Clients: following and listing runs
 * 13. The local Temporal server (demo, tests, `npm run server`)
 */

// ─── 1. Names and connection ─────────────────────────────────────────────────

/** Workflow type name registered by the worker and used by every client. */
export const WORKFLOW_TYPE = 'agentWorkflow';

/** Task queue used when `AGENT_TASK_QUEUE` is not set. @default 'agent-runner' */
export const DEFAULT_TASK_QUEUE = 'agent-runner';

/** Task queue of the offline demo, so its worker never takes a real worker's runs. @default 'agent-runner-demo' */
export const DEMO_TASK_QUEUE = 'agent-runner-demo';

/** Namespace used when `TEMPORAL_NAMESPACE` is not set. @default 'default' */
export const DEFAULT_NAMESPACE = 'default';

/** Server address used when `TEMPORAL_ADDRESS` is not set. @default 'localhost:7233' */
export const DEFAULT_TEMPORAL_ADDRESS = 'localhost:7233';

/** Version of the JSON shapes that cross a durable boundary (result, state). */
export const SCHEMA_VERSION = 1;

// ─── 2. A run's input ────────────────────────────────────────────────────────

/** Model calls allowed in one run unless the input says otherwise (the terminating tools' default). @default 64 */
export const DEFAULT_MAX_INVOCATIONS = 64;

/**
 * Nested agents (`defineAgentTool`): how deep a tree of runs may grow, and how much of it a result lists. A run
 * at depth `d` may start a nested agent only when `d + 1 < maxDepth`: with 3, a run, the agent it calls, and one
 * more level below that.
 */
export const NESTED_AGENT_DEFAULTS = {
  /** Levels of runs a tree may have (the top run is depth 0). @default 3 */
  maxDepth: 3,
  /** Nested agents a result names one by one in `children`; past that they are only counted and summed. @default 100 */
  listedChildren: 100,
} as const;

/** Terminating tools: content-only answers tolerated in a row before the run fails. @default 1 */
export const DEFAULT_CONSECUTIVE_NUDGES = 1;

/** Terminating tools: the system message injected when the model answers without a tool call. */
export const DEFAULT_NUDGE_MESSAGE =
  'You are currently in an autonomous execution mode with no user interaction. ' +
  'You must complete your task by calling one of the terminating tools.';

/** Restricted output: the system message injected when the model would finish without calling a tool. */
export const DEFAULT_RESTRICTION_MESSAGE =
  "Do not produce a final answer directly. Before finishing, call a tool. If no tool is needed, call the 'finish' tool.";

/** Loop-breaking mode: the error context the model gets when it answers without a tool call under `requireToolCall`. */
export const REQUIRE_TOOL_CALL_MESSAGE =
  'Error: your last answer called no tool. In this run every answer must call a tool: ' +
  'call task_completion when the task is done, ask_question if you need information from the user, ' +
  'or converse to reply conversationally.';

/** The tool message content of a `TerminateResponse` without a message. @default 'Task completed.' */
export const DEFAULT_TERMINATE_MESSAGE = 'Task completed.';

/** Defaults of the run's other input fields, as the input schema applies them. */
export const INPUT_DEFAULTS = {
  /** `parallelToolCalls`: the model may ask for several tools at once, run concurrently. @default true */
  parallelToolCalls: true,
  /** `requireToolCall`: every answer must call a tool. @default false */
  requireToolCall: false,
  approval: {
    /** `approval.tools`: the tools whose calls wait for a person. @default [] (none) */
    tools: [],
    /** `approval.onTimeout`: what a call whose approval timed out gets. @default 'deny' */
    onTimeout: 'deny',
  },
  /** `resultMessages`: the result carries only the newest messages once the conversation passes {@link RESULT_MESSAGES_INLINE_BYTES}. @default 'recent' */
  resultMessages: 'recent',
  restrictOutput: {
    /** `restrictOutput.enabled`. @default false */
    enabled: false,
    /** `restrictOutput.maxInjections`: restriction messages per turn; 0 is no limit. @default 0 */
    maxInjections: 0,
  },
} as const;

/** Longest reason (of a `stop` or `terminate` request) a run keeps; a longer one is cut. @default 1000 */
export const STOP_REASON_CHARS = 1_000;

/** Longest reason of an approval policy's decision the run keeps; a longer one is cut. @default 1000 */
export const APPROVAL_POLICY_REASON_CHARS = 1_000;

// ─── 3. Loop guards and context control ──────────────────────────────────────

/** Loop detection: consecutive identical tool calls that count as a loop. @default 3 */
export const DEFAULT_LOOP_THRESHOLD = 3;

/** Loop detection: what a detected loop does. @default 'warn' */
export const DEFAULT_LOOP_ACTION = 'warn';

/** Circuit breaker: identical consecutive tool errors that trip the circuit breaker (and the nudges `requireToolCall` allows). @default 5 */
export const DEFAULT_CIRCUIT_BREAKER_THRESHOLD = 5;

/** Observation masking: the most recent iterations whose tool results are never masked. @default 2 */
export const DEFAULT_MASK_KEEP_ITERATIONS = 2;

/** Observation masking: the smallest tool result, in estimated tokens, that is masked. @default 500 */
export const DEFAULT_MASK_MIN_TOKENS = 500;

/**
 * `context_release`, the built-in tool offered while masking is on: the model names earlier iterations
 * whose tool results masking may hide now, whatever their age. Answered in the workflow.
 */
export const CONTEXT_RELEASE_TOOL = 'context_release';

/** Bounds of `context_release`: iterations one call may name, and iterations a run may release in all. @default 256 and 100,000 */
export const CONTEXT_RELEASE_LIMITS = { maxPerCall: 256, maxReleased: 100_000 } as const;

/** How masking estimates tokens: one per this many characters, rounded up. @default 4 */
export const CHARS_PER_TOKEN_ESTIMATE = 4;

/**
 * Compaction (`compaction` in a run's input): the defaults and bounds of its fields, and how
 * long a summary may be. Token counts are estimates ({@link CHARS_PER_TOKEN_ESTIMATE}).
 */
export const COMPACTION_DEFAULTS = {
  /** `compaction.keepRecentIterations`: the newest iterations never summarised. @default 2 */
  keepRecentIterations: 2,
  /** The largest `keepRecentIterations` accepted. @default 1000 */
  maxKeepRecentIterations: 1_000,
  /** The smallest `compaction.maxTokens` accepted: below it a summary would hardly fit. @default 256 */
  minMaxTokens: 256,
  /** The largest `compaction.maxTokens` accepted; past every model's context window. @default 10,000,000 */
  maxMaxTokens: 10_000_000,
  /**
   * Share of `maxTokens` a summary may take: a longer one is cut there (with a note) in the activity, so a
   * model that ignores the request cannot fill the context again with its summary. @default 0.5
   */
  summaryShare: 0.5,
  /**
   * Longest summary in characters, whatever `maxTokens` allows: the summary travels in the activity's result, in
   * every later model call and in each hand-over, all under Temporal's 2 MiB payload limit. @default 131,072 (128 Ki)
   */
  summaryMaxChars: 128 * 1024,
} as const;

/** Compaction: the summarisation prompt, the system message of the compaction call unless `compaction.instructions` replaces it. */
export const DEFAULT_COMPACTION_INSTRUCTIONS =
  'You condense the earlier part of an agent\'s working conversation so the agent can carry on with less context. ' +
  'The transcript you are given will be replaced by what you write, so write it for the agent, in plain text, without a preamble. ' +
  'Keep the task and every requirement, constraint and preference the user stated; what has been done, with the results, ' +
  'numbers, names, paths and identifiers that may still matter; decisions taken and why; errors met and how they were handled; ' +
  'and what is left to do. If the transcript opens with an earlier summary, fold it into yours. ' +
  'Drop greetings, repetition and anything later superseded.';

/** Compaction: what precedes the summary in the message that stands for the summarised messages. */
export const COMPACTION_SUMMARY_HEADING = 'Summary of the earlier part of this conversation (the runner replaced those messages with it):';

/** Compaction: the note that ends a summary cut to its share of `maxTokens`. */
export const COMPACTION_SUMMARY_CUT_NOTE = '[summary cut: it was longer than the compaction allows]';

/**
 * The result pipeline's extractor (`resultProcessing.extractThreshold`): a tool result longer than the threshold
 * is condensed by a model call before the model sees it.
 */
export const RESULT_EXTRACTION_DEFAULTS = {
  /**
   * Longest condensed text in characters, whatever the result's length: it replaces the result in every later
   * model call and travels in each hand-over. A longer one is cut there, with a note. @default 32,768 (32 Ki)
   */
  maxChars: 32 * 1024,
  /** Characters of the last user message sent as the extractor's guidance; a longer one is cut. @default 8000 */
  guidanceChars: 8_000,
} as const;

/** The extractor's prompt, the system message of the extraction call unless `resultProcessing.extractInstructions` replaces it. */
export const DEFAULT_EXTRACTION_INSTRUCTIONS =
  "You condense one tool result for an agent that is working on a user's request. " +
  'What you write replaces the result in the agent\'s context, so keep everything the request may need, word for word where ' +
  'exactness matters (numbers, names, paths, identifiers, code, error messages), and drop the rest. ' +
  'Write plain text without a preamble, and never more than the result itself.';

/** The extractor: the note that ends a condensed text cut to {@link RESULT_EXTRACTION_DEFAULTS.maxChars}. */
export const EXTRACTION_CUT_NOTE = '[extraction cut: it was longer than the extractor allows]';

/**
 * The result pipeline's cacher (`resultProcessing.inlineThreshold`): a result longer than the threshold is kept in
 * the run's result cache, and the model sees its head and a reference it reads with the built-in `result_cache` tool.
 */
export const RESULT_CACHE_DEFAULTS = {
  /** The built-in tool that reads a cached result back, answered by the workflow itself. @default 'result_cache' */
  toolName: 'result_cache',
  /**
   * Characters of a cached result shown to the model with its reference (at most half the `inlineThreshold`, so
   * the summary stays shorter than what it stands for). @default 1000
   */
  headChars: 1_000,
  /** Longest slice one `result_cache` call returns, in characters; also its default `length`. @default 8000 */
  sliceMaxChars: 8_000,
  /**
   * Characters the cache holds at most, all entries together (in the hand-over's JSON a character may weigh
   * several bytes). The cache lives in the workflow's state and travels in every continue-as-new hand-over, where
   * it is recorded twice (as the old run's last command and the new run's input); past this the oldest entries are
   * dropped, and reading one answers that it was dropped. @default 262,144 (256 Ki)
   */
  maxChars: 256 * 1024,
} as const;

// ─── 4. Conversations ────────────────────────────────────────────────────────

/** How a conversation (`conversationWorkflow`) keeps its own history small, and its answers for retried requests. */
export const CONVERSATION_DEFAULTS = {
  /**
   * Turns one Temporal run of a conversation takes before it continues as new, unless its input says
   * otherwise (`turnsPerRun`). Each turn records its input and result, both carrying the whole history,
   * so the event history grows with turns × history; this keeps it bounded. @default 25
   */
  turnsPerRun: 25,
  /**
   * Answers kept by update id, so a retried request (same `Idempotency-Key`) gets its turn's answer
   * again, also after a continue-as-new. @default 10
   */
  rememberedTurns: 10,
} as const;

// ─── 5. Activities: timeouts, retry policies, heartbeats ────────────────────

/** Timeouts and retry shapes of the activities. Strings are Temporal durations. */
export const ACTIVITY_DEFAULTS = {
  /** One chat-completions request, including the provider's queueing. @default '5 minutes' */
  modelCallTimeout: '5 minutes',
  /** One tool execution, unless the tool declares its own `timeout`. @default '5 minutes' */
  toolCallTimeout: '5 minutes',
  /**
   * A tool call's deadline, as a multiple of its timeout: until then an attempt lost to the
   * infrastructure (a worker that died, a missed heartbeat) is retried, however often; past it
   * the model is told the call did not finish. @default 3
   */
  toolCallDeadlineFactor: 3,
  /**
   * Activities heartbeat every second, so a call whose worker died is known lost, and tried
   * again, this long after: what a crash costs each call in flight. @default '10 seconds'
   */
  heartbeatTimeout: '10 seconds',
  /** Attempts of a model call on retryable failures (429, 5xx, connection). @default 8 */
  modelCallMaxAttempts: 8,
  /** Attempts of a tool call whose tool throws `RetryableToolError`; then the error goes to the model. @default 3 */
  toolCallMaxAttempts: 3,
  /** Loading the tool catalog (`describeTools`) once at the start of each Temporal run. @default '30 seconds' */
  catalogTimeout: '30 seconds',
  /** Attempts of loading the tool catalog. @default 5 */
  catalogMaxAttempts: 5,
  /**
   * How often a running activity heartbeats. A cancellation reaches an activity only in the
   * answer to a heartbeat, so this (with {@link ACTIVITY_DEFAULTS.maxHeartbeatThrottleInterval})
   * bounds how long a cancelled call keeps running. @default 1000 (ms)
   */
  heartbeatIntervalMs: 1_000,
  /**
   * The worker's heartbeat throttle. By default Temporal throttles heartbeats to 80% of the
   * heartbeat timeout, which would let a terminated run's tool run on that long. @default '1 second'
   */
  maxHeartbeatThrottleInterval: '1 second',
  /**
   * A tool's attempt gives up (its `AbortSignal` fires) this much before its start-to-close timeout,
   * the smaller of `attemptMarginMs` and `attemptMarginShare` of the timeout, so a slow tool is
   * answered once as its own failure instead of timed out by the server and run again.
   * @default 1000 (ms) and 0.1
   */
  attemptMarginMs: 1_000,
  attemptMarginShare: 0.1,
  /**
   * One execution of a local tool (`local: true`) that declares no `timeout`. Short on purpose: a
   * local activity holds its workflow task open, so the run's signals, updates and queries wait
   * until it ends, and no heartbeat watches it. @default '5 seconds'
   */
  localToolCallTimeout: '5 seconds',
  /**
   * The longest `timeout` a local tool may declare (`defineTool` checks): about the workflow task's
   * own timeout (10 s), past which the worker has to extend the task while the tool runs. @default '10 seconds'
   */
  localToolMaxTimeout: '10 seconds',
} as const;

/**
 * How far the counters among a running run's search attributes (`AgentIterations`,
 * `AgentTotalTokens`) may fall behind: they are upserted with every change of status, pending
 * approvals or termination reason, and otherwise once the run has done this many iterations
 * since they were last sent. An upsert is a command and a visibility write; sending one per
 * model call costs every iteration. @default 10
 */
export const SEARCH_ATTRIBUTE_COUNTER_STEP = 10;

/**
 * The retry policy of each activity stub (`src/workflows/agent/activities.ts`). A command's
 * retry policy is part of the run's history: a change here is a change to running workflows.
 */
export const ACTIVITY_RETRY_POLICIES = {
  /** The tool catalog: a few quick attempts. */
  catalog: { maximumAttempts: ACTIVITY_DEFAULTS.catalogMaxAttempts },
  /** A model call: 1 s doubling to 1 min, 8 attempts; a provider's `Retry-After` sets the next delay instead. */
  modelCall: {
    initialInterval: '1 second',
    backoffCoefficient: 2,
    maximumInterval: '1 minute',
    maximumAttempts: ACTIVITY_DEFAULTS.modelCallMaxAttempts,
  },
  /**
   * A tool call: retried whenever an attempt is lost to the infrastructure, 1 s doubling to 10 s,
   * until the call's deadline (so no limit on attempts here): a tool that ran is never reported
   * to the model as failed because a worker died. `RetryableToolError` is bounded by the activity
   * itself ({@link ACTIVITY_DEFAULTS.toolCallMaxAttempts}).
   */
  toolCall: {
    initialInterval: '1 second',
    backoffCoefficient: 2,
    maximumInterval: '10 seconds',
    maximumAttempts: Number.POSITIVE_INFINITY,
  },
} as const;

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

// ─── 6. Sizes: Temporal's limits and the budgets the runner keeps under them ─
//
// Past Temporal's limits the server does not fail a call: it terminates the workflow
// ("ScheduleActivityTaskCommandAttributes.Input exceeds size limit"), so a run or a conversation
// would be lost with a message about Temporal, not about the run. The runner stops first, with its
// own failure and a reason. The limits are the server's defaults (`limit.blobSize.error`,
// `limit.historySize.error`, `limit.historyCount.error`), which Temporal Cloud also uses; the
// functions that measure sizes are in `payload-limits.ts`.

/** The largest payload Temporal accepts: a model call's input, a tool's output, a run's result. @default 2 MiB */
export const TEMPORAL_PAYLOAD_LIMIT_BYTES = 2 * 1024 * 1024;

/**
 * What one payload the runner builds may weigh (a result, a continue-as-new
 * input): the limit, less room for the payload's own metadata. @default 2 MiB - 16 KiB
 */
export const PAYLOAD_BUDGET_BYTES = TEMPORAL_PAYLOAD_LIMIT_BYTES - 16 * 1024;

/** The largest event history Temporal keeps before it terminates the workflow. @default 50 MiB */
export const TEMPORAL_HISTORY_LIMIT_BYTES = 50 * 1024 * 1024;

/** The most events Temporal keeps in one workflow's history before it terminates it. @default 51,200 */
export const TEMPORAL_HISTORY_EVENT_LIMIT = 50 * 1024;

/**
 * What a run's conversation may weigh before a model call: its result carries
 * the conversation and what the run added (twice: as messages and in the
 * chat response format), and the rest of the limit is room for one more answer and
 * its tool results. @default 1.5 MiB
 */
export const CONTEXT_BUDGET_BYTES = 1.5 * 1024 * 1024;

/** A tool's output is cut to this in the activity, with a note saying so, so one result cannot fill the conversation. @default 256 KiB */
export const TOOL_OUTPUT_LIMIT_BYTES = 256 * 1024;

/** A run stops before a model call once its history passes this, leaving room for the call and the run's ending. @default 40 MiB */
export const HISTORY_BUDGET_BYTES = 40 * 1024 * 1024;

/** A run stops before a model call once its history has this many events. @default 40,960 */
export const HISTORY_EVENT_BUDGET = 40 * 1024;

/**
 * A model call's input carries its conversation while it weighs at most this. A larger one stays
 * out of the input: the `callModel` activity reads it from its own workflow run with the
 * `modelRequest` query, which history does not record, so history grows with what each iteration
 * adds, not with the whole conversation at every call. @default 8 KiB
 */
export const MODEL_INPUT_INLINE_BYTES = 8 * 1024;

/**
 * A run's result carries its whole conversation while it weighs at most this (or always, with the
 * input's `resultMessages: 'all'`); past it, the newest messages that fit, and where they start,
 * and the rest is read in pages (`GET /runs/:run_id/messages`). The result holds them twice (as
 * `messages` and as `generatedMessages`), so it stays under about twice this. @default 32 KiB
 */
export const RESULT_MESSAGES_INLINE_BYTES = 32 * 1024;

/**
 * The worker's in-memory hand-off of large conversations from a run to its next model call
 * (`ModelRequestSinks`), which spares the call the `modelRequest` query when it runs on the same
 * worker. Past either bound the oldest conversations go, and their calls use the query.
 */
export const MODEL_REQUEST_CACHE = {
  /** What the conversations held at once weigh at most, as JSON. @default 64 MiB */
  maxBytes: 64 * 1024 * 1024,
  /** How long a conversation waits for its call. @default 60 s */
  maxAgeMs: 60_000,
} as const;

/** Pages of a conversation (the `transcript` and `modelRequest` queries): messages and bytes per page. */
export const MESSAGE_PAGES = {
  /** Messages in a transcript page when the caller names no limit. @default 100 */
  defaultLimit: 100,
  /** The most messages one transcript page holds. @default 1,000 */
  maxLimit: 1_000,
  /** What one page weighs at most (it always holds at least one message). @default 1 MiB */
  maxBytes: 1024 * 1024,
  /**
   * Earlier Temporal runs a hand-over lists, with where their messages start, so a page is read
   * in one hop; past it the oldest go, and a page before the oldest listed hops on from there. @default 1,000
   */
  maxListedRuns: 1_000,
} as const;

/** Largest conversation a failure's details carry; a failure must fit in one of Temporal's payloads too. @default 1 MiB */
export const FAILURE_MESSAGES_LIMIT_BYTES = 1024 * 1024;

/** Longest response (in characters) the details of a `ContextTooLarge` for a result too large keep. @default 65,536 */
export const FAILURE_RESPONSE_LIMIT_CHARS = 64 * 1024;

// ─── 7. Input bounds ─────────────────────────────────────────────────────────

/**
 * How large a run's input may be, field by field. Every value a caller (or a
 * conversation) hands to `agentWorkflow` has a bound here, so no input can
 * blow the workflow's stack, spend its task's time, or carry a field into an
 * activity's input that pushes it past Temporal's 2 MiB payload limit (which
 * terminates the workflow instead of failing it). Past a bound the run fails
 * at once with `InvalidAgentInput` naming the field. The conversation as a
 * whole is bounded by the size guards (section 6), not here. Signals and
 * updates are held to `depth` too.
 */
export const INPUT_BOUNDS = {
  /**
   * Levels of JSON nesting (objects and arrays) anywhere in the input,
   * counting the input object itself: `stopWhen`'s `any`/`all` trees, a custom
   * condition's `params`, messages. Measured without recursion before
   * anything else reads the input. A message with tool calls is 6 levels
   * deep; each `any`/`all` adds 2. @default 32
   */
  depth: 32,
  /** Characters of `model`; provider model names are short, and the name travels in every model call. @default 1024 */
  modelChars: 1024,
  /**
   * Characters of a name or id: a tool name (`tools`, `terminating.toolIds`, `approval.tools`,
   * `resultProcessing.perTool` keys, `functionCall`), a handoff target, a custom condition's name,
   * a tool call's id, a user's `name`. @default 256
   */
  nameChars: 256,
  /**
   * Characters of a long text: `instructions`, `message`, one message's content, a tool call's
   * arguments. The conversation's total is held to 1.5 MiB by the size guards. @default 1,048,576 (1 Mi)
   */
  textChars: 1024 * 1024,
  /** Characters of a runner message: `terminating.nudgeMessage`, `restrictOutput.message`, `textMention`. @default 65,536 */
  shortTextChars: 64 * 1024,
  /** Characters of a duration written as text (`"5 minutes"`). @default 100 */
  durationChars: 100,
  /** Tools one run may use (`tools`); OpenAI takes at most 128 per request. @default 128 */
  tools: 128,
  /** Messages of a prior conversation (`messages`). @default 50,000 */
  messages: 50_000,
  /** Tool calls in one assistant message of `messages`. @default 256 */
  toolCallsPerMessage: 256,
  /** Members of one `any` or `all` of `stopWhen`. @default 64 */
  stopConditionMembers: 64,
  /** Bytes of a custom stop condition's `params` as JSON; they are rendered into the run's termination reason. @default 16,384 */
  paramsBytes: 16 * 1024,
  /** Problems one `InvalidAgentInput` lists; the rest are counted. @default 20 */
  problems: 20,
  /** Characters of one listed problem, so a failure always fits in a Temporal payload. @default 1000 */
  problemChars: 1000,
} as const;

// ─── 8. The event log and what the web UI shows ─────────────────────────────

/** Most events one `events` query returns. @default 500 */
export const MAX_EVENTS_PER_PAGE = 500;

/** Events a run carries across continue-as-new: enough for a follower a few pages behind, small as a payload. @default 200 */
export const CARRIED_EVENTS = 200;

/** Longest text an event carries (tool arguments, outputs, model text); the full text is in the messages. @default 500 */
export const EVENT_PREVIEW_CHARS = 500;

/** Longest argument text shown in a tool call's activity summary in the web UI. @default 80 */
export const ACTIVITY_SUMMARY_ARGUMENT_CHARS = 80;

// ─── 9. Tools ────────────────────────────────────────────────────────────────

/** Tools of a run that names none (`AGENT_TOOLS` unset): every built-in tool that neither ends the run nor waits for a person. */
export const DEFAULT_AGENT_TOOLS = ['calculator', 'list_files', 'read_file', 'write_file'] as const;

/** What the built-in file tools read and list at most. */
export const FILE_TOOL_LIMITS = {
  /** Most bytes `read_file` reads and returns; a longer file is cut there, with a note. @default 100,000 */
  readBytes: 100_000,
  /** Most entries `list_files` returns. @default 500 */
  listedEntries: 500,
  /** Symbolic links followed at most when resolving a path, as the Linux kernel's own limit. @default 40 */
  linkHops: 40,
} as const;

/** Longest description of a thrown value kept in a tool's error result. @default 2000 */
export const TOOL_ERROR_DESCRIPTION_CHARS = 2_000;

// ─── 10. The worker's environment ────────────────────────────────────────────

/** What the worker uses when a variable is not set. */
export const WORKER_DEFAULTS = {
  /** `OPENAI_MODEL`: the model of a run that names none. @default 'gpt-4o-mini' */
  model: 'gpt-4o-mini',
  /** The provider when `OPENAI_BASE_URL` is not set: the OpenAI SDK's own default, shown in start lines. @default 'https://api.openai.com/v1' */
  modelBaseUrl: 'https://api.openai.com/v1',
  /** `AGENT_WORKSPACE`: the directory the file tools are confined to. @default './workspace' */
  workspace: './workspace',
  /** `LOG_LEVEL`: the Temporal SDK's log level. @default 'INFO' */
  logLevel: 'INFO',
} as const;

/**
 * Activities one worker made by `createAgentWorker` runs at once (`maxConcurrentActivityTaskExecutions`;
 * the SDK's own default is 100). An agent's activities mostly wait on a model provider, so the
 * slots, not the CPU, would cap the runs in flight: at 100, the 101st model call waits for a
 * free slot. With a `tuner` in the worker's overrides, the tuner decides. @default 1000
 */
export const AGENT_WORKER_MAX_CONCURRENT_ACTIVITIES = 1_000;

// ─── 11. The HTTP API ────────────────────────────────────────────────────────

/** What the HTTP API uses when a variable or option is not set, and the limits it holds requests to. */
export const API_DEFAULTS = {
  /** `AGENT_API_HOST`. @default '127.0.0.1' */
  host: '127.0.0.1',
  /** `AGENT_API_PORT`; 0 picks a free port. @default 3000 */
  port: 3000,
  /** `AGENT_API_AUTH`: `token`, or `none` for local use only. @default 'token' */
  auth: 'token',
  /** `AGENT_API_BODY_LIMIT`: largest request body. @default 1,048,576 (1 MiB) */
  bodyLimitBytes: 1024 * 1024,
  /** Longest path parameter the router accepts: a run id of a conversation turn with room to spare. @default 1200 */
  pathParameterChars: 1200,
  /** Longest `run_id` a route takes. @default 1000 */
  runIdChars: 1000,
  /** Longest `Idempotency-Key` header. @default 200 */
  idempotencyKeyChars: 200,
  /** Most runs one `GET /runs` lists (`limit`). @default 1000 */
  listLimitMax: 1000,
  /** Keep-alive comments on idle event streams, so proxies keep them open. @default 15,000 (ms) */
  keepAliveMs: 15_000,
  /** How long requests in progress get to finish when the API stops. @default 10,000 (ms) */
  closeGraceMs: 10_000,
} as const;

/**
 * Deepest nesting of arrays and objects the HTTP API parses in a JSON body; deeper bodies get 400 `invalid_body`
 * before they are parsed. Every legitimate body (a `stopWhen` tree, tool arguments) fits with room to spare,
 * while thousands of levels would exhaust the stack of whatever walks the tree later. @default 64
 */
export const API_MAX_JSON_DEPTH = 64;

/**
 * How long the HTTP API waits for Temporal's answer to a call only the server answers (start, describe, signal,
 * list, the readiness probe) before it answers 503 `temporal_unavailable`. The client's own retries of an
 * unreachable server would otherwise take about 20 s. @default 2000 (ms)
 */
export const API_TEMPORAL_DEADLINE_MS = 2_000;

// ─── 12. Clients: following and listing runs ─────────────────────────────────

/** How `followRunEvents`, `listRuns` and the CLI read runs when not told otherwise. */
export const CLIENT_DEFAULTS = {
  /** How often following a run asks it for new events. @default 250 (ms) */
  followPollMs: 250,
  /** Runs `listRuns` and `agent-runner list` return. @default 20 */
  listLimit: 20,
  /** Largest page asked of Temporal's visibility when listing. @default 1000 */
  listPageSizeMax: 1000,
  /** Temporal runs a transcript read follows back for messages a hand-over left behind. @default 10,000 */
  maxTranscriptHops: 10_000,
} as const;

// ─── 13. The local Temporal server (demo, tests, `npm run server`) ───────────

/** How the project finds, starts, waits for and stops a local `temporal server start-dev`. */
export const LOCAL_SERVER_DEFAULTS = {
  /** gRPC port tried first (Temporal's own default). @default 7233 */
  port: 7233,
  /** Web UI port tried first (Temporal's own default). @default 8233 */
  uiPort: 8233,
  /**
   * How long a new dev server may take to answer. A warm start takes seconds, but the first start
   * after the CLI was built, on a cold machine, has taken over a minute (the binary and SQLite paged
   * in from disk, the namespace created): the wait must outlast that. @default 300,000 (ms, 5 minutes)
   */
  startTimeoutMs: 5 * 60_000,
  /** How often the wait asks whether the server answers. @default 250 (ms) */
  pollMs: 250,
  /**
   * Dynamic config of every dev server the project starts (the demo, `npm start`, the tests, the bench):
   * the stock `start-dev` reads its task queues at most 20 times a second (`history.transferProcessorMaxPollRPS`,
   * one shard), which is most of an iteration's time with a fast model, and does not start activities
   * eagerly (`system.enableActivityEagerExecution`): the worker that completes a workflow task then gets
   * the activity it scheduled in the same answer, without a round trip through the task queue.
   * `npm run bench` measures both against the stock server. @default { 'history.transferProcessorMaxPollRPS': 1000, 'system.enableActivityEagerExecution': true }
   */
  dynamicConfig: {
    'history.transferProcessorMaxPollRPS': 1000,
    'system.enableActivityEagerExecution': true,
  } as Readonly<Record<string, number | boolean>>,
  /** How long one such question may take to connect. @default 1000 (ms) */
  connectTimeoutMs: 1_000,
  /** How often a wait for a server, or a build of the CLI, says it is still waiting. @default 10,000 and 30,000 (ms) */
  progressEveryMs: 10_000,
  cliBuildProgressEveryMs: 30_000,
  /** Lines of the server's log shown when it did not come up. @default 30 */
  logTailLines: 30,
  /** How long a stopped server gets after SIGTERM before SIGKILL, looked at this often. @default 5000 and 100 (ms) */
  stopGraceMs: 5_000,
  stopPollMs: 100,
} as const;

// ─── 14. Streaming a model call's answer to followers ───────────────────────

/**
 * How a model call's deltas reach followers: the worker serves each attempt's deltas over HTTP
 * (a small server it starts itself on first use) and heartbeats the URL; a follower finds it by
 * describing the run and reads it directly. Nothing of it enters the run's history.
 */
export const MODEL_STREAM_DEFAULTS = {
  /** `AGENT_STREAM_HOST`: the address the worker's delta server binds. @default '127.0.0.1' */
  host: '127.0.0.1',
  /** `AGENT_STREAM_PORT`: its port; 0 picks a free one. @default 0 */
  port: 0,
  /** How long an ended attempt's deltas stay readable, for a follower that found it late. @default 10,000 (ms) */
  keepEndedMs: 10_000,
  /** How often a follower describes the run, while a model call runs, to find its stream. @default 100 (ms) */
  discoverPollMs: 100,
  /** How long a follower holds a `model-response` back for the call's last deltas to arrive. @default 2,000 (ms) */
  drainWaitMs: 2_000,
  /** Characters of a scripted tool call's arguments per streamed fragment. @default 8 */
  scriptedArgumentChars: 8,
} as const;
