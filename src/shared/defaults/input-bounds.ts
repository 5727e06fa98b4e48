/**
 * Input bounds.
 * Pure values, imported by workflow code; the runner's defaults are the modules of src/shared/defaults/.
 */

/**
 * How large a run's input may be, field by field, so no input blows the workflow's stack or time, or pushes an
 * activity's input past Temporal's 2 MiB payload limit (which terminates the workflow); past a bound the run fails with
 * `InvalidAgentInput`. The conversation as a whole is bounded by `sizes.ts`.
 */
export const INPUT_BOUNDS = {
  /**
   * Levels of JSON nesting (objects and arrays) anywhere in the input,
   * counting the input object itself: `stopWhen`'s `any`/`all` trees, a custom
   * condition's `params`, messages. Measured without recursion before
   * anything else reads the input. A message with tool calls is 6 levels
   * deep; each `any`/`all` adds 2.
   */
  depth: 32,
  /** Characters of a decider's name (`by.name` of approve, deny and decide): a principal, a user, a client's name. */
  deciderNameChars: 100,
  /** Characters of `model`; provider model names are short, and the name travels in every model call. */
  modelChars: 1024,
  /**
   * Characters of a name or id: a tool name (`tools`, `terminating.toolIds`, `approval.tools`,
   * `resultProcessing.perTool` keys, `functionCall`), a handoff target, a custom condition's name,
   * a tool call's id, a user's `name`.
   */
  nameChars: 256,
  /** Characters of a run's id (`forkedFrom.runId`): Temporal's own bound on a workflow id (`limit.maxIDLength`). */
  runIdChars: 1000,
  /**
   * Characters of a long text: `instructions`, `message`, one message's content, a tool call's
   * arguments. The conversation's total is held to 1.5 MiB by the size guards.
   */
  textChars: 1024 * 1024,
  /** Characters of a runner message: `terminating.nudgeMessage`, `restrictOutput.message`, `textMention`. */
  shortTextChars: 64 * 1024,
  /** Characters of a duration written as text (`"5 minutes"`). */
  durationChars: 100,
  /** Tools one run may use (`tools`); OpenAI takes at most 128 per request. */
  tools: 128,
  /** Messages of a prior conversation (`messages`). */
  messages: 50_000,
  /** Tool calls in one assistant message of `messages`. */
  toolCallsPerMessage: 256,
  /** Members of one `any` or `all` of `stopWhen`. */
  stopConditionMembers: 64,
  /** Bytes of a custom stop condition's `params` as JSON; they are rendered into the run's termination reason. */
  paramsBytes: 16 * 1024,
  /** Problems one `InvalidAgentInput` lists; the rest are counted. */
  problems: 20,
  /** Characters of one listed problem, so a failure always fits in a Temporal payload. */
  problemChars: 1000,
} as const;
