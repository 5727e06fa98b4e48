/**
 * Activities: timeouts, retry policies, heartbeats.
 * Pure values, imported by workflow code; the runner's defaults are the modules of src/shared/defaults/.
 */

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
  /** Loading the tool catalog (`describeTools`) once at the start of each Temporal run. */
  catalogTimeout: '30 seconds',
  /** Attempts of loading the tool catalog. */
  catalogMaxAttempts: 5,
  /**
   * How often a running activity heartbeats. A cancellation reaches an activity only in the
   * answer to a heartbeat, so this (with {@link ACTIVITY_DEFAULTS.maxHeartbeatThrottleInterval})
   * bounds how long a cancelled call keeps running.
   */
  heartbeatIntervalMs: 1_000,
  /**
   * The worker's heartbeat throttle. By default Temporal throttles heartbeats to 80% of the
   * heartbeat timeout, which would let a terminated run's tool run on that long.
   */
  maxHeartbeatThrottleInterval: '1 second',
  /**
   * A tool's attempt gives up (its `AbortSignal` fires) this much before its start-to-close timeout,
   * the smaller of `attemptMarginMs` and `attemptMarginShare` of the timeout, so a slow tool is
   * answered once as its own failure instead of timed out by the server and run again.
   */
  attemptMarginMs: 1_000,
  attemptMarginShare: 0.1,
  /**
   * One execution of a local tool (`local: true`) that declares no `timeout`. Short on purpose: a
   * local activity holds its workflow task open, so the run's signals, updates and queries wait
   * until it ends, and no heartbeat watches it.
   */
  localToolCallTimeout: '5 seconds',
  /**
   * The longest `timeout` a local tool may declare (`defineTool` checks): about the workflow task's
   * own timeout (10 s), past which the worker has to extend the task while the tool runs.
   */
  localToolMaxTimeout: '10 seconds',
} as const;

/**
 * How far the counters among a running run's search attributes (`AgentIterations`,
 * `AgentTotalTokens`) may fall behind: they are upserted with every change of status, pending
 * approvals or termination reason, and otherwise once the run has done this many iterations
 * since they were last sent. An upsert is a command and a visibility write; sending one per
 * model call costs every iteration.
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
 * How many characters of a tool call's arguments that are not JSON the tool's error result quotes back to the model
 * (the request itself carries `{}` in their place).
 */
export const SENT_ARGUMENTS_PREVIEW_CHARS = 200;

/**
 * How configured secrets are kept out of failures and log lines. Shorter secrets are left alone:
 * replacing every "abc" would mangle ordinary text and hide nothing worth hiding.
 */
export const REDACTION = { placeholder: '[redacted]', minSecretLength: 6 } as const;
