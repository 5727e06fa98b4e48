import { z } from 'zod';
import { builtOnce } from './built-once';
import { COMPACTION_DEFAULTS, DEFAULT_COMPACTION_INSTRUCTIONS } from './defaults/context-control';
import { INPUT_BOUNDS } from './defaults/input-bounds';

/**
 * Compaction: before a model call whose conversation passes `maxTokens`
 * (estimated), the model summarises the older messages and sees the summary
 * in their place from then on. Off unless given.
 */
export const compactionSchema = builtOnce('compaction.compaction', () =>
  z.strictObject({
    /**
     * The estimated tokens (about four characters a token) of what the model sees, instructions included,
     * past which the run compacts before its next model call.
     */
    maxTokens: z
      .number()
      .int('maxTokens must be a whole number')
      .min(COMPACTION_DEFAULTS.minMaxTokens, `maxTokens must be at least ${COMPACTION_DEFAULTS.minMaxTokens}`)
      .max(COMPACTION_DEFAULTS.maxMaxTokens, `maxTokens must be at most ${COMPACTION_DEFAULTS.maxMaxTokens}`),
    /** The newest iterations (model answer and tool results) kept whole, never summarised. @default 2 */
    keepRecentIterations: z
      .number()
      .int('keepRecentIterations must be a whole number')
      .min(1, 'keepRecentIterations must be at least 1: the model needs its last answer and results as they were')
      .max(
        COMPACTION_DEFAULTS.maxKeepRecentIterations,
        `keepRecentIterations must be at most ${COMPACTION_DEFAULTS.maxKeepRecentIterations}`,
      )
      .default(COMPACTION_DEFAULTS.keepRecentIterations),
    /** The summarisation prompt. @default {@link DEFAULT_COMPACTION_INSTRUCTIONS} */
    instructions: z.string().min(1).max(INPUT_BOUNDS.shortTextChars).default(DEFAULT_COMPACTION_INSTRUCTIONS),
    /** The model that writes the summary. @default the run's `model` */
    model: z.string().min(1).max(INPUT_BOUNDS.modelChars).optional(),
  }),
);
/** Compaction settings (defaults applied). */
export type CompactionConfig = z.infer<typeof compactionSchema>;
