/**
 * Names and connection.
 * Pure values, imported by workflow code; the runner's defaults are the modules of src/shared/defaults/.
 */

/** Workflow type name registered by the worker and used by every client. */
export const WORKFLOW_TYPE = 'agentWorkflow';

/** Task queue used when `AGENT_TASK_QUEUE` is not set. */
export const DEFAULT_TASK_QUEUE = 'agent-runner';

/** Task queue of the offline demo, so its worker never takes a real worker's runs. */
export const DEMO_TASK_QUEUE = 'agent-runner-demo';

/** Namespace used when `TEMPORAL_NAMESPACE` is not set. */
export const DEFAULT_NAMESPACE = 'default';

/** Server address used when `TEMPORAL_ADDRESS` is not set. */
export const DEFAULT_TEMPORAL_ADDRESS = 'localhost:7233';

/** Version of the JSON shapes that cross a durable boundary (result, state). */
export const SCHEMA_VERSION = 1;

/**
 * The model name the scripted offline model (`AGENT_OFFLINE=1`) answers under: a name no provider uses, so a run
 * that reaches a real endpoint by mistake fails at once instead of being answered by a fixed policy.
 */
export const OFFLINE_MODEL = 'scripted-offline-agent';
