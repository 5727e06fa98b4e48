import { z } from 'zod';
import { builtOnce } from './built-once';
import {
  DEFAULT_CIRCUIT_BREAKER_THRESHOLD,
  DEFAULT_LOOP_ACTION,
  DEFAULT_LOOP_THRESHOLD,
  DEFAULT_MASK_KEEP_ITERATIONS,
  DEFAULT_MASK_MIN_TOKENS,
} from './defaults/context-control';
import { INPUT_BOUNDS } from './defaults/input-bounds';

/**
 * The loop's guards (loop detection, result processing, masking, the circuit breaker) as strict JSON schemas; their
 * defaults are in `defaults/context-control.ts`.
 */

/** Loop detection: the same tool called with JSON-equal arguments several times in a row. */
export const loopDetectionSchema = builtOnce('loopGuards.loopDetection', () =>
  z.strictObject({
    /** Consecutive identical calls that count as a loop; 1 would flag every call. @default 3 */
    threshold: z
      .number()
      .int('threshold must be a whole number')
      .min(2, 'threshold must be at least 2: one call is not a loop')
      .default(DEFAULT_LOOP_THRESHOLD),
    /**
     * `warn`: record a `loop-detection` event and go on; `stop`: end the run;
     * `inject_warning`: add a system message telling the model it is looping.
     * @default 'warn'
     */
    action: z.enum(['warn', 'stop', 'inject_warning']).default(DEFAULT_LOOP_ACTION),
  }),
);
/** Loop detection as the workflow uses it (defaults applied). */
export type LoopDetectionConfig = z.infer<typeof loopDetectionSchema>;
/** What loop detection does when it fires. */
export type LoopAction = LoopDetectionConfig['action'];

/** The circuit breaker: the same tool failing with the same error several times in a row. */
export const circuitBreakerSchema = builtOnce('loopGuards.circuitBreaker', () =>
  z.strictObject({
    /** Identical consecutive errors that trip the breaker. @default 5 */
    threshold: z
      .number()
      .int('threshold must be a whole number')
      .min(1, 'threshold must be at least 1')
      .default(DEFAULT_CIRCUIT_BREAKER_THRESHOLD),
  }),
);
/** Circuit breaker settings (defaults applied). */
export type CircuitBreakerConfig = z.infer<typeof circuitBreakerSchema>;

const characterLimit = builtOnce('loopGuards.characterLimit', () =>
  z.number().int('a character limit must be a whole number').positive('a character limit must be above 0'),
);

/**
 * Tool-result processing, three optional stages in order: cut past `maxResultChars`, condense past `extractThreshold`
 * with a model call, cache past `inlineThreshold` and put a summary with a reference in the conversation.
 */
export const resultProcessingSchema = builtOnce('loopGuards.resultProcessing', () =>
  z.strictObject({
    /** Longest tool result, in characters, for every tool. @default no limit */
    maxResultChars: characterLimit.optional(),
    /** Limits by tool name; a tool's own limit wins over `maxResultChars`, larger or smaller. @default none */
    perTool: z
      .record(z.string(), characterLimit)
      // A refinement rather than a key schema: zod reports a bad key only as "Invalid key in record".
      .refine((limits) => !Object.hasOwn(limits, ''), 'a tool name must not be empty')
      .refine((limits) => Object.keys(limits).length <= INPUT_BOUNDS.tools, `at most ${INPUT_BOUNDS.tools} tools`)
      .refine(
        (limits) => Object.keys(limits).every((toolName) => toolName.length <= INPUT_BOUNDS.nameChars),
        `a tool name must be at most ${INPUT_BOUNDS.nameChars} characters`,
      )
      .optional(),
    /**
     * The extractor: a successful result longer than this many characters (after the processor) is condensed by a
     * model call (`extractToolResult`), guided by the last user message. @default off
     */
    extractThreshold: characterLimit.optional(),
    /** The model that condenses results, typically a cheaper one. @default the run's `model` */
    extractModel: z.string().min(1).max(INPUT_BOUNDS.modelChars).optional(),
    /** The extractor's prompt. @default `DEFAULT_EXTRACTION_INSTRUCTIONS` (defaults/context-control.ts) */
    extractInstructions: z.string().min(1).max(INPUT_BOUNDS.shortTextChars).optional(),
    /**
     * The cacher: a successful result longer than this many characters (after the processor and the extractor) is
     * kept in the run's result cache; the model sees its head, its size and a reference, and reads any slice with
     * the built-in `result_cache` tool, offered only when this is set. @default off
     */
    inlineThreshold: characterLimit.optional(),
  }),
);
/** Result processing settings. */
export type ResultProcessingConfig = z.infer<typeof resultProcessingSchema>;

/**
 * Observation masking: large tool results from older iterations
 * are replaced, in what the model sees, by a short placeholder.
 */
export const maskingSchema = builtOnce('loopGuards.masking', () =>
  z.strictObject({
    /** The most recent iterations (counting the current one) whose results are kept. @default 2 */
    keepIterations: z
      .number()
      .int('keepIterations must be a whole number')
      .min(1, 'keepIterations must be at least 1')
      .default(DEFAULT_MASK_KEEP_ITERATIONS),
    /** Results smaller than this many estimated tokens are never masked. @default 500 */
    minTokens: z
      .number()
      .int('minTokens must be a whole number')
      .min(1, 'minTokens must be at least 1')
      .default(DEFAULT_MASK_MIN_TOKENS),
  }),
);
/** Masking settings (defaults applied). */
export type MaskingConfig = z.infer<typeof maskingSchema>;
