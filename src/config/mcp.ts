import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { mcpSecrets, parseMcpServers, type McpServers } from './mcp-servers';
import { parseEnvironment } from './environment';
import { ConfigError } from './config-error';

/** The MCP servers of the worker started from the environment. */
export const mcpSchema = z.object({
  AGENT_MCP_CONFIG: z
    .string()
    .min(1)
    .optional()
    .describe(
      'A JSON file of MCP servers, as MCP clients write it (`{ "mcpServers": { "<name>": { "command", "args", "env" } | { "url", "headers" } } }`); tool `t` becomes `<name>__t`.',
    ),
});

/** The servers `AGENT_MCP_CONFIG` names, checked; none when it is unset. */
export function loadMcpServers(env: NodeJS.ProcessEnv = process.env): McpServers {
  const { AGENT_MCP_CONFIG: file } = parseEnvironment(mcpSchema, env);
  if (file === undefined) return {};
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new ConfigError(`AGENT_MCP_CONFIG: cannot read ${file} as JSON (${(error as Error).message}).`);
  }
  if (typeof json !== 'object' || json === null || !('mcpServers' in json)) {
    throw new ConfigError(`AGENT_MCP_CONFIG: ${file} has no "mcpServers" object.`);
  }
  try {
    return parseMcpServers((json as { mcpServers: unknown }).mcpServers, `${file}: mcpServers`);
  } catch (error) {
    throw new ConfigError((error as Error).message);
  }
}

/** The credentials in the MCP configuration (servers' `env` and `headers`); none when it cannot be read. Never throws. */
export function mcpConfigSecrets(env: NodeJS.ProcessEnv = process.env): string[] {
  try {
    return mcpSecrets(loadMcpServers(env));
  } catch {
    return [];
  }
}
