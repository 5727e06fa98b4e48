import { AgentRunnerError } from '../shared/agent-runner-error';

const marker = Symbol.for('agent-runner.error.McpServerUnavailableError');

/** The MCP server could not be started or reached, or did not finish its handshake in time; the message names it. */
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
