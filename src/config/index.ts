import { readFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { maskUrlCredentials, urlCredentials, urlCredentialsProblem } from '../redaction';
import { DEFAULT_NAMESPACE, DEFAULT_TASK_QUEUE, DEFAULT_TEMPORAL_ADDRESS, WORKER_DEFAULTS } from '../shared/constants';
import { priceTableSchema, type PriceTable } from '../shared/prices';

/**
 * Configuration from the environment, checked once at start so a typo fails
 * the process with a message instead of surfacing as a hung run.
 */

const hostPort = z
  .string()
  .regex(/^(\[[0-9a-fA-F:.]+\]|[^\s:/[\]]+):\d{1,5}$/, 'expected host:port, for example localhost:7233')
  .refine((value) => Number(/:(\d{1,5})$/.exec(value)?.[1] ?? 0) <= 65_535, 'the port must be at most 65535');

const temporalSchema = z.object({
  TEMPORAL_ADDRESS: hostPort.default(DEFAULT_TEMPORAL_ADDRESS),
  TEMPORAL_NAMESPACE: z.string().min(1).default(DEFAULT_NAMESPACE),
  AGENT_TASK_QUEUE: z.string().min(1).default(DEFAULT_TASK_QUEUE),
  TEMPORAL_API_KEY: z.string().min(1).optional(),
  TEMPORAL_TLS_CERT: z.string().min(1).optional(),
  TEMPORAL_TLS_KEY: z.string().min(1).optional(),
});

const modelSchema = z.object({
  OPENAI_API_KEY: z.string().min(1).optional(),
  OPENAI_BASE_URL: z
    .url({ protocol: /^https?$/, message: 'expected an http(s) URL, for example http://localhost:11434/v1' })
    .optional(),
  OPENAI_MODEL: z.string().min(1).default(WORKER_DEFAULTS.model),
  AGENT_WORKSPACE: z.string().min(1).default(WORKER_DEFAULTS.workspace),
  /** JSON: `{"gpt-4o": {"inputPerMTok": 2.5, "outputPerMTok": 10}}`, US dollars per million tokens by model. */
  AGENT_MODEL_PRICES: z
    .string()
    .transform((text, context) => {
      try {
        return JSON.parse(text) as unknown;
      } catch {
        context.addIssue({ code: 'custom', message: 'expected JSON: {"<model>": {"inputPerMTok": <dollars>, "outputPerMTok": <dollars>}}' });
        return z.NEVER;
      }
    })
    .pipe(priceTableSchema)
    .optional(),
});

const logLevelSchema = z.object({
  LOG_LEVEL: z
    .string()
    .transform((level) => level.toUpperCase())
    .pipe(z.enum(['TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR'], { message: 'expected trace, debug, info, warn or error' }))
    .default(WORKER_DEFAULTS.logLevel),
});

export type TemporalConfig = {
  address: string;
  namespace: string;
  taskQueue: string;
  apiKey?: string;
  tls?: { certPath: string; keyPath: string };
};

export type LogLevel = 'TRACE' | 'DEBUG' | 'INFO' | 'WARN' | 'ERROR';

export type ModelConfig = {
  apiKey?: string;
  baseURL?: string;
  defaultModel: string;
  workspace: string;
  /** `AGENT_MODEL_PRICES`: what each model costs, for `usage.costUsd` and `costBudget`. */
  prices?: PriceTable;
};

/** A configuration problem, with every bad variable named. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

/** The worker's log level, `LOG_LEVEL`. @default 'INFO' */
export function loadLogLevel(env: NodeJS.ProcessEnv = process.env): LogLevel {
  return parseEnvironment(logLevelSchema, env).LOG_LEVEL;
}

/** Everything the worker reads, with every problem reported in one error. */
export function loadWorkerConfig(env: NodeJS.ProcessEnv = process.env): {
  temporal: TemporalConfig;
  model: ModelConfig;
  logLevel: LogLevel;
} {
  return loadAll({
    temporal: () => loadTemporalConfig(env),
    model: () => loadModelConfig(env),
    logLevel: () => loadLogLevel(env),
  });
}

/** Runs every load, so one error names every problem rather than only the first. */
export function loadAll<Loads extends Record<string, () => unknown>>(loads: Loads): { [Key in keyof Loads]: ReturnType<Loads[Key]> } {
  const problems: string[] = [];
  const values: Record<string, unknown> = {};
  for (const [key, load] of Object.entries(loads)) {
    try {
      values[key] = load();
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      problems.push(error.message);
    }
  }
  if (problems.length > 0) throw new ConfigError(problems.join('\n'));
  return values as { [Key in keyof Loads]: ReturnType<Loads[Key]> };
}

/** Reads the Temporal connection settings; empty variables count as unset. */
export function loadTemporalConfig(env: NodeJS.ProcessEnv = process.env): TemporalConfig {
  const values = parseEnvironment(temporalSchema, env);
  if ((values.TEMPORAL_TLS_CERT === undefined) !== (values.TEMPORAL_TLS_KEY === undefined)) {
    throw new ConfigError('Set both TEMPORAL_TLS_CERT and TEMPORAL_TLS_KEY for mTLS, or neither.');
  }
  return {
    address: values.TEMPORAL_ADDRESS,
    namespace: values.TEMPORAL_NAMESPACE,
    taskQueue: values.AGENT_TASK_QUEUE,
    ...(values.TEMPORAL_API_KEY === undefined ? {} : { apiKey: values.TEMPORAL_API_KEY }),
    ...(values.TEMPORAL_TLS_CERT !== undefined && values.TEMPORAL_TLS_KEY !== undefined
      ? { tls: { certPath: values.TEMPORAL_TLS_CERT, keyPath: values.TEMPORAL_TLS_KEY } }
      : {}),
  };
}

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
  const credentialsProblem = values.OPENAI_BASE_URL === undefined ? undefined : urlCredentialsProblem('OPENAI_BASE_URL', values.OPENAI_BASE_URL);
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
 * The variables `schema` names, parsed; empty ones count as unset. A problem
 * names the variable and its value, except for `secrets`, shown as (hidden);
 * credentials in a URL (`user:password@`) are shown as `***`.
 */
export function parseEnvironment<Schema extends z.ZodObject>(schema: Schema, env: NodeJS.ProcessEnv, secrets: readonly string[] = []): z.output<Schema> {
  const present = Object.fromEntries(
    Object.keys(schema.shape).flatMap((key) => (env[key] ? [[key, env[key]]] : [])),
  );
  const parsed = schema.safeParse(present);
  if (parsed.success) return parsed.data;
  const shown = (key: string) => (secrets.includes(key) ? '(hidden)' : JSON.stringify(maskUrlCredentials(env[key] ?? '')));
  const problems = parsed.error.issues.map((issue) => `${issue.path.join('.')}=${shown(String(issue.path[0]))}: ${issue.message}`);
  throw new ConfigError(`Bad configuration: ${problems.join('; ')}`);
}

/**
 * Every secret in the worker's environment, for redaction from failures and
 * log lines: `OPENAI_API_KEY`, `AGENT_API_TOKEN`, `TEMPORAL_API_KEY`, the
 * contents of the `TEMPORAL_TLS_KEY` file (whole and line by line, without
 * its BEGIN/END lines) and credentials in `OPENAI_BASE_URL`. Never throws:
 * it is read even when the configuration is bad, so the message about that
 * is redacted too; a key file that cannot be read holds nothing to redact yet.
 */
export function configuredSecrets(env: NodeJS.ProcessEnv = process.env): string[] {
  const secrets = [env.OPENAI_API_KEY, env.AGENT_API_TOKEN, env.TEMPORAL_API_KEY, ...urlCredentials(env.OPENAI_BASE_URL ?? '')];
  if (env.TEMPORAL_TLS_KEY) {
    try {
      const key = readFileSync(env.TEMPORAL_TLS_KEY, 'utf8');
      secrets.push(key, key.trim(), ...key.split(/\r?\n/).map((line) => line.trim()).filter((line) => !line.startsWith('-----')));
    } catch {
      // The connection reports the missing file; there is no key material to hide.
    }
  }
  return [...new Set(secrets.filter((secret): secret is string => secret !== undefined && secret !== ''))];
}
