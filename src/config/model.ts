import path from 'node:path';
import { z } from 'zod';
import { urlCredentialsProblem } from '../redaction/url-credentials';
import { WORKER_DEFAULTS } from '../shared/defaults/worker';
import { priceTableSchema, type PriceTable } from '../shared/prices';
import { ConfigError, parseEnvironment } from './environment';

/** The model settings the worker's activities use. */
export const modelSchema = z.object({
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
      'JSON, US dollars per million tokens by model (`{"gpt-4o": {"inputPerMTok": 2.5, "outputPerMTok": 10}}`), for `usage.costUsd` and `costBudget`.',
    ),
});

export type ModelConfig = {
  apiKey?: string;
  baseURL?: string;
  defaultModel: string;
  workspace: string;
  /** `AGENT_MODEL_PRICES`: what each model costs, for `usage.costUsd` and `costBudget`. */
  prices?: PriceTable;
};

/** Reads the model settings the worker's activities use. */
export function loadModelConfig(env: NodeJS.ProcessEnv = process.env): ModelConfig {
  const values = parseEnvironment(modelSchema, env);
  if (values.OPENAI_API_KEY === undefined && values.OPENAI_BASE_URL === undefined) {
    throw new ConfigError(
      'No model is configured: set OPENAI_API_KEY for OpenAI, or OPENAI_BASE_URL for an OpenAI-compatible server ' +
        '(for example OPENAI_BASE_URL=http://localhost:11434/v1 for Ollama). `npm run demo` runs without either, on a scripted model.',
    );
  }
  // fetch refuses a URL with credentials, so every call would fail, and the URL is printed at start and in failures.
  const credentialsProblem =
    values.OPENAI_BASE_URL === undefined ? undefined : urlCredentialsProblem('OPENAI_BASE_URL', values.OPENAI_BASE_URL);
  if (credentialsProblem !== undefined) throw new ConfigError(credentialsProblem);
  return {
    ...(values.OPENAI_API_KEY === undefined ? {} : { apiKey: values.OPENAI_API_KEY }),
    ...(values.OPENAI_BASE_URL === undefined ? {} : { baseURL: values.OPENAI_BASE_URL }),
    defaultModel: values.OPENAI_MODEL,
    workspace: path.resolve(values.AGENT_WORKSPACE),
    ...(values.AGENT_MODEL_PRICES === undefined ? {} : { prices: values.AGENT_MODEL_PRICES }),
  };
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
    modelConfigured: values.OPENAI_API_KEY !== undefined || values.OPENAI_BASE_URL !== undefined,
    workspace: values.AGENT_WORKSPACE,
  };
}
