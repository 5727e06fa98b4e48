import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ErrorCode, McpError, type CallToolResult, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { MCP_DEFAULTS } from '../shared/defaults/mcp';
import { ToolCallLostError } from '../tools/tool-call-lost-error';
import { McpServerUnavailableError } from './mcp-server-unavailable-error';
import { OutputTail } from './output-tail';
import { isHttpServer, type McpServerConfig } from '../config/mcp-servers';

/** What the connection tells the worker's log. */
export interface McpLog {
  info(message: string, attributes?: Record<string, unknown>): void;
  warn(message: string, attributes?: Record<string, unknown>): void;
}

/** Installs handlers for what a server asks of the client (elicitation, sampling) on a new client, before it connects. */
type McpClientSetup = (client: Client, server: string) => void;

export interface McpConnectionOptions {
  log: McpLog;
  /** Capabilities the client announces (elicitation, sampling), with {@link setup} installing their handlers. */
  capabilities?: ConstructorParameters<typeof Client>[1] extends infer O
    ? O extends { capabilities?: infer C }
      ? C
      : never
    : never;
  setup?: McpClientSetup;
}

/** A call's limits and identity. */
export interface McpCallOptions {
  signal: AbortSignal;
  timeoutMs: number;
  /** Sent in the request's `_meta` so a server that cares can deduplicate a call run twice. */
  idempotencyKey: string;
}

interface Open {
  client: Client;
  transport: Transport;
  stderr: OutputTail;
  /** Why the client dropped the connection itself: a message larger than it reads. */
  overflow?: string;
  /** After a call timed out: whether the server still answers a ping; the next call waits for it. */
  alive?: Promise<boolean>;
}

/**
 * One worker's connection to one MCP server: opened on first use and reused by
 * every call; a stdio server that exits is started again on the next use. The
 * server's tool list is cached and dropped when the server says it changed.
 */
export class McpServerConnection {
  private open: Open | undefined;
  private opening: Promise<Open> | undefined;
  private tools: Promise<Tool[]> | undefined;
  private closed = false;

  // A JS private field: the configuration holds the server's credentials, and JSON of this object must not show them.
  readonly #config: McpServerConfig;

  constructor(
    readonly server: string,
    config: McpServerConfig,
    private readonly options: McpConnectionOptions,
  ) {
    this.#config = config;
  }

  /** Every tool the server lists, all pages, cached until the server announces a change. */
  listTools(timeoutMs: number = MCP_DEFAULTS.listTimeoutMs): Promise<Tool[]> {
    this.tools ??= this.fetchTools(timeoutMs).catch((error: unknown) => {
      this.tools = undefined;
      throw error;
    });
    return this.tools;
  }

  /**
   * Calls `tool`. A server that cannot be reached throws {@link McpServerUnavailableError}; a connection
   * lost during the call throws {@link ToolCallLostError} (the call is run again); any other refusal is
   * an `Error` naming the server, for the model.
   */
  async callTool(tool: string, args: Record<string, unknown>, options: McpCallOptions): Promise<CallToolResult> {
    const connectTimeoutMs = Math.min(options.timeoutMs, MCP_DEFAULTS.connectTimeoutMs);
    let open = await this.connected(connectTimeoutMs);
    // A server that stopped answering altogether is started again rather than time this call out too.
    if (open.alive !== undefined && !(await open.alive)) open = await this.connected(connectTimeoutMs);
    const { client } = open;
    try {
      const result = await client.callTool(
        { name: tool, arguments: args, _meta: { [MCP_DEFAULTS.idempotencyMetaKey]: options.idempotencyKey } },
        undefined,
        { signal: options.signal, timeout: options.timeoutMs },
      );
      return result as CallToolResult;
    } catch (error) {
      if (options.signal.aborted) throw error;
      if (error instanceof McpError && error.code === ErrorCode.RequestTimeout)
        this.checkAlive(open, options.timeoutMs);
      throw this.callFailure(open, tool, error, options.timeoutMs);
    }
  }

  /** Closes the connection (a stdio server's process ends with it); later calls are refused. */
  async close(): Promise<void> {
    this.closed = true;
    const open = this.open ?? (await this.opening?.catch(() => undefined));
    this.open = undefined;
    await open?.client.close().catch(() => undefined);
  }

  /**
   * After a call timed out: a server that does not answer a ping either is stuck as a whole (not just that
   * call), so its connection is closed and the server started again on next use rather than time out every call.
   */
  private checkAlive(open: Open, callTimeoutMs: number): void {
    const timeout = Math.max(500, Math.min(MCP_DEFAULTS.pingTimeoutMs, callTimeoutMs / 2));
    open.alive ??= open.client.ping({ timeout }).then(
      () => {
        open.alive = undefined;
        return true;
      },
      () => {
        if (this.open === open) {
          this.open = undefined;
          this.options.log.warn(
            `MCP server "${this.server}" did not answer a ping after a call timed out; restarting it`,
          );
          // Not awaited: closing ends the process within a few seconds (stdin closed, then SIGTERM, then SIGKILL).
          void open.client.close().catch(() => undefined);
        }
        return false;
      },
    );
  }

