/**
 * Sampling settings and what a model call does with an answer cut by its token cap.
 * Pure values, imported by workflow code; the runner's defaults are the modules of src/shared/defaults/.
 */

/** The bounds of `modelSettings` (run input) and of the worker's `AGENT_MODEL_*` sampling variables. */
export const SAMPLING_BOUNDS = {
  /** Largest `maxTokens`: above any model's output window today, so the bound only refuses nonsense. */
  maxTokens: 1_000_000,
  /** `temperature` from 0 to this (OpenAI's range). */
  maxTemperature: 2,
  /** Stop sequences one request may carry (OpenAI takes at most 4). */
  stopSequences: 4,
  /** Characters of one stop sequence. */
  stopChars: 200,
} as const;

/**
 * The request field a token cap is sent as. `max_tokens` is what llama.cpp, Ollama, vLLM and OpenAI's
 * non-reasoning models read; OpenAI's reasoning models (o1, o3, gpt-5) refuse it and need
 * `max_completion_tokens`, which older OpenAI-compatible servers ignore (and so would not cap at all).
 */
export const DEFAULT_MAX_TOKENS_FIELD = 'max_tokens';

/**
 * What a run does with a final text answer the provider cut at its token cap (`finish_reason: "length"`),
 * when the run's `answerTruncation` says nothing: ask the model to continue, at most `maxContinuations`
 * times, and fail with `AnswerTruncated` if the answer is still cut.
 */
export const ANSWER_TRUNCATION_DEFAULTS = {
  action: 'continue',
  maxContinuations: 2,
  /** Largest `maxContinuations` a run may ask for. */
  maxContinuationsBound: 10,
} as const;

/** The runner's message asking the model to go on with an answer its token cap cut. */
export const DEFAULT_CONTINUATION_MESSAGE =
  'Your previous answer was cut off by the output token limit. Continue it exactly where it stopped: do not repeat anything, do not start over.';

/** What the model hears for a tool call whose arguments its token cap cut, instead of running the tool. */
export function truncatedToolCallMessage(toolName: string): string {
  return (
    `Error: your call of ${toolName} was cut off by the output token limit (max_tokens) before its arguments were ` +
    'complete, so the tool did not run. Call it again with shorter arguments, or split the work into smaller calls.'
  );
}
