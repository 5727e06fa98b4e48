import { z } from 'zod';
import { durationSchema, msToNumber } from '../shared/duration';
import { serverNameProblem } from '../shared/mcp-tool-names';
import { SAMPLING_BOUNDS } from '../shared/defaults/model-settings';

/**
 * The MCP servers a worker connects to, in MCP clients' own format: `command`, `args`, `env` over stdio, or `url` and
 * `headers` over Streamable HTTP. `env` and `headers` are credentials: they stay on the worker, redacted.
 */

/** Which of a server's tools wait for approval before they run. */
const approvalSchema = z
  .union([z.enum(['none', 'all']), z.array(z.string().min(1)).max(1_000)])
  .describe('"none", "all", or the names of the tools (as the server names them) that wait for approval');

const commonFields = {
  /** Which tools need approval. @default 'none' */
  approval: approvalSchema.optional(),
  /** One call's timeout (and the server's connect timeout). @default the tools' default, 5 minutes */
  timeout: durationSchema.optional(),
  /** All attempts of one call, restarts of a server that died included. @default three times `timeout` */
  deadline: durationSchema.optional(),
  /** Leave the server out without deleting its entry. @default false */
  disabled: z.boolean().optional(),
  /**
   * Let the server sample the worker's default model (`sampling/createMessage`) during a run's call; refused
   * otherwise. The tokens count in that run's usage and budgets (an `mcp-sampling` event). @default false
   */
  sampling: z.boolean().optional(),
  /** Most tokens one sampling answer may have; the server's `maxTokens` is lowered to it. @default 1024 */
  samplingMaxTokens: z.number().int().positive().max(SAMPLING_BOUNDS.maxTokens).optional(),
};

const stdioServerSchema = z.strictObject({
  type: z.literal('stdio').optional(),
  command: z.string().min(1, 'name the program that starts the server'),
  args: z.array(z.string()).max(1_000).optional(),
  /** Added to a minimal environment (PATH, HOME and the like); the worker's own variables are not passed on. */
  env: z.record(z.string(), z.string()).optional(),
  cwd: z.string().min(1).optional(),
  ...commonFields,
});

const httpServerSchema = z.strictObject({
  type: z.enum(['http', 'streamable-http', 'streamableHttp']).optional(),
  url: z.url({ protocol: /^https?$/, error: "give the server's http(s) URL" }),
  headers: z.record(z.string(), z.string()).optional(),
  ...commonFields,
});

const serverSchema = z.unknown().transform((value, context) => {
  const type = (value as { type?: unknown } | null)?.type;
  if (type === 'sse') {
    context.addIssue({
      code: 'custom',
      message: "the SSE transport is deprecated in MCP and not supported: use the server's Streamable HTTP URL",
    });
    return z.NEVER;
  }
  const isHttp = typeof value === 'object' && value !== null && 'url' in value;
  const parsed = (isHttp ? httpServerSchema : stdioServerSchema).safeParse(value);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) context.addIssue({ ...issue, code: 'custom' } as never);
    return z.NEVER;
  }
  return parsed.data;
});

const mcpConfigSchema = z.strictObject({
  mcpServers: z.record(z.string(), serverSchema).superRefine((servers, context) => {
    for (const [name, server] of Object.entries(servers)) {
      const problem = serverNameProblem(name);
      if (problem !== undefined) context.addIssue({ code: 'custom', path: [name], message: problem });
      if (server.timeout !== undefined && server.deadline !== undefined) {
        if (msToNumber(server.deadline) < msToNumber(server.timeout)) {
          context.addIssue({
            code: 'custom',
            path: [name, 'deadline'],
            message: 'the deadline (all attempts) cannot be shorter than the timeout (one attempt)',
          });
        }
      }
    }
  }),
});

type McpStdioServer = z.output<typeof stdioServerSchema>;
export type McpHttpServer = z.output<typeof httpServerSchema>;
/** One server's entry. */
export type McpServerConfig = McpStdioServer | McpHttpServer;
/** `mcpServers` as the worker option takes it: the servers by name. */
export type McpServers = Record<string, McpServerConfig>;

/** Whether `server` is reached over HTTP rather than started over stdio. */
export function isHttpServer(server: McpServerConfig): server is McpHttpServer {
  return 'url' in server;
}

/**
 * Checks a worker's `mcpServers`, returning the enabled ones. Problems are one
 * `TypeError` naming each server and field, so a bad entry fails at start.
 */
export function parseMcpServers(servers: unknown, source = 'mcpServers'): McpServers {
  const parsed = mcpConfigSchema.safeParse({ mcpServers: servers });
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => {
      const path = issue.path.slice(1).map(String).join('.');
      return `${path === '' ? source : `${source}.${path}`}: ${issue.message}`;
    });
    throw new TypeError(`The MCP server configuration is not valid:\n  ${problems.join('\n  ')}`);
  }
  return Object.fromEntries(Object.entries(parsed.data.mcpServers).filter(([, server]) => server.disabled !== true));
}

/** The values of a server's configuration that are credentials: its `env` and `headers` values. */
export function mcpSecrets(servers: McpServers): string[] {
  const secrets: string[] = [];
  for (const server of Object.values(servers)) {
    const values = isHttpServer(server) ? Object.values(server.headers ?? {}) : Object.values(server.env ?? {});
    secrets.push(...values);
    if (isHttpServer(server)) {
      // A bearer header's token alone can appear in an echo or an error too.
      for (const value of values) {
        const token = /^\s*\w+\s+(\S+)\s*$/.exec(value)?.[1];
        if (token !== undefined) secrets.push(token);
      }
    }
  }
  return secrets;
}
