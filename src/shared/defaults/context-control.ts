/**
 * Loop guards and context control.
 * Pure values, imported by workflow code; the runner's defaults are the modules of src/shared/defaults/.
 */

/** Loop detection: consecutive identical tool calls that count as a loop. */
export const DEFAULT_LOOP_THRESHOLD = 3;

/** Loop detection: what a detected loop does. */
export const DEFAULT_LOOP_ACTION = 'warn';

/** Circuit breaker: identical consecutive tool errors that trip the circuit breaker (and the nudges `requireToolCall` allows). */
export const DEFAULT_CIRCUIT_BREAKER_THRESHOLD = 5;

/** Observation masking: the most recent iterations whose tool results are never masked. */
export const DEFAULT_MASK_KEEP_ITERATIONS = 2;

/** Observation masking: the smallest tool result, in estimated tokens, that is masked. */
export const DEFAULT_MASK_MIN_TOKENS = 500;

/**
 * `context_release`, the built-in tool offered while masking is on: the model names earlier iterations
 * whose tool results masking may hide now, whatever their age. Answered in the workflow.
 */
export const CONTEXT_RELEASE_TOOL = 'context_release';

/** Bounds of `context_release`: iterations one call may name, and iterations a run may release in all. */
export const CONTEXT_RELEASE_LIMITS = { maxPerCall: 256, maxReleased: 100_000 } as const;

/** How masking estimates tokens: one per this many characters, rounded up. */
export const CHARS_PER_TOKEN_ESTIMATE = 4;

/**
 * Compaction (`compaction` in a run's input): the defaults and bounds of its fields, and how
 * long a summary may be. Token counts are estimates ({@link CHARS_PER_TOKEN_ESTIMATE}).
 */
export const COMPACTION_DEFAULTS = {
  /** `compaction.keepRecentIterations`: the newest iterations never summarised. */
  keepRecentIterations: 2,
  /** The largest `keepRecentIterations` accepted. */
  maxKeepRecentIterations: 1_000,
  /** The smallest `compaction.maxTokens` accepted: below it a summary would hardly fit. */
  minMaxTokens: 256,
  /** The largest `compaction.maxTokens` accepted; past every model's context window. */
  maxMaxTokens: 10_000_000,
  /**
   * Share of `maxTokens` a summary may take: a longer one is cut there (with a note) in the activity, so a
   * model that ignores the request cannot fill the context again with its summary.
   */
  summaryShare: 0.5,
  /**
   * Longest summary in characters, whatever `maxTokens` allows: the summary travels in the activity's result, in
   * every later model call and in each continue-as-new, all under Temporal's 2 MiB payload limit.
   */
  summaryMaxChars: 128 * 1024,
} as const;

/** Compaction: the summarisation prompt, the system message of the compaction call unless `compaction.instructions` replaces it. */
export const DEFAULT_COMPACTION_INSTRUCTIONS =
  "You condense the earlier part of an agent's working conversation so the agent can carry on with less context. " +
  'The transcript you are given will be replaced by what you write, so write it for the agent, in plain text, without a preamble. ' +
  'Keep the task and every requirement, constraint and preference the user stated; what has been done, with the results, ' +
  'numbers, names, paths and identifiers that may still matter; decisions taken and why; errors met and how they were handled; ' +
  'and what is left to do. If the transcript opens with an earlier summary, fold it into yours. ' +
  'Drop greetings, repetition and anything later superseded.';

/** Compaction: what precedes the summary in the message that stands for the summarised messages. */
export const COMPACTION_SUMMARY_HEADING =
  'Summary of the earlier part of this conversation (the runner replaced those messages with it):';

/** Compaction: the note that ends a summary cut to its share of `maxTokens`. */
export const COMPACTION_SUMMARY_CUT_NOTE = '[summary cut: it was longer than the compaction allows]';

/**
 * The result pipeline's extractor (`resultProcessing.extractThreshold`): a tool result longer than the threshold
 * is condensed by a model call before the model sees it.
 */
export const RESULT_EXTRACTION_DEFAULTS = {
  /**
   * Longest condensed text in characters, whatever the result's length: it replaces the result in every later
   * model call and travels in each continue-as-new. A longer one is cut there, with a note.
   */
  maxChars: 32 * 1024,
  /** Characters of the last user message sent as the extractor's guidance; a longer one is cut. */
  guidanceChars: 8_000,
} as const;

/** The extractor's prompt, the system message of the extraction call unless `resultProcessing.extractInstructions` replaces it. */
export const DEFAULT_EXTRACTION_INSTRUCTIONS =
  "You condense one tool result for an agent that is working on a user's request. " +
  "What you write replaces the result in the agent's context, so keep everything the request may need, word for word where " +
  'exactness matters (numbers, names, paths, identifiers, code, error messages), and drop the rest. ' +
  'Write plain text without a preamble, and never more than the result itself.';

/** The extractor: the note that ends a condensed text cut to {@link RESULT_EXTRACTION_DEFAULTS.maxChars}. */
export const EXTRACTION_CUT_NOTE = '[extraction cut: it was longer than the extractor allows]';

/**
 * The result pipeline's cacher (`resultProcessing.inlineThreshold`): a result longer than the threshold is kept in
 * the run's result cache, and the model sees its head and a reference it reads with the built-in `result_cache` tool.
 */
export const RESULT_CACHE_DEFAULTS = {
  /** The built-in tool that reads a cached result back, answered by the workflow itself. */
  toolName: 'result_cache',
  /**
   * Characters of a cached result shown to the model with its reference (at most half the `inlineThreshold`, so
   * the summary stays shorter than what it stands for).
   */
  headChars: 1_000,
  /** Longest slice one `result_cache` call returns, in characters; also its default `length`. */
  sliceMaxChars: 8_000,
  /**
   * Characters the cache holds at most, all entries together (in the continue-as-new state's JSON a character may weigh
   * several bytes). The cache lives in the workflow's state and travels in every continue-as-new, where
   * it is recorded twice (as the old run's last command and the new run's input); past this the oldest entries are
   * dropped, and reading one answers that it was dropped.
   */
  maxChars: 256 * 1024,
} as const;
