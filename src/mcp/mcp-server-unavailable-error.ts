import { AgentRunnerError } from '../shared/agent-runner-error';

/**
 * What goes wrong talking to an MCP server, each in words that name the
 * server, for the model (a tool error) and the worker's log.
 */

const marker = Symbol.for('agent-runner.error.McpServerUnavailableError');

/** The server could not be started or reached, or did not finish the MCP handshake in time. */
export class McpServerUnavailableError extends AgentRunnerError {
  // The name stays as it was: activity failures record it in histories.
  override readonly name = 'McpServerUnavailable';

  private get [marker](): true {
    return true;
  }

  constructor(
    readonly server: string,
    reason: string,
  ) {
    super(`MCP server "${server}" is unavailable: ${reason}`);
  }

  static override isInstance(error: unknown): error is McpServerUnavailableError {
    return AgentRunnerError.hasMarker(error, marker);
  }
}
