import { msToNumber } from '../shared/duration';
import { z } from 'zod';
import type { AgentToolSpec, ExternalToolDescriptions, ToolDescription } from '../shared/activity-types';
import { MCP_TOOL_SEPARATOR } from '../shared/mcp-tool-names';
import type { ToolDefinition } from './define-tool';
import type { ExternalToolSource } from './external-tool-source';
import { requireZod4Parameters } from './zod-version';

/** The tools a worker offers, by name. */
export interface ToolRegistry {
  /** A defined tool, or the definition a call of an MCP server's tool (`<server>__<tool>`) runs. */
  get(name: string): ToolDefinition | undefined;
  /** Every defined tool, sorted by name, as the workflow and the model see them. */
  describe(): ToolDescription[];
  names(): string[];
  /**
   * The tools `names` stands for that live outside the worker (MCP servers' tools; a `<server>__*`
   * stands for all of a server's), listed from their servers on first use; none without MCP servers.
   */
  describeExternal(names: readonly string[]): Promise<ExternalToolDescriptions>;
}

/**
 * Whether a call of `tool` with `argumentsText` needs approval. A dynamic
 * `needsApproval` sees the validated arguments; arguments that fail the
 * schema need none, since the tool will not run on them.
 */
export function callNeedsApproval(tool: ToolDefinition, argumentsText: string): boolean {
  if (typeof tool.needsApproval !== 'function') return tool.needsApproval === true;
  let parsed: unknown;
  try {
    parsed = argumentsText.trim() === '' ? {} : JSON.parse(argumentsText);
  } catch {
    return false;
  }
  const validated = tool.parameters.safeParse(parsed);
  return validated.success && tool.needsApproval(validated.data);
}

/**
 * Builds a registry of `tools` and, when given, the tools of an external source (MCP servers). Two tools with one
 * name, or a tool named like one of a server's (`<server>__...`), is a configuration error.
 */
export function createToolRegistry(tools: readonly ToolDefinition[], mcp?: ExternalToolSource): ToolRegistry {
  const byName = new Map<string, ToolDefinition>();
  for (const tool of tools) {
    if (byName.has(tool.name))
      throw new TypeError(`Two tools are registered as "${tool.name}"; tool names must be unique.`);
    if (mcp?.owns(tool.name) === true) {
      const server = tool.name.slice(0, tool.name.indexOf(MCP_TOOL_SEPARATOR));
      throw new TypeError(
        `Tool "${tool.name}" is named like a tool of the MCP server "${server}" ("${server}${MCP_TOOL_SEPARATOR}<tool>"); rename it or the server.`,
      );
    }
    byName.set(tool.name, tool);
  }
  const descriptions = [...byName.values()]
    .map((tool) => describeTool(tool))
    .sort((left, right) => left.name.localeCompare(right.name));
  return {
    get: (name) => byName.get(name) ?? mcp?.definition(name),
    describe: () => descriptions,
    names: () => descriptions.map((description) => description.name),
    describeExternal: (names) =>
      mcp === undefined ? Promise.resolve({ tools: [], problems: [] }) : mcp.describe(names),
  };
}

function describeTool(tool: ToolDefinition): ToolDescription {
  return {
    name: tool.name,
    description: tool.description,
    parameters: toParametersSchema(tool),
    terminating: tool.terminating ?? false,
    needsApproval:
      typeof tool.needsApproval === 'function' ? 'dynamic' : tool.needsApproval === true ? 'always' : 'never',
    ...(tool.timeout === undefined ? {} : { timeoutMs: msToNumber(tool.timeout) }),
    ...(tool.deadline === undefined ? {} : { deadlineMs: msToNumber(tool.deadline) }),
    // Only when set, so a catalog without local tools keeps the shape recorded histories hold.
    ...(tool.local === true ? { local: true } : {}),
    // A nested agent carries what the workflow starts it with; other tools' descriptions are as they were.
    ...(isAgentTool(tool) ? { agent: tool.agent } : {}),
  };
}

/** Whether `tool` came from `defineAgentTool`. */
function isAgentTool(tool: ToolDefinition): tool is ToolDefinition & { agent: AgentToolSpec } {
  const agent = (tool as { agent?: AgentToolSpec }).agent;
  return agent !== undefined && agent.kind === 'agent';
}

/** The JSON Schema of the arguments as the model should fill them in (defaults optional). */
function toParametersSchema(tool: ToolDefinition): Record<string, unknown> {
  // A tool written as a plain object skips defineTool's check; a zod 3 schema would fail below without saying so.
  requireZod4Parameters(tool.name, tool.parameters);
  let schema: Record<string, unknown>;
  try {
    schema = z.toJSONSchema(tool.parameters, { io: 'input', unrepresentable: 'throw' }) as Record<string, unknown>;
  } catch (error) {
    throw new TypeError(
      `Tool "${tool.name}": its parameters cannot be expressed as JSON Schema (${(error as Error).message}). ` +
        'Use plain zod types (objects, strings, numbers, enums, arrays) without transforms.',
    );
  }
  delete schema.$schema;
  if (schema.type !== 'object') {
    throw new TypeError(
      `Tool "${tool.name}": parameters must be a z.object(...); providers expect an object of arguments.`,
    );
  }
  return schema;
}
