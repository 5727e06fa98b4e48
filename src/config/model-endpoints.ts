import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { urlCredentials, urlCredentialsProblem } from '../redaction/url-credentials';
import { DEFAULT_ENDPOINT_NAME } from '../shared/defaults/model-endpoints';
import {
  endpointNameSchema,
  modelEndpointSchema,
  modelEndpointsSchema,
  type ModelEndpoints,
} from '../shared/model-endpoints';
import { parseEnvironment } from './environment';
import { ConfigError } from './config-error';

/** The named model endpoints of the worker started from the environment. */
export const modelEndpointsVariables = z.object({
  AGENT_MODEL_ENDPOINTS: z
    .string()
    .min(1)
    .optional()
    .describe(
      'JSON, named OpenAI-compatible endpoints besides the default: `{"<name>": {"baseURL", "apiKeyEnv", "models", "maxTokensField", "parallelToolCalls", "streamUsage", "responseFormat", "timeoutMs"}}` (docs/guide/providers.md).',
    ),
  AGENT_MODEL_ENDPOINTS_FILE: z
    .string()
    .min(1)
    .optional()
    .describe('A JSON file of the same endpoints, instead of `AGENT_MODEL_ENDPOINTS`.'),
  AGENT_MODEL_DEFAULT_ENDPOINT: z
    .string()
    .min(1)
    .optional()
    .describe(
      `The endpoint of a run that names none; unset: \`${DEFAULT_ENDPOINT_NAME}\` when OPENAI_BASE_URL is set, else the first of AGENT_MODEL_ENDPOINTS.`,
    ),
});

/** An endpoint as configured: its key in the environment variable `apiKeyEnv`, so the JSON holds no secret. */
const configuredEndpointsSchema = z.record(
  z.string(),
  modelEndpointSchema.extend({
    apiKeyEnv: z
      .string()
      .regex(/^[A-Za-z_][A-Za-z0-9_]*$/)
      .optional(),
  }),
);

/** The endpoints and the default one the environment names; none when neither variable is set. */
export interface ConfiguredEndpoints {
  endpoints?: ModelEndpoints;
  /** `AGENT_MODEL_DEFAULT_ENDPOINT`, as given. */
  defaultEndpoint?: string;
}

/** Reads `AGENT_MODEL_ENDPOINTS` (or its file), resolving each `apiKeyEnv` from `env`. */
export function loadModelEndpoints(env: NodeJS.ProcessEnv = process.env): ConfiguredEndpoints {
  const values = parseEnvironment(modelEndpointsVariables, env);
  const defaultEndpoint = values.AGENT_MODEL_DEFAULT_ENDPOINT;
  const text = endpointsText(values.AGENT_MODEL_ENDPOINTS, values.AGENT_MODEL_ENDPOINTS_FILE);
  if (text === undefined) return defaultEndpoint === undefined ? {} : { defaultEndpoint };
  let json: unknown;
  try {
    json = JSON.parse(text.json);
  } catch (error) {
    throw new ConfigError(`${text.source}: not JSON (${(error as Error).message}).`);
  }
  const configured = configuredEndpointsSchema.safeParse(json);
  if (!configured.success) throw new ConfigError(`${text.source}: ${z.prettifyError(configured.error)}`);
  const withKeys: Record<string, unknown> = {};
  for (const [name, { apiKeyEnv, ...endpoint }] of Object.entries(configured.data)) {
    const nameProblem = endpointNameSchema.safeParse(name).error?.issues[0]?.message;
    if (nameProblem !== undefined) throw new ConfigError(`${text.source}: "${name}": ${nameProblem}.`);
    const key = apiKeyEnv === undefined ? undefined : env[apiKeyEnv];
    if (apiKeyEnv !== undefined && (key === undefined || key === ''))
      throw new ConfigError(
        `${text.source}: the endpoint "${name}" takes its key from ${apiKeyEnv}, which is not set.`,
      );
    if (name === DEFAULT_ENDPOINT_NAME)
      throw new ConfigError(
        `${text.source}: "${DEFAULT_ENDPOINT_NAME}" is the name of the endpoint OPENAI_BASE_URL describes; give this one another name.`,
      );
    const problem =
      endpoint.baseURL === undefined ? undefined : urlCredentialsProblem(`${name}.baseURL`, endpoint.baseURL);
    if (problem !== undefined) throw new ConfigError(`${text.source}: ${problem}`);
    withKeys[name] = { ...endpoint, ...(key === undefined ? {} : { apiKey: key }) };
  }
  const endpoints = modelEndpointsSchema.safeParse(withKeys);
  if (!endpoints.success) throw new ConfigError(`${text.source}: ${z.prettifyError(endpoints.error)}`);
  return { endpoints: endpoints.data, ...(defaultEndpoint === undefined ? {} : { defaultEndpoint }) };
}

/** The keys and URL credentials of the configured endpoints; none when they cannot be read. Never throws. */
export function modelEndpointSecrets(env: NodeJS.ProcessEnv = process.env): string[] {
  try {
    const { endpoints = {} } = loadModelEndpoints(env);
    return Object.values(endpoints).flatMap((endpoint) => [
      ...(endpoint.apiKey === undefined ? [] : [endpoint.apiKey]),
      ...urlCredentials(endpoint.baseURL ?? ''),
    ]);
  } catch {
    return [];
  }
}

/** The endpoints' JSON and where it came from; undefined when neither variable is set. */
function endpointsText(
  inline: string | undefined,
  file: string | undefined,
): { json: string; source: string } | undefined {
  if (inline !== undefined && file !== undefined)
    throw new ConfigError('Set AGENT_MODEL_ENDPOINTS or AGENT_MODEL_ENDPOINTS_FILE, not both.');
  if (inline !== undefined) return { json: inline, source: 'AGENT_MODEL_ENDPOINTS' };
  if (file === undefined) return undefined;
  try {
    return { json: readFileSync(file, 'utf8'), source: `AGENT_MODEL_ENDPOINTS_FILE (${file})` };
  } catch (error) {
    throw new ConfigError(`AGENT_MODEL_ENDPOINTS_FILE: cannot read ${file} (${(error as Error).message}).`);
  }
}
