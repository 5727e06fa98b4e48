import path from 'node:path';
import { z } from 'zod';
import { urlCredentialsProblem } from '../redaction/url-credentials';
import { WORKER_DEFAULTS } from '../shared/defaults/worker';
import { priceTableSchema, type PriceTable } from '../shared/prices';
import { DEFAULT_MAX_TOKENS_FIELD, SAMPLING_BOUNDS } from '../shared/defaults/model-settings';
import { DEFAULT_ENDPOINT_NAME } from '../shared/defaults/model-endpoints';
import { OFFLINE_MODEL } from '../shared/defaults/names';
import { mergeSampling, type SamplingSettings } from '../shared/sampling';
import { parseEnvironment } from './environment';
import { ConfigError } from './config-error';
import { loadModelEndpoints } from './model-endpoints';
import type { ModelEndpoints } from '../shared/model-endpoints';

/** The model settings the worker's activities use. */
export const modelSchema = z.object({
  AGENT_OFFLINE: z
    .enum(['1', '0', 'true', 'false'], { message: 'expected 1 or 0' })
    .optional()
    .describe(
      '`1`: answer every model call with the bundled scripted model, not an LLM, ignoring `OPENAI_*` and `AGENT_MODEL_ENDPOINTS`.',
    ),
  OPENAI_API_KEY: z.string().min(1).optional().describe('The OpenAI API key; set it, or OPENAI_BASE_URL, or both.'),
  OPENAI_BASE_URL: z
    .url({ protocol: /^https?$/, message: 'expected an http(s) URL, for example http://localhost:11434/v1' })
    .optional()
    .describe(`An OpenAI-compatible server (Ollama, vLLM, a proxy); unset, ${WORKER_DEFAULTS.modelBaseUrl}.`),
  OPENAI_MODEL: z.string().min(1).default(WORKER_DEFAULTS.model).describe('The model of a run that names none.'),
  AGENT_WORKSPACE: z
    .string()
    .min(1)
    .default(WORKER_DEFAULTS.workspace)
    .describe('The directory the built-in file tools are confined to.'),
  AGENT_MODEL_PRICES: z
    .string()
    .transform((text, context) => {
      try {
        return JSON.parse(text) as unknown;
      } catch {
        context.addIssue({
          code: 'custom',
          message: 'expected JSON: {"<model>": {"inputPerMTok": <dollars>, "outputPerMTok": <dollars>}}',
        });
        return z.NEVER;
      }
    })
    .pipe(priceTableSchema)
    .optional()
    .describe(
      'JSON, US dollars per million tokens by model (`{"gpt-4o": {"inputPerMTok": 2.5, "outputPerMTok": 10, "cachedInputPerMTok": 1.25}}`, the last optional), for `usage.costUsd` and `costBudget`.',
    ),
  AGENT_MODEL_MAX_TOKENS: z.coerce
    .number()
    .int()
    .positive()
    .max(SAMPLING_BOUNDS.maxTokens)
    .optional()
    .describe("Most tokens one answer may have (unset: the provider's cap); `modelSettings.maxTokens` overrides it."),
  AGENT_MODEL_MAX_TOKENS_FIELD: z
    .enum(['max_tokens', 'max_completion_tokens'], { message: 'expected max_tokens or max_completion_tokens' })
    .optional()
    .describe(
      `The field the token cap is sent as: \`max_tokens\` or \`max_completion_tokens\` (OpenAI reasoning models); unset, ${DEFAULT_MAX_TOKENS_FIELD}.`,
    ),
  AGENT_MODEL_TEMPERATURE: z.coerce
    .number()
    .min(0)
    .max(SAMPLING_BOUNDS.maxTemperature)
    .optional()
    .describe('Sampling temperature, 0 to 2; `modelSettings.temperature` overrides it.'),
  AGENT_MODEL_TOP_P: z.coerce
    .number()
    .gt(0)
    .max(1)
    .optional()
    .describe('Nucleus sampling, above 0 and at most 1; `modelSettings.topP` overrides it.'),
  AGENT_MODEL_SEED: z.coerce.number().int().optional().describe('A sampling seed; `modelSettings.seed` overrides it.'),
});

export type ModelConfig = {
  apiKey?: string;
  baseURL?: string;
  defaultModel: string;
  workspace: string;
  /** `AGENT_MODEL_PRICES`: what each model costs, for `usage.costUsd` and `costBudget`. */
  prices?: PriceTable;
  /** `AGENT_MODEL_MAX_TOKENS`, `AGENT_MODEL_TEMPERATURE`, `AGENT_MODEL_TOP_P`, `AGENT_MODEL_SEED`; absent when none is set. */
  sampling?: SamplingSettings;
  /** `AGENT_MODEL_MAX_TOKENS_FIELD`; absent, `max_tokens`. */
  maxTokensField?: 'max_tokens' | 'max_completion_tokens';
  /** `AGENT_MODEL_ENDPOINTS` (or its file), keys resolved; absent when unset. */
  endpoints?: ModelEndpoints;
  /** `AGENT_MODEL_DEFAULT_ENDPOINT`, or the first named endpoint when `OPENAI_*` names none. */
  defaultEndpoint?: string;
  /** `AGENT_OFFLINE=1`: the process serves the scripted offline model; the model variables it ignores are named. */
  offline?: { ignored: string[] };
};

