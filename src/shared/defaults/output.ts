/**
 * Structured output: a run whose input has `output` ends only with an answer that validates against its JSON Schema.
 * Pure values, imported by workflow code; the runner's defaults are the modules of src/shared/defaults/.
 */

/** Defaults and bounds of the run input's `output`. */
export const OUTPUT_DEFAULTS = {
  /** `output.name`: the terminating tool the model answers with in `tool` mode (and the `json_schema` name). */
  toolName: 'final_answer',
  /** `output.mode`: how the model is asked for the answer; `tool` works on every server that takes tools. */
  mode: 'tool',
  /**
   * `output.maxCorrections`: answers that were not a valid final answer the run sends back to the model, in all;
   * one more fails the run with `Output.Invalid`.
   */
  maxCorrections: 3,
  /** The property a schema whose root is not an object is wrapped in, so the model's answer is always a JSON object. */
  wrapKey: 'value',
  /** Bytes of `output.schema` as JSON; a larger schema is refused at start (`InvalidAgentInput`). */
  schemaBytes: 64 * 1024,
  /** Subschemas (objects and booleans) of one `output.schema`, counted as it is checked at start. */
  subschemas: 2_000,
  /** Validation problems told to the model (and in `Output.Invalid`); the rest are counted. */
  problems: 10,
  /** Characters of one validation problem. */
  problemChars: 300,
} as const;

/** The description of the answer tool the model is offered in `tool` mode. */
export const FINAL_ANSWER_DESCRIPTION =
  'Give your final answer. Call this tool alone, once you have everything you need; its arguments are the answer, ' +
  'and they must match its parameters exactly. Calling it ends the run.';

/** What the model hears when it answers with text in `tool` mode. */
export function callAnswerToolMessage(toolName: string): string {
  return `Error: your last answer was text, but this run must end with a call of the tool "${toolName}" whose arguments are your final answer. Call "${toolName}" now.`;
}

/** What the model hears when its answer did not validate. */
export function invalidAnswerMessage(source: string, problems: readonly string[], retry: string): string {
  return `Error: ${source} is not a valid final answer: ${problems.join('; ')}. ${retry}`;
}
