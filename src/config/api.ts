import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { API_TOKEN_PRINCIPAL, parsePrincipals, type Principal } from './principals';
import { API_DEFAULTS } from '../shared/defaults/api';
import { defaultAgentTools } from './agent-tools';
import { loadAll, parseEnvironment } from './environment';
import { ConfigError } from './config-error';
import { commaSeparatedNames, splitNames } from './name-list';

/**
 * How the API authenticates: principals (each a name, its token's digest and its scopes) and `token`, the
 * `AGENT_API_TOKEN` principal with every scope; or nothing (only when disabled on purpose, for local use).
 */
export type ApiAuth = { token?: string; principals?: readonly Principal[] } | { disabled: true };

/** What a turn's agent gets when the request does not say. */
export interface AgentDefaults {
  tools: string[];
  instructions?: string;
  model?: string;
}

/** The API's settings, from the environment; every problem is reported at once. */
export interface ApiConfig {
  host: string;
  port: number;
  auth: ApiAuth;
  bodyLimit: number;
  defaults: AgentDefaults;
  /** Undefined: callers may name every tool. */
  allowedTools: string[] | undefined;
  /** Undefined: callers may name every model. */
  allowedModels: string[] | undefined;
  /** Signs `POST /ui/chat`'s approval requests; undefined: answers are bound by their id alone. */
  uiApprovalSecret: string | undefined;
}

/** The HTTP API's listener, authentication, and the agent a chat request gets when it names none. */
export const apiSchema = z.object({
  AGENT_API_HOST: z.string().min(1).default(API_DEFAULTS.host).describe('The address the HTTP API binds.'),
  AGENT_API_PORT: z.coerce
    .number()
    .int()
    .min(0)
    .max(65_535)
    .default(API_DEFAULTS.port)
    .describe("The HTTP API's port; 0 picks a free one."),
  AGENT_API_TOKEN: z
    .string()
    .min(16, 'use at least 16 characters (for example `openssl rand -hex 32`)')
    .optional()
    .describe(
      'The bearer token (16+ characters) of the principal `api-token`, with every scope; required unless AGENT_API_PRINCIPALS_FILE is set or AGENT_API_AUTH=none.',
    ),
  AGENT_API_PRINCIPALS_FILE: z
    .string()
    .min(1)
    .optional()
    .describe('A JSON file of API principals, `[{ "name", "tokenSha256", "scopes" }]` (docs/guide/principals.md).'),
  AGENT_API_AUTH: z
    .enum(['token', 'none'], { message: "expected 'token' (the default) or 'none'" })
    .default(API_DEFAULTS.auth)
    .describe('`token`, or `none` (no authentication; only requests to localhost are answered).'),
  AGENT_API_BODY_LIMIT: z.coerce
    .number()
    .int()
    .min(1024, 'at least 1024 bytes')
    .default(API_DEFAULTS.bodyLimitBytes)
    .describe('The largest request body, in bytes.'),
  AGENT_API_ALLOWED_TOOLS: z
    .string()
    .optional()
    .describe(
      "Comma-separated tools API callers may name (`<server>__*` for an MCP server's), others refused with 403 `tool_not_allowed`; unset: every tool.",
    ),
  AGENT_API_ALLOWED_MODELS: commaSeparatedNames
    .optional()
    .describe(
      "Comma-separated models API callers may name anywhere in a request (a run's `model`, `modelFallbacks`, `compaction.model`, `resultProcessing.extractModel`; a chat's or `/ui/chat`'s `model`; a fork's edit) (`<endpoint>/<model>`, `<endpoint>/*` for all of an endpoint's), others refused with 403 `model_not_allowed`; a request naming none gets the default; unset, every model.",
    ),
  AGENT_UI_APPROVAL_SECRET: z
    .string()
    .min(16, 'at least 16 characters')
    .optional()
    .describe(
      'A secret (16+ characters, the same in every API process) with which `POST /ui/chat` signs approval requests and refuses unsigned answers.',
    ),
  AGENT_INSTRUCTIONS: z.string().min(1).optional().describe('The instructions of a chat request that gives none.'),
  AGENT_MODEL: z
    .string()
    .min(1)
    .optional()
    .describe("The model of a chat request that names none; unset, the worker's OPENAI_MODEL."),
});

