import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { Context } from '@temporalio/activity';
import { z } from 'zod';
import { msToNumber } from '../shared/duration';
import { ACTIVITY_DEFAULTS } from '../shared/defaults/activities';
import { MCP_DEFAULTS } from '../shared/defaults/mcp';
import type { ExternalToolDescriptions, ToolDescription, ToolServerProblem } from '../shared/activity-types';
import {
  MCP_TOOL_SEPARATOR,
  mcpToolName,
  mcpToolNameProblem,
  toolMatches,
  wildcardServer,
} from '../shared/mcp-tool-names';
import type { ToolContext, ToolDefinition, ToolOutput } from '../tools/define-tool';
import type { ExternalToolSource } from '../tools/external-tool-source';
import { ToolErrorOutput } from '../tools/tool-error-output';
import { resultText } from './call-result';
import { McpServerConnection, type McpConnectionOptions } from './mcp-connection';
import type { McpServerRequests } from './server-requests';
import { McpServerUnavailableError } from './mcp-server-unavailable-error';
import type { McpServerConfig, McpServers } from '../config/mcp-servers';

/** Marks a tool definition as an MCP server's tool. */
export interface McpToolMark {
  server: string;
  tool: string;
}

/** Any object of arguments: the server checks them against its own schema. */
const anyArguments = z.record(z.string(), z.unknown());

/**
 * The MCP servers a worker offers tools from (`<server>__<tool>`), one connection each, opened on first use; a call's
 * limits and approval come from the server's configuration, so it runs on a worker that never listed the tools.
 */
export class McpToolSet implements ExternalToolSource {
  // JS private fields: a worker's options are logged as JSON, and the servers' configuration holds credentials.
  readonly #servers: McpServers;
  readonly #connections: ReadonlyMap<string, McpServerConnection>;
  readonly #requests: McpServerRequests | undefined;

