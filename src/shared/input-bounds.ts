/**
 * How large a run's input may be, field by field. Every value a caller (or a
 * conversation) hands to `agentWorkflow` has a bound here, so no input can
 * blow the workflow's stack, spend its task's time, or carry a field into an
 * activity's input that pushes it past Temporal's 2 MiB payload limit (which
 * terminates the workflow instead of failing it). Past a bound the run fails
 * at once with `InvalidAgentInput` naming the field. The conversation as a
 * whole is bounded by the size guards (`payload-limits.ts`), not here.
 * Pure values: imported by workflow code.
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
