import { z } from 'zod';
import type { OutputMode, OutputSpecInput } from './output-schema';

/** Marks an {@link OutputSpec} with the type of its answer; never present at run time. */
declare const answerType: unique symbol;

/**
 * A run input's `output` that knows the type of its answer: plain JSON (the JSON Schema and options), plus a
 * type-only marker, so `runAgent` types `result.output` as `T`. Made by {@link outputSchema}.
 */
export type OutputSpec<T> = OutputSpecInput & { readonly [answerType]?: T };

/** The answer type of an input's `output`: `T` for an {@link OutputSpec}, `unknown` for a plain one, `never` without. */
export type OutputOf<Input> = Input extends { output: OutputSpec<infer T> } ? T : never;

/** What {@link outputSchema} takes besides the schema: the run input's `output` fields. */
export interface OutputSchemaOptions {
  /** The answer tool's name (`tool` mode), or the `json_schema` name. @default 'final_answer' */
  name?: string;
  /** @default 'tool' */
  mode?: OutputMode;
  /** @default 3 */
  maxCorrections?: number;
}

/**
 * A run input's `output` from a zod schema, typed with its output type; the run checks the JSON Schema only, so
 * parse `result.output` with the schema where you use refinements, transforms or defaults.
 */
export function outputSchema<Schema extends z.ZodType>(
  schema: Schema,
  options: OutputSchemaOptions = {},
): OutputSpec<z.output<Schema>> {
  return { schema: z.toJSONSchema(schema) as Record<string, unknown>, ...options };
}