  /**
   * @param options.requests answers what the servers ask during calls (elicitation, sampling): announced in the
   *   handshake and installed on every connection. @default none: the client announces no capability
   */
  constructor(servers: McpServers, options: McpConnectionOptions & { requests?: McpServerRequests }) {
    this.#servers = servers;
    const { requests, ...connectionOptions } = options;
    this.#requests = requests;
    const withRequests =
      requests === undefined
        ? connectionOptions
        : { ...connectionOptions, capabilities: requests.capabilities, setup: requests.setup };
    this.#connections = new Map(
      Object.entries(servers).map(([name, config]) => [name, new McpServerConnection(name, config, withRequests)]),
    );
  }

  /** Whether `name` (a tool or a `<server>__*`) belongs to one of the servers. */
  owns(name: string): boolean {
    return this.serverOf(name) !== undefined;
  }

  /** The definition a call of `name` runs, from the server's configuration alone. */
  definition(name: string): (ToolDefinition & { mcp: McpToolMark }) | undefined {
    const server = this.serverOf(name);
    if (server === undefined || wildcardServer(name) !== undefined) return undefined;
    const tool = name.slice(server.length + MCP_TOOL_SEPARATOR.length);
    const config = this.#servers[server]!;
    const timeoutMs = timeoutOf(config);
    return {
      name,
      description: `Tool "${tool}" of the MCP server "${server}"`,
      parameters: anyArguments,
      needsApproval: needsApproval(config, tool),
      timeout: timeoutMs,
      ...(config.deadline === undefined ? {} : { deadline: msToNumber(config.deadline) }),
      mcp: { server, tool },
      execute: (args: Record<string, unknown>, context: ToolContext) =>
        this.call(server, tool, args, context, timeoutMs),
    };
  }

  /**
   * The descriptions of the MCP tools `names` stands for (exact names and `<server>__*`),
   * listing each server named once; a server that cannot be listed is a problem, not a failure.
   */
  async describe(names: readonly string[]): Promise<ExternalToolDescriptions> {
    const wanted = names.filter((name) => this.owns(name));
    const servers = [...new Set(wanted.map((name) => this.serverOf(name)!))].sort();
    const listed = await Promise.all(servers.map((server) => this.describeServer(server, wanted)));
    return {
      tools: listed.flatMap((entry) => entry.tools).sort((left, right) => left.name.localeCompare(right.name)),
      problems: listed.flatMap((entry) => entry.problems),
    };
  }

  /** Closes every connection; stdio servers' processes end with them. */
  async close(): Promise<void> {
    await Promise.all([...this.#connections.values()].map((connection) => connection.close()));
  }

  private async describeServer(server: string, wanted: readonly string[]): Promise<ExternalToolDescriptions> {
    let tools: Tool[];
    try {
      tools = await this.#connections.get(server)!.listTools();
    } catch (error) {
      const reason = McpServerUnavailableError.isInstance(error)
        ? error.message
        : `MCP server "${server}": ${String(error)}`;
      return { tools: [], problems: [{ server, reason }] };
    }
    const config = this.#servers[server]!;
    const problems: ToolServerProblem[] = [];
    const descriptions: ToolDescription[] = [];
    for (const tool of tools) {
      const name = mcpToolName(server, String(tool.name));
      if (!wanted.some((pattern) => toolMatches(pattern, name))) continue;
      const problem = mcpToolNameProblem(server, String(tool.name));
      if (problem !== undefined) {
        problems.push({
          server,
          tool: name,
          reason: `MCP server "${server}" lists a tool the runner cannot offer: ${problem}`,
        });
        continue;
      }
      descriptions.push(describeTool(name, server, tool, config));
    }
    return { tools: descriptions, problems };
  }

  private async call(
    server: string,
    tool: string,
    args: Record<string, unknown>,
    context: ToolContext,
    timeoutMs: number,
  ): Promise<ToolOutput> {
    // While the call runs, a question the server asks goes to the call's run.
    const ended = new AbortController();
    const untrack = this.#requests?.track(server, {
      callId: context.callId,
      workflow: workflowOf(context),
      runId: context.runId,
      signal: AbortSignal.any([context.signal, ended.signal]),
      asked: 0,
    });
    let result;
    try {
      result = await this.#connections.get(server)!.callTool(tool, args, {
        signal: context.signal,
        // Answered by the server's own timeout a little before the activity's, so the model hears which server hung.
        timeoutMs: Math.max(1_000, timeoutMs - ACTIVITY_DEFAULTS.attemptMarginMs),
        idempotencyKey: context.idempotencyKey,
      });
    } finally {
      ended.abort();
      untrack?.();
    }
    const text = resultText(result);
    return result.isError === true ? new ToolErrorOutput(text || `MCP server "${server}" reported an error`) : text;
  }

  private serverOf(name: string): string | undefined {
    const index = name.indexOf(MCP_TOOL_SEPARATOR);
    if (index <= 0) return undefined;
    const server = name.slice(0, index);
    return this.#connections.has(server) ? server : undefined;
  }
}

/** The call's run, reached with its activity's client; undefined when the call runs outside an activity. */
function workflowOf(context: ToolContext) {
  if (context.runId === '') return undefined; // an activity started outside a workflow
  try {
    return Context.current().client.workflow.getHandle(context.workflowId, context.runId);
  } catch {
    return undefined;
  }
}

function describeTool(name: string, server: string, tool: Tool, config: McpServerConfig): ToolDescription {
  const description = String(
    tool.description ?? tool.title ?? `Tool "${String(tool.name)}" of the MCP server "${server}"`,
  );
  return {
    name,
    description:
      description.length > MCP_DEFAULTS.maxDescriptionChars
        ? `${description.slice(0, MCP_DEFAULTS.maxDescriptionChars)}…`
        : description,
    // As the server gives it: the server checks the arguments against it.
    parameters: (tool.inputSchema ?? { type: 'object' }) as Record<string, unknown>,
    terminating: false,
    needsApproval: needsApproval(config, String(tool.name)) ? 'always' : 'never',
    timeoutMs: timeoutOf(config),
    ...(config.deadline === undefined ? {} : { deadlineMs: msToNumber(config.deadline) }),
  };
}

function needsApproval(config: McpServerConfig, tool: string): boolean {
  const approval = config.approval ?? 'none';
  return approval === 'all' || (Array.isArray(approval) && approval.includes(tool));
}

function timeoutOf(config: McpServerConfig): number {
  return msToNumber(config.timeout ?? ACTIVITY_DEFAULTS.toolCallTimeout);
}
