/**
 * A run's input.
 * Pure values, imported by workflow code; the runner's defaults are the modules of src/shared/defaults/.
 */

/** Model calls allowed in one run unless the input says otherwise (the terminating tools' default). */
export const DEFAULT_MAX_INVOCATIONS = 64;

/**
 * Nested agents (`defineAgentTool`): how deep a tree of runs may grow, and how much of it a result lists. A run
 * at depth `d` may start a nested agent only when `d + 1 < maxDepth`: with 3, a run, the agent it calls, and one
 * more level below that.
 */
export const NESTED_AGENT_DEFAULTS = {
  /** Levels of runs a tree may have (the top run is depth 0). */
  maxDepth: 3,
  /** Nested agents a result names one by one in `children`; past that they are only counted and summed. */
  listedChildren: 100,
} as const;

/** Terminating tools: content-only answers tolerated in a row before the run fails. */
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

/** The tool message content of a `TerminateResponse` without a message. */
export const DEFAULT_TERMINATE_MESSAGE = 'Task completed.';

/** Defaults of the run's other input fields, as the input schema applies them. */
export const INPUT_DEFAULTS = {
  /** `parallelToolCalls`: the model may ask for several tools at once, run concurrently. */
  parallelToolCalls: true,
  /** `requireToolCall`: every answer must call a tool. */
  requireToolCall: false,
  approval: {
    /** `approval.tools`: the tools whose calls wait for a person. */
    tools: [],
    /** `approval.onTimeout`: what a call whose approval timed out gets. */
    onTimeout: 'deny',
  },
  /** `resultMessages`: the result carries only the newest messages once the conversation passes {@link RESULT_MESSAGES_INLINE_BYTES}. */
  resultMessages: 'recent',
  restrictOutput: {
    /** `restrictOutput.enabled`. */
    enabled: false,
    /** `restrictOutput.maxInjections`: restriction messages per turn; 0 is no limit. */
    maxInjections: 0,
  },
} as const;

/** Longest reason (of a `stop` or `terminate` request) a run keeps; a longer one is cut. */
export const STOP_REASON_CHARS = 1_000;

/** Longest reason of an approval policy's decision the run keeps; a longer one is cut. */
export const APPROVAL_POLICY_REASON_CHARS = 1_000;
