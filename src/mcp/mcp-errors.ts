/**
 * What goes wrong talking to an MCP server, each in words that name the
 * server, for the model (a tool error) and the worker's log.
 */

/** The server could not be started or reached, or did not finish the MCP handshake in time. */
export class McpServerUnavailable extends Error {
  override readonly name = 'McpServerUnavailable';

  constructor(
    readonly server: string,
    reason: string,
  ) {
    super(`MCP server "${server}" is unavailable: ${reason}`);
  }
}
