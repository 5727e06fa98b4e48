import { AgentRunnerError } from '../shared/agent-runner-error';

const marker = Symbol.for('agent-runner.error.ToolCallLostError');

/**
 * Thrown from `execute` when the call was lost with what ran it (an MCP server died) rather than failed: Temporal
 * runs it again until the call's deadline, after which the model is told it did not finish.
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
