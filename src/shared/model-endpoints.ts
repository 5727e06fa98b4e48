import { z } from 'zod';
import { builtOnce } from './built-once';
import { ENDPOINT_BOUNDS } from './defaults/model-endpoints';

/**
 * The named model endpoints a worker holds besides its default one: how each is reached and what it accepts.
 * Pure, so the configuration, the worker's options and the activities read one description.
 */

/** An endpoint's name: letters, digits, `-` and `_`, so `<endpoint>/<model>` splits at its first `/`. */
export const endpointNameSchema = builtOnce('modelEndpoints.name', () =>
  z
    .string()
    .regex(/^[A-Za-z0-9][A-Za-z0-9_-]*$/, 'an endpoint name is letters, digits, - and _ (no /)')
    .max(ENDPOINT_BOUNDS.nameChars),
);

/** One OpenAI-compatible endpoint and the request fields it takes. */
export const modelEndpointSchema = builtOnce('modelEndpoints.endpoint', () =>
  z.strictObject({
    /** Its `/v1` URL, without credentials in it. @default 'https://api.openai.com/v1' */
    baseURL: z.url({ protocol: /^https?$/, message: 'expected an http(s) URL' }).optional(),
    /** Sent as the bearer token; kept on the worker and redacted from failures. */
    apiKey: z.string().min(1).optional(),
    /** The models it serves: a run naming one of them without an endpoint is sent here. The first is its default. */
    models: z.array(z.string().min(1)).max(ENDPOINT_BOUNDS.models).optional(),
    /** The model a run that names only this endpoint gets. @default the first of `models` */
    defaultModel: z.string().min(1).optional(),
    /** The field the token cap is sent as. @default 'max_tokens' */
    maxTokensField: z.enum(['max_tokens', 'max_completion_tokens']).optional(),
    /** Whether it takes `parallel_tool_calls`; false leaves the field out. @default true */
    parallelToolCalls: z.boolean().optional(),
    /** Whether it takes `stream_options.include_usage`; false leaves it out (usage is then estimated). @default true */
    streamUsage: z.boolean().optional(),
    /** Whether answers are streamed from it. @default the worker's `stream` */
    stream: z.boolean().optional(),
    /**
     * What a run's structured output is sent as: `json_schema` (the schema), `json_object` (JSON of any shape, the
     * schema still checked by the runner) or `none` (left out). @default 'json_schema'
     */
    responseFormat: z.enum(['json_schema', 'json_object', 'none']).optional(),
    /** Milliseconds one request may take before the next endpoint is tried. @default the activity's own timeout */
    timeoutMs: z.number().int().positive().optional(),
  }),
);
export type ModelEndpoint = z.infer<typeof modelEndpointSchema>;

/** Endpoints by name. */
export const modelEndpointsSchema = builtOnce('modelEndpoints.endpoints', () =>
  z
    .record(endpointNameSchema, modelEndpointSchema)
    .refine((endpoints) => Object.keys(endpoints).length <= ENDPOINT_BOUNDS.endpoints, {
      message: `at most ${ENDPOINT_BOUNDS.endpoints} endpoints`,
    }),
);
export type ModelEndpoints = z.infer<typeof modelEndpointsSchema>;
