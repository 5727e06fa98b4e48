import { AgentRunnerError } from '../shared/agent-runner-error';

const marker = Symbol.for('agent-runner.error.ToolCallLostError');

/**
 * Thrown from a tool's `execute` when the call was lost with the thing that ran it (an MCP server
 * that died mid-call) rather than failed: Temporal runs the call again, like an execution lost with
 * a worker, until the call's deadline; the model never hears of it as the tool's failure. Past the
 * deadline the model is told the call did not finish.
 */
export class ToolCallLostError extends AgentRunnerError {
  // The name stays as it was: activity failures record it in histories.
  override readonly name = 'ToolCallLost';

  private get [marker](): true {
    return true;
  }

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }

  static override isInstance(error: unknown): error is ToolCallLostError {
    return AgentRunnerError.hasMarker(error, marker);
  }
}
