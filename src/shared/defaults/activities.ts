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
   * How long the server waits for a running activity's heartbeat before it takes the attempt as lost (its worker
   * died) and tries again: with the retry's backoff (a model call's flat 1 s, a tool call's first 1 s), a call whose
   * worker died is running again within a minute. A worker setting (`AGENT_HEARTBEAT_TIMEOUT`, the plugin's `heartbeat.timeout`) that the run's
   * workflow reads from the worker's tool catalog.
   */
  heartbeatTimeout: '50 seconds',
  /**
   * Attempts of a model call that fail on the provider's side (429, 5xx, connection, timeout); attempts lost to
   * the infrastructure (a worker that died) do not count. The activity keeps the count (`provider-failures.ts`).
   */
  modelCallMaxAttempts: 8,
  /** Attempts of a tool call whose tool throws `RetryableToolError`; then the error goes to the model. */
  toolCallMaxAttempts: 3,
  /** Loading the tool catalog (`describeTools`) once at the start of each Temporal run. */
  catalogTimeout: '30 seconds',
  /** Attempts of loading the tool catalog. */
  catalogMaxAttempts: 5,
  /**
   * How often a running activity heartbeats, its first heartbeat one interval after it starts. Each heartbeat that
   * reaches the server is a billed action on Temporal Cloud, so the interval is long: a model or tool call shorter
   * than it sends none. Half the heartbeat timeout, so one late heartbeat does not lose the attempt. A worker
   * setting (`AGENT_HEARTBEAT_INTERVAL`, the plugin's `heartbeat.interval`).
   */
  heartbeatIntervalMs: 25_000,
  /**
   * How often a running activity asks the server (`DescribeWorkflowExecution`, which is not billed) whether its run
   * ended or asked it to stop; it then heartbeats at once to hear of it. A cancellation reaches an activity only in
   * the answer to a heartbeat, so this, not the heartbeat interval, bounds how long a stopped call keeps running.
   */
  cancelCheckIntervalMs: 5_000,
  /** How long before its start-to-close timeout an attempt still running heartbeats what it spent, for the next attempt. */
  finalHeartbeatMarginMs: 2_000,
  /**
   * The worker's heartbeat throttle. By default Temporal throttles heartbeats to 80% of the
   * heartbeat timeout, which would hold back the heartbeat a stopped call sends to hear of it.
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
 * How many iterations the counter search attributes may fall behind when nothing else changed: an upsert is a command
 * and a visibility write, too dear for every model call.
 */
export const SEARCH_ATTRIBUTE_COUNTER_STEP = 10;

/**
 * The retry policy of each activity stub (`src/workflows/agent/activities.ts`). A command's
 * retry policy is part of the run's history: a change here is a change to running workflows.
 */
export const ACTIVITY_RETRY_POLICIES = {
  /** The tool catalog: a few quick attempts. */
  catalog: { maximumAttempts: ACTIVITY_DEFAULTS.catalogMaxAttempts },
  /**
   * A model call (and the side texts: compaction, extraction): an attempt lost to the infrastructure is retried
   * after a flat second, with no limit on attempts, so a call survives any number of worker crashes. The
   * provider's own failures are bounded and backed off by the activity itself ({@link MODEL_CALL_PROVIDER_BACKOFF},
   * {@link ACTIVITY_DEFAULTS.modelCallMaxAttempts}): doubling this policy's backoff would count every lost worker.
   */
  modelCall: {
    initialInterval: '1 second',
    backoffCoefficient: 1,
    maximumAttempts: Number.POSITIVE_INFINITY,
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
 * The delay after a model call's provider failure: 1 s doubling to 1 min (the delays of 8 attempts sum to about
 * 2 min, long enough for a provider's brief outage); a provider's `Retry-After` sets the delay instead.
 */
export const MODEL_CALL_PROVIDER_BACKOFF = {
  initialIntervalMs: 1_000,
  backoffCoefficient: 2,
  maximumIntervalMs: 60_000,
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
