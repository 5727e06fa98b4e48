/**
 * What the chaos harness and its worker process agree on: the environment
 * the harness sets, and the line the worker prints once it polls.
 */

/** Printed on its own line by the worker process when it starts polling. */
export const READY_LINE = 'chaos-worker-ready';

/** The environment a chaos worker process is started with. */
export interface ChaosWorkerEnvironment {
  /** Temporal's frontend; a worker the stack starts (`--stack`) has none and reads the stack's `TEMPORAL_ADDRESS`. */
  CHAOS_TEMPORAL_ADDRESS?: string;
  CHAOS_TASK_QUEUE: string;
  /** The workflow bundle the harness built once, as a file. */
  CHAOS_BUNDLE: string;
  /** The chaos model's base URL (the harness serves it). */
  CHAOS_MODEL_URL: string;
  /** The file the chaos tool appends its side effects to. */
  CHAOS_SIDE_EFFECT_LOG: string;
  /** How long the chaos tool works after its side effect, in ms. */
  CHAOS_TOOL_WORK_MS: string;
  /** Bytes of padding in each chaos tool result, so conversations pass the size past which the model reads them by query. */
  CHAOS_RESULT_BYTES: string;
  /** The file each start of the chaos MCP server appends its process id to. */
  CHAOS_MCP_PID_LOG: string;
  /**
   * The workers' heartbeat timeout and interval (`AGENT_HEARTBEAT_TIMEOUT`, `AGENT_HEARTBEAT_INTERVAL`): shorter than
   * the defaults (50 s, 25 s), since kills come seconds apart and each lost call waits out the timeout; the suite
   * checks how runs end, and test/integration/heartbeat-bounds.test.ts how long a lost call waits at the defaults.
   */
  AGENT_HEARTBEAT_TIMEOUT: string;
  AGENT_HEARTBEAT_INTERVAL: string;
}