  /** Connects and reads every page within `timeoutMs` in all, so the catalog's own timeout is never the one that ends it. */
  private async fetchTools(timeoutMs: number): Promise<Tool[]> {
    const deadline = Date.now() + timeoutMs;
    const { client } = await this.connected(timeoutMs);
    const tools: Tool[] = [];
    const seen = new Set<string>();
    let cursor: string | undefined;
    for (let page = 0; page < MCP_DEFAULTS.maxToolPages; page += 1) {
      let listed;
      try {
        const left = Math.max(1, deadline - Date.now());
        listed = await client.listTools(cursor === undefined ? {} : { cursor }, { timeout: left });
      } catch (error) {
        throw new McpServerUnavailableError(this.server, `tools/list failed: ${describe(error)}`);
      }
      tools.push(...listed.tools);
      cursor = listed.nextCursor;
      if (cursor === undefined) return tools;
      // A server that hands out the same cursor again would page forever.
      if (seen.has(cursor)) break;
      seen.add(cursor);
    }
    this.options.log.warn(`MCP server "${this.server}": tools/list did not end; keeping the first pages`, {
      tools: tools.length,
    });
    return tools;
  }

  private connected(timeoutMs: number): Promise<Open> {
    if (this.closed) return Promise.reject(new McpServerUnavailableError(this.server, 'the worker is shutting down'));
    if (this.open !== undefined) return Promise.resolve(this.open);
    this.opening ??= this.start(timeoutMs).finally(() => {
      this.opening = undefined;
    });
    return this.opening;
  }

  private async start(timeoutMs: number): Promise<Open> {
    const client = new Client(
      { name: 'agent-runner', version: MCP_DEFAULTS.clientVersion },
      {
        capabilities: this.options.capabilities ?? {},
        listChanged: {
          tools: {
            autoRefresh: false,
            // The SDK waits 300 ms by default before it says so: a run that starts in between would be offered the
            // old list. Dropping the cache costs nothing, so at once.
            debounceMs: 0,
            onChanged: () => {
              this.tools = undefined;
              this.options.log.info(`MCP server "${this.server}" changed its tools; listing them again on next use`);
            },
          },
        },
      },
    );
    this.options.setup?.(client, this.server);
    const stderr = new OutputTail();
    const transport = this.transport(stderr);
    const open: Open = { client, transport, stderr };
    client.onerror = (error) => {
      // The stdio transport closes the connection after this error; the calls in flight then fail.
      if (/ReadBuffer exceeded/i.test(error.message)) open.overflow = error.message;
    };
    client.onclose = () => {
      if (this.open !== open) return;
      this.open = undefined;
      if (!this.closed) {
        const last = stderr.lines();
        this.options.log.warn(`MCP server "${this.server}" closed its connection; it is started again on next use`, {
          ...(last === '' ? {} : { stderr: last }),
        });
      }
    };
    try {
      await client.connect(transport, { timeout: timeoutMs });
    } catch (error) {
      await client.close().catch(() => undefined);
      const last = stderr.lines();
      throw new McpServerUnavailableError(
        this.server,
        `${connectProblem(error, timeoutMs)}${last === '' ? '' : `; its last output: ${last}`}`,
      );
    }
    if (this.closed) {
      await client.close().catch(() => undefined);
      throw new McpServerUnavailableError(this.server, 'the worker is shutting down');
    }
    this.open = open;
    this.options.log.info(`MCP server "${this.server}" connected`, {
      transport: isHttpServer(this.#config) ? 'streamable-http' : 'stdio',
    });
    return open;
  }

  private transport(stderr: OutputTail): Transport {
    const config = this.#config;
    if (isHttpServer(config)) {
      return new StreamableHTTPClientTransport(new URL(config.url), {
        requestInit: { headers: config.headers ?? {} },
      });
    }
    const transport = new StdioClientTransport({
      command: config.command,
      args: config.args ?? [],
      // The worker's own environment holds its credentials: a server gets a minimal one plus its `env`.
      env: { ...getDefaultEnvironment(), ...config.env },
      ...(config.cwd === undefined ? {} : { cwd: config.cwd }),
      stderr: 'pipe',
    });
    transport.stderr?.on('data', (chunk: Buffer) => stderr.push(chunk));
    return transport;
  }

  private callFailure(open: Open, tool: string, error: unknown, timeoutMs: number): Error {
    if (error instanceof McpError && error.code === ErrorCode.ConnectionClosed && open.overflow !== undefined) {
      // Not lost: run again, the call would answer the same and be dropped again until its deadline.
      return new Error(
        `MCP server "${this.server}" answered with a message larger than the client reads (${open.overflow}); ` +
          'the call was dropped and the server is started again on next use',
      );
    }
    if (error instanceof McpError && error.code === ErrorCode.ConnectionClosed) {
      return new ToolCallLostError(`MCP server "${this.server}" closed its connection during the call of "${tool}"`, {
        cause: error,
      });
    }
    if (error instanceof McpError && error.code === ErrorCode.RequestTimeout) {
      return new Error(
        `MCP server "${this.server}" did not answer the call of "${tool}" within ${Math.round(timeoutMs / 1000)} s`,
      );
    }
    if (isNetworkFailure(error)) {
      return new ToolCallLostError(`MCP server "${this.server}" could not be reached during the call of "${tool}"`, {
        cause: error,
      });
    }
    return new Error(`MCP server "${this.server}" refused the call of "${tool}": ${describe(error)}`);
  }
}

function connectProblem(error: unknown, timeoutMs: number): string {
  if (error instanceof McpError && error.code === ErrorCode.RequestTimeout) {
    return `it did not finish the MCP handshake within ${Math.round(timeoutMs / 1000)} s`;
  }
  if (error instanceof McpError && error.code === ErrorCode.ConnectionClosed) {
    return 'it exited before the MCP handshake finished';
  }
  const code = (error as { code?: unknown } | null)?.code;
  if (code === 'ENOENT') return `its command was not found (${describe(error)})`;
  return describe(error);
}

function isNetworkFailure(error: unknown): boolean {
  const cause = (error as { cause?: { code?: unknown } } | null)?.cause;
  return (
    error instanceof TypeError &&
    (/fetch failed|terminated|network/i.test(error.message) || typeof cause?.code === 'string')
  );
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
