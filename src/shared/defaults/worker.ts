/**
 * The worker's environment.
 * Pure values, imported by workflow code; the runner's defaults are the modules of src/shared/defaults/.
 */

/** What the worker uses when a variable is not set. */
export const WORKER_DEFAULTS = {
  /** `OPENAI_MODEL`: the model of a run that names none. */
  model: 'gpt-4o-mini',
  /** The provider when `OPENAI_BASE_URL` is not set: the OpenAI SDK's own default, shown in start lines. */
  modelBaseUrl: 'https://api.openai.com/v1',
  /** `AGENT_WORKSPACE`: the directory the file tools are confined to. */
  workspace: './workspace',
  /** `LOG_LEVEL`: the Temporal SDK's log level. */
  logLevel: 'INFO',
} as const;

/**
 * Activities one worker made by `createAgentWorker` runs at once (`maxConcurrentActivityTaskExecutions`;
 * the SDK's own default is 100). An agent's activities mostly wait on a model provider, so the
 * slots, not the CPU, would cap the runs in flight: at 100, the 101st model call waits for a
 * free slot. With a `tuner` in the worker's overrides, the tuner decides.
 */
export const AGENT_WORKER_MAX_CONCURRENT_ACTIVITIES = 1_000;