/** Reads the model settings the worker's activities use. */
export function loadModelConfig(env: NodeJS.ProcessEnv = process.env): ModelConfig {
  const values = parseEnvironment(modelSchema, env);
  if (values.AGENT_OFFLINE === '1' || values.AGENT_OFFLINE === 'true') return offlineModelConfig(values, env);
  const { endpoints, defaultEndpoint } = loadModelEndpoints(env);
  const topLevel = values.OPENAI_API_KEY !== undefined || values.OPENAI_BASE_URL !== undefined;
  const named = Object.keys(endpoints ?? {});
  // Without OPENAI_*, the default endpoint would be OpenAI without a key: the first named endpoint stands in.
  const chosenDefault = defaultEndpoint ?? (topLevel ? undefined : named[0]);
  if (chosenDefault !== undefined && chosenDefault !== DEFAULT_ENDPOINT_NAME && !named.includes(chosenDefault))
    throw new ConfigError(
      `AGENT_MODEL_DEFAULT_ENDPOINT="${chosenDefault}" is not an endpoint of AGENT_MODEL_ENDPOINTS (${named.join(', ') || 'none'}).`,
    );
  if (!topLevel && chosenDefault === undefined) {
    throw new ConfigError(
      'No model is configured: set OPENAI_API_KEY for OpenAI, or OPENAI_BASE_URL for an OpenAI-compatible server ' +
        '(for example OPENAI_BASE_URL=http://localhost:11434/v1 for Ollama); or AGENT_OFFLINE=1 for the bundled scripted model (no key, not an LLM).',
    );
  }
  // fetch refuses a URL with credentials, so every call would fail, and the URL is printed at start and in failures.
  const credentialsProblem =
    values.OPENAI_BASE_URL === undefined ? undefined : urlCredentialsProblem('OPENAI_BASE_URL', values.OPENAI_BASE_URL);
  if (credentialsProblem !== undefined) throw new ConfigError(credentialsProblem);
  const sampling = mergeSampling(undefined, {
    maxTokens: values.AGENT_MODEL_MAX_TOKENS,
    temperature: values.AGENT_MODEL_TEMPERATURE,
    topP: values.AGENT_MODEL_TOP_P,
    seed: values.AGENT_MODEL_SEED,
  });
  return {
    ...(values.OPENAI_API_KEY === undefined ? {} : { apiKey: values.OPENAI_API_KEY }),
    ...(values.OPENAI_BASE_URL === undefined ? {} : { baseURL: values.OPENAI_BASE_URL }),
    defaultModel: defaultModelOf(values.OPENAI_MODEL, env.OPENAI_MODEL, endpoints, chosenDefault),
    workspace: path.resolve(values.AGENT_WORKSPACE),
    ...(values.AGENT_MODEL_PRICES === undefined ? {} : { prices: values.AGENT_MODEL_PRICES }),
    ...(sampling === undefined ? {} : { sampling }),
    ...(values.AGENT_MODEL_MAX_TOKENS_FIELD === undefined
      ? {}
      : { maxTokensField: values.AGENT_MODEL_MAX_TOKENS_FIELD }),
    ...(endpoints === undefined ? {} : { endpoints }),
    ...(chosenDefault === undefined ? {} : { defaultEndpoint: chosenDefault }),
  };
}

/** `AGENT_OFFLINE=1`: the scripted model's name (its URL is known once it listens), and what is ignored. */
function offlineModelConfig(values: z.infer<typeof modelSchema>, env: NodeJS.ProcessEnv): ModelConfig {
  const ignored = OFFLINE_IGNORED.filter((name) => (env[name] ?? '') !== '');
  return { defaultModel: OFFLINE_MODEL, workspace: path.resolve(values.AGENT_WORKSPACE), offline: { ignored } };
}

/** The variables that choose a real model, which `AGENT_OFFLINE=1` overrides. */
const OFFLINE_IGNORED = [
  'OPENAI_API_KEY',
  'OPENAI_BASE_URL',
  'OPENAI_MODEL',
  'AGENT_MODEL_ENDPOINTS',
  'AGENT_MODEL_ENDPOINTS_FILE',
] as const;

/**
 * The model of a run that names none: `OPENAI_MODEL` when set; else, when a named endpoint is the default, its own
 * default model (so no side call, such as an MCP server's sampling request, sends OpenAI's default model there).
 */
function defaultModelOf(
  parsed: string,
  given: string | undefined,
  endpoints: ModelEndpoints | undefined,
  defaultEndpoint: string | undefined,
): string {
  if ((given !== undefined && given !== '') || defaultEndpoint === undefined) return parsed;
  const endpoint = endpoints?.[defaultEndpoint];
  return endpoint?.defaultModel ?? endpoint?.models?.[0] ?? parsed;
}

/**
 * What the demo reads before it knows whether a model is configured: whether
 * one is (else it serves its scripted one) and the workspace it offers as the
 * `--workspace` default.
 */
export function loadDemoModelChoice(env: NodeJS.ProcessEnv = process.env): {
  modelConfigured: boolean;
  workspace: string;
} {
  const values = parseEnvironment(modelSchema, env);
  return {
    modelConfigured:
      values.OPENAI_API_KEY !== undefined ||
      values.OPENAI_BASE_URL !== undefined ||
      Object.keys(loadModelEndpoints(env).endpoints ?? {}).length > 0,
    workspace: values.AGENT_WORKSPACE,
  };
}
