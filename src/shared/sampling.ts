import { z } from 'zod';
import { builtOnce } from './built-once';
import { ANSWER_TRUNCATION_DEFAULTS, SAMPLING_BOUNDS } from './defaults/model-settings';

/**
 * Sampling settings of a model call: how long its answer may be, how it is sampled, whether it must call a
 * tool. The worker sets them for every call it makes (`ModelSettings.sampling`, `AGENT_MODEL_*`); a run sets
 * its own (`modelSettings` of the input), field by field over the worker's. Pure: imported by workflow code.
 */
export const samplingSettingsSchema = builtOnce('sampling.settings', () =>
  z.strictObject({
    /**
     * Most tokens one answer may have (sent as `max_tokens`, or `max_completion_tokens` when the worker says so).
     * An answer cut there ends with `finish_reason: "length"`: see `answerTruncation`. @default the provider's
     */
    maxTokens: z.number().int().positive().max(SAMPLING_BOUNDS.maxTokens).optional(),
    /** Sampling temperature, 0 to 2. @default the provider's */
    temperature: z.number().min(0).max(SAMPLING_BOUNDS.maxTemperature).optional(),
    /** Nucleus sampling: the probability mass sampled from, above 0 and at most 1. @default the provider's */
    topP: z.number().gt(0).max(1).optional(),
    /** A seed, for providers that sample deterministically with one. @default none */
    seed: z.number().int().min(Number.MIN_SAFE_INTEGER).max(Number.MAX_SAFE_INTEGER).optional(),
    /** Up to 4 sequences at which the provider stops the answer. @default none */
    stop: z
      .array(z.string().min(1).max(SAMPLING_BOUNDS.stopChars))
      .min(1)
      .max(SAMPLING_BOUNDS.stopSequences)
      .optional(),
    /**
     * `auto`: the model chooses; `required`: every answer calls a tool (a run then ends only by a terminating
     * tool, a stop condition or a limit); `none`: no answer calls one. Sent only when the call offers tools.
     * @default the provider's (`auto`)
     */
    toolChoice: z.enum(['auto', 'required', 'none']).optional(),
  }),
);

/** Sampling settings, every field optional. */
export type SamplingSettings = z.infer<typeof samplingSettingsSchema>;

/** The worker's settings with the run's over them, field by field; absent when neither sets any. */
export function mergeSampling(
  worker: SamplingSettings | undefined,
  run: SamplingSettings | undefined,
): SamplingSettings | undefined {
  const merged = { ...definedFields(worker), ...definedFields(run) };
  return Object.keys(merged).length === 0 ? undefined : merged;
}

/**
 * `run` without `toolChoice`: what a side call (compaction, extraction: one text, no tools) and a nested agent
 * take of a run's settings. Absent when nothing else is left.
 */
export function withoutToolChoice(run: SamplingSettings | undefined): SamplingSettings | undefined {
  if (run === undefined) return undefined;
  // eslint-disable-next-line @typescript-eslint/no-unused-vars
  const { toolChoice, ...rest } = run;
  return Object.keys(rest).length === 0 ? undefined : rest;
}

/** The `sampling` field of a side call's input for a run with `modelSettings`; nothing when the run sets none. */
export function sideCallSampling(run: { modelSettings?: SamplingSettings | undefined }): {
  sampling?: SamplingSettings;
} {
  const sampling = withoutToolChoice(run.modelSettings);
  return sampling === undefined ? {} : { sampling };
}

function definedFields(settings: SamplingSettings | undefined): SamplingSettings {
  return Object.fromEntries(
    Object.entries(settings ?? {}).filter(([, value]) => value !== undefined),
  ) as SamplingSettings;
}

/**
 * What a run does with a final text answer the provider cut at its token cap (`finish_reason: "length"`).
 * A tool call cut there is never run: the model hears that it was cut, as the call's error.
 */
export const answerTruncationSchema = builtOnce('sampling.answerTruncation', () =>
  z.strictObject({
    /**
     * `continue`: ask the model to go on where it stopped and answer with the parts joined, at most
     * `maxContinuations` times, then fail with `AnswerTruncated`; `fail`: fail with `AnswerTruncated` at once;
     * `accept`: complete with the cut answer, the result saying `truncated: true`. @default 'continue'
     */
    action: z.enum(['continue', 'fail', 'accept']).default(ANSWER_TRUNCATION_DEFAULTS.action),
    /** Continuations asked for one answer, with `continue`. @default 2 */
    maxContinuations: z
      .number()
      .int()
      .nonnegative()
      .max(ANSWER_TRUNCATION_DEFAULTS.maxContinuationsBound)
      .default(ANSWER_TRUNCATION_DEFAULTS.maxContinuations),
  }),
);
export type AnswerTruncation = z.output<typeof answerTruncationSchema>;