/** Reads `AGENT_API_*` (with `AGENT_API_ALLOWED_TOOLS` and `AGENT_API_ALLOWED_MODELS`), `AGENT_TOOLS`, `AGENT_INSTRUCTIONS` and `AGENT_MODEL`; empty variables count as unset. */
export function loadApiConfig(env: NodeJS.ProcessEnv = process.env): ApiConfig {
  const { values, tools } = loadAll({
    values: () => parseEnvironment(apiSchema, env, ['AGENT_API_TOKEN', 'AGENT_UI_APPROVAL_SECRET']),
    tools: () => defaultAgentTools(env),
  });
  return {
    host: values.AGENT_API_HOST,
    port: values.AGENT_API_PORT,
    auth: chooseAuth(values.AGENT_API_AUTH, values.AGENT_API_TOKEN, values.AGENT_API_PRINCIPALS_FILE),
    bodyLimit: values.AGENT_API_BODY_LIMIT,
    allowedTools: toolList(values.AGENT_API_ALLOWED_TOOLS),
    allowedModels:
      values.AGENT_API_ALLOWED_MODELS === undefined ? undefined : [...new Set(values.AGENT_API_ALLOWED_MODELS)],
    uiApprovalSecret: values.AGENT_UI_APPROVAL_SECRET,
    defaults: {
      tools,
      ...(values.AGENT_INSTRUCTIONS === undefined ? {} : { instructions: values.AGENT_INSTRUCTIONS }),
      ...(values.AGENT_MODEL === undefined ? {} : { model: values.AGENT_MODEL }),
    },
  };
}

/** A comma-separated list as names, blank entries dropped; undefined when unset. */
function toolList(text: string | undefined): string[] | undefined {
  return text === undefined ? undefined : [...new Set(splitNames(text))];
}

/** A token or a principals file is required; running without either has to be asked for by name. */
function chooseAuth(mode: 'token' | 'none', token: string | undefined, principalsFile: string | undefined): ApiAuth {
  if (mode === 'none') {
    if (token !== undefined || principalsFile !== undefined)
      throw new ConfigError(
        `AGENT_API_AUTH=none and ${token !== undefined ? 'AGENT_API_TOKEN' : 'AGENT_API_PRINCIPALS_FILE'} are both set; unset one of them.`,
      );
    return { disabled: true };
  }
  if (token === undefined && principalsFile === undefined) {
    throw new ConfigError(
      'The API needs a bearer token: set AGENT_API_TOKEN to a secret of 16+ characters (for example `export AGENT_API_TOKEN=$(openssl rand -hex 32)`), ' +
        'or AGENT_API_PRINCIPALS_FILE to a file of principals with scopes; clients send a token as `Authorization: Bearer <token>`. ' +
        'For local use only, AGENT_API_AUTH=none turns authentication off.',
    );
  }
  return {
    ...(token === undefined ? {} : { token }),
    ...(principalsFile === undefined
      ? {}
      : { principals: readPrincipalsFile(principalsFile, token === undefined ? [] : [API_TOKEN_PRINCIPAL]) }),
  };
}

/** The principals file, parsed; every problem at once, each naming its entry. */
function readPrincipalsFile(file: string, reserved: readonly string[] = []): Principal[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new ConfigError(
      `AGENT_API_PRINCIPALS_FILE=${JSON.stringify(file)}: cannot read it (${(error as Error).message}).`,
    );
  }
  const parsed = parsePrincipals(text, reserved);
  if (!parsed.ok)
    throw new ConfigError(
      `AGENT_API_PRINCIPALS_FILE=${JSON.stringify(file)}:\n${parsed.problems.map((problem) => `  ${problem}`).join('\n')}`,
    );
  return parsed.principals;
}
